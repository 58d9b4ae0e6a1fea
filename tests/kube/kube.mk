# lib/kube tests against the real test cluster (tests/cluster): every
# tests/kube/test_*.c is its own program, built with the sanitizers like the
# unit tests, into build/asan/tests/kube/. tests/suites/50-cluster.sh runs
# them inside the cluster's network namespace; without the cluster they skip.
# (The archive path is spelled out: LIB_ASAN is defined after this fragment
# is included.)
KUBE_TEST_SRCS := $(sort $(wildcard tests/kube/test_*.c))
KUBE_TEST_BINS := $(patsubst tests/kube/%.c,build/asan/tests/kube/%,$(KUBE_TEST_SRCS))

build/asan/tests/kube/%: build/asan/tests/kube/%.o build/asan/libsb.a
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)
.PRECIOUS: build/asan/tests/kube/%.o

unit-bins: $(KUBE_TEST_BINS)
asan: $(KUBE_TEST_BINS)
