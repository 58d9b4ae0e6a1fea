# In-tree fuzzing (fuzz/): one libFuzzer harness per input path that another
# party can write (fuzz/fuzz_*.c), built with clang and
# -fsanitize=fuzzer,address,undefined against its own copy of the library
# objects (build/fuzz/, one archive per layer as the Makefile's). Included
# after the layers are known.
#
#   make fuzz FUZZ_SECONDS=600          each harness for that long, corpus kept
#                                        in build/fuzz/corpus/, findings in
#                                        build/fuzz/findings/
#   make fuzz FUZZ_TARGETS="spec report" only those
#   bash tests/run-suites.sh fuzz        the suite make test runs: regressions
#                                        plus a short seeded run of each
FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -DSB_VERSION='"$(VERSION)"' $(PKG_CFLAGS) \
	-O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers
FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_BINS := $(patsubst fuzz/%.c,build/fuzz/bin/%,$(FUZZ_SRCS))
LIB_FUZZ := $(call layer_all,fuzz)

$(foreach l,$(LAYERS),$(eval $(call layer_ar_rule,fuzz,$(l),ar)))
build/fuzz/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC fuzz $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(call src_inc,$<) -MMD -MP -c -o $@ $<
build/fuzz/bin/%: build/fuzz/fuzz/%.o $(LIB_FUZZ)
	@mkdir -p $(@D)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDFLAGS) $(LDLIBS_TESTS)
.PRECIOUS: build/fuzz/fuzz/%.o

.PHONY: fuzz fuzz-bins
fuzz-bins: $(FUZZ_BINS)
fuzz: fuzz-bins
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash fuzz/run.sh long $(FUZZ_TARGETS)

fuzz_nbsp := $(shell printf '\302\240')
fuzz_space := $(subst ,, )
EXTRA_HELP += $(subst $(fuzz_space),$(fuzz_nbsp),fuzz            each libFuzzer harness for FUZZ_SECONDS=60 seconds (fuzz/README.md))
