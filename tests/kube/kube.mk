# lib/kube tests against the real test cluster (tests/cluster): every
# tests/kube/test_*.c is its own program, built with the sanitizers like the
# unit tests, into build/asan/tests/kube/. tests/suites/50-cluster.sh runs
# them inside the cluster's network namespace; without the cluster they skip.
# (The archives are named by layer_all, expanded when the rule runs:
# LIB_ASAN is defined after this fragment is included.)
KUBE_TEST_SRCS := $(sort $(wildcard tests/kube/test_*.c))
KUBE_TEST_BINS := $(patsubst tests/kube/%.c,build/asan/tests/kube/%,$(KUBE_TEST_SRCS))

build/asan/tests/kube/%: build/asan/tests/kube/%.o $(call layer_all,asan)
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS_TESTS)
.PRECIOUS: build/asan/tests/kube/%.o

unit-bins: $(KUBE_TEST_BINS)
asan: $(KUBE_TEST_BINS)

# Without sanitizers, for valgrind (tests/kube/valgrind.sh): the cluster
# tests and the kube unit tests linked against the release archive.
KUBE_VG_BINS := $(patsubst %.c,build/rel/%,$(KUBE_TEST_SRCS) \
	$(sort $(wildcard tests/unit/kube/test_kube_*.c)))
build/rel/tests/kube/%: build/rel/tests/kube/%.o $(call layer_all,rel)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS_TESTS)
build/rel/tests/unit/kube/test_kube_%: build/rel/tests/unit/kube/test_kube_%.o $(call layer_all,rel)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS_TESTS)
.PRECIOUS: build/rel/tests/kube/%.o build/rel/tests/unit/kube/test_kube_%.o
.PHONY: kube-valgrind-bins kube-valgrind
kube-valgrind-bins: $(KUBE_VG_BINS)
kube-valgrind: kube-valgrind-bins
	bash tests/kube/valgrind.sh

# The kube benchmark (scripts/bench.d/kube.sh), an optimised build.
.PHONY: kube-bench-bin
kube-bench-bin: build/rel/tests/kube/bench_kube
