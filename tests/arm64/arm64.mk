# make test-arm64 (tests/suites/15-arm64.sh, docs/testing.md "arm64"):
# the project cross-built for arm64 with Debian's gcc-aarch64-linux-gnu and
# its unit tests run under qemu-user, from scripts/deps/arm64.list.
#  - every C source of the project compiled for arm64 with the project's
#    warnings and -Werror (a construct that only builds on x86 fails here);
#    the third-party headers are the host's -dev packages' own
#    (tests/arm64/headers.sh), the C library is the arm64 one;
#  - the unit tests that need nothing but libc and libm (ARM64_UNITS)
#    linked with UBSan and run with qemu-aarch64 -L $(ARM64_SYSROOT).
# Included after the layers are known (one archive per layer, as the
# Makefile's).
ARM64_CC ?= aarch64-linux-gnu-gcc
ARM64_SYSROOT ?= /usr/aarch64-linux-gnu
ARM64_INC := build/arm64/include
ARM64_SAN := -fsanitize=undefined -fno-sanitize-recover=undefined
ARM64_CFLAGS := -std=c11 -D_GNU_SOURCE -DSB_VERSION='"$(VERSION)"' $(WARN) \
	-idirafter $(ARM64_INC) -O2 -g $(ARM64_SAN)
# Every C source: what git tracks and what is on disk (a new file counts
# before it is committed); the suite checks each tracked one has its object.
ARM64_SRCS := $(sort $(shell git ls-files '*.c' 2>/dev/null) \
	$(wildcard lib/*/*.c lib/*/*/*.c runner/*.c runner/*/*.c controller/*.c controller/*/*.c \
		plugin/*.c fuzz/*.c tests/*/*.c tests/*/*/*.c))
ARM64_OBJS := $(patsubst %.c,build/arm64/%.o,$(ARM64_SRCS))
# The unit tests whose code needs only libc and libm (the others link
# jansson, curl, OpenSSL, libyaml, liburing or libmicrohttpd): the runner's
# checksum and job language (options, job files, profiles), the pure
# planner, statistics, histograms, units, cron and time zones, logging,
# the plugin's arguments. A test that starts to need another library
# fails to link here: move it out of the list only with a reason.
ARM64_UNITS := runner/crc32c fiojob/runner_opts controller/controller_plan core/stats core/hist \
	core/units core/cron core/log plugin/plugin_args
ARM64_UNIT_BINS := $(foreach u,$(ARM64_UNITS),build/arm64/tests/unit/$(dir $(u))test_$(notdir $(u)))

# the test image's program is built on its own (tests/cluster/images.sh):
# checked with its own flags, -Werror added
build/arm64/tests/cluster/images/sbtest.o: ARM64_FILE_CFLAGS := -Os -Wall -Wextra -Werror

$(ARM64_INC)/.stamp: scripts/deps/build.list tests/arm64/headers.sh
	@bash tests/arm64/headers.sh $(ARM64_INC)
	@touch $@
build/arm64/%.o: %.c $(ARM64_INC)/.stamp
	@mkdir -p $(@D)
	@echo "  CC arm64 $<"
	@$(ARM64_CC) $(or $(ARM64_FILE_CFLAGS),$(ARM64_CFLAGS) $(call src_inc,$<)) -MMD -MP -c -o $@ $<
$(foreach l,$(LAYERS),$(eval $(call layer_ar_rule,arm64,$(l),aarch64-linux-gnu-ar)))
build/arm64/tests/unit/%: build/arm64/tests/unit/%.o $(call layer_all,arm64)
	@echo "  LD arm64 $@"
	@$(ARM64_CC) $(ARM64_SAN) -o $@ $^ -lm -lpthread
.PRECIOUS: build/arm64/tests/unit/%.o

.PHONY: arm64-bins arm64-list test-arm64
arm64-bins: $(ARM64_OBJS) $(ARM64_UNIT_BINS)
# the unit programs the suite runs
arm64-list:
	@echo $(ARM64_UNIT_BINS)
test-arm64:
	bash tests/run-suites.sh arm64

arm64_nbsp := $(shell printf '\302\240')
arm64_space := $(subst ,, )
EXTRA_HELP += $(subst $(arm64_space),$(arm64_nbsp),test-arm64      every source cross-compiled for arm64, the libc-only unit tests run under qemu-aarch64)
