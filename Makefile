# storagebench: top-level build.
#
# Each directory contributes a fragment (lib/lib.mk, runner/runner.mk, ...).
# Objects go to build/<variant>/ where <variant> is "rel" (the shipped
# binaries) or "asan" (AddressSanitizer + UndefinedBehaviorSanitizer, used
# by the tests). Binaries users run land in bin/.

PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

CC ?= cc
PKGS := liburing jansson yaml-0.1 libcurl openssl libmicrohttpd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -luring -ljansson -lyaml -lcurl -lssl -lcrypto -lmicrohttpd)

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wno-missing-field-initializers \
	-Wno-format-truncation
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -DSB_VERSION='"$(VERSION)"' $(WARN) -Ilib -I. $(PKG_CFLAGS)
REL_CFLAGS := $(BASE_CFLAGS) -O2 -g $(CFLAGS)
ASAN_CFLAGS := $(BASE_CFLAGS) -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -lpthread -lm
ASAN_LDFLAGS := -fsanitize=address,undefined

# Fragments append their sources to these lists.
LIB_SRCS :=
RUNNER_SRCS :=
RUNNER_MAIN :=
CONTROLLER_SRCS :=
CONTROLLER_MAIN :=
PLUGIN_MAIN :=
PLUGIN_SRCS :=
BINS :=

.PHONY: all test check lint fmt fmt-check bench demo demo-ceph install clean help deps valgrind unit vg-bins unit-bins asan test-repeat
all:

-include lib/lib.mk
-include runner/runner.mk
-include controller/controller.mk
-include plugin/plugin.mk
-include tests/tests.mk
-include tests/cluster/cluster.mk
-include charts/charts.mk
-include tests/kube/kube.mk

obj = $(patsubst %.c,build/$(1)/%.o,$(2))

LIB_REL := build/rel/libsb.a
LIB_ASAN := build/asan/libsb.a
ALL_CORE_SRCS := $(LIB_SRCS) $(RUNNER_SRCS) $(CONTROLLER_SRCS) $(PLUGIN_SRCS)
-include fuzz/fuzz.mk
-include tests/arm64/arm64.mk

$(LIB_REL): $(call obj,rel,$(ALL_CORE_SRCS))
	@mkdir -p $(@D)
	@echo "  AR      $@"
	@rm -f $@ && ar rcs $@ $^
$(LIB_ASAN): $(call obj,asan,$(ALL_CORE_SRCS))
	@mkdir -p $(@D)
	@echo "  AR      $@"
	@rm -f $@ && ar rcs $@ $^

build/rel/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(REL_CFLAGS) -MMD -MP -c -o $@ $<
build/asan/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC asan $<"
	@$(CC) $(ASAN_CFLAGS) -MMD -MP -c -o $@ $<

bin/storagebench-runner: build/rel/$(RUNNER_MAIN:.c=.o) $(LIB_REL)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)
build/asan/bin/storagebench-runner: build/asan/$(RUNNER_MAIN:.c=.o) $(LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)

ifneq ($(CONTROLLER_MAIN),)
BINS += bin/storagebench-controller
bin/storagebench-controller: build/rel/$(CONTROLLER_MAIN:.c=.o) $(LIB_REL)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)
build/asan/bin/storagebench-controller: build/asan/$(CONTROLLER_MAIN:.c=.o) $(LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)
endif
ifneq ($(PLUGIN_MAIN),)
BINS += bin/kubectl-storagebench
bin/kubectl-storagebench: build/rel/$(PLUGIN_MAIN:.c=.o) $(LIB_REL)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)
build/asan/bin/kubectl-storagebench: build/asan/$(PLUGIN_MAIN:.c=.o) $(LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)
endif

BINS := bin/storagebench-runner $(BINS)
ASAN_BINS := $(patsubst bin/%,build/asan/bin/%,$(BINS))

all: $(BINS)
asan: $(ASAN_BINS)

# Unit tests: every tests/unit/test_*.c is its own program, built with the
# sanitizers, linked against everything but the mains.
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,build/asan/tests/unit/%,$(UNIT_SRCS))
build/asan/tests/unit/%: build/asan/tests/unit/%.o $(LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)
.PRECIOUS: build/asan/tests/unit/%.o
# Small helper programs the tests run (tests/tools/*.c), built plain.
TOOL_BINS := $(patsubst tests/tools/%.c,build/tests/tools/%,$(wildcard tests/tools/*.c))
build/tests/tools/%: tests/tools/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(REL_CFLAGS) -o $@ $<
# stats-eval calls lib/stats.c (the reference check of tests/reports)
build/tests/tools/stats-eval: tests/tools/stats-eval.c $(LIB_REL)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(REL_CFLAGS) -o $@ $< $(LIB_REL) $(LDFLAGS) $(LDLIBS_ALL)

unit-bins: $(UNIT_BINS) $(TOOL_BINS)

deps:
	bash scripts/install-deps.sh

# The README's test command. Installs what is missing, builds both
# variants, then runs every suite; the last line is the total.
test: deps
	$(MAKE) all asan unit-bins vg-bins fuzz-bins
	bash tests/run-suites.sh

unit: all asan unit-bins
	bash tests/run-suites.sh unit

# The same unit tests without sanitizers, for valgrind (they do not mix).
VG_UNIT_BINS := $(patsubst tests/unit/%.c,build/rel/tests/unit/%,$(UNIT_SRCS))
build/rel/tests/unit/%: build/rel/tests/unit/%.o $(LIB_REL)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS_ALL)
.PRECIOUS: build/rel/tests/unit/%.o

vg-bins: $(VG_UNIT_BINS)

valgrind: all vg-bins
	bash tests/valgrind.sh

# The timing-sensitive tests N times, with per-case pass/fail/skip counts
# and the flaky ones named (scripts/test-repeat.sh).
N ?= 5
test-repeat: all asan unit-bins
	bash scripts/test-repeat.sh $(N)

SRC_ALL = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
fmt:
	clang-format -i $(SRC_ALL)
fmt-check:
	@out=$$(for f in $(SRC_ALL); do clang-format --dry-run -Werror $$f 2>&1 >/dev/null || echo $$f; done); \
	if [ -n "$$out" ]; then echo "not clang-formatted (run make fmt):"; echo "$$out"; exit 1; fi

lint:
	bash scripts/lint.sh

check: fmt-check lint test

bench: all
	bash scripts/bench.sh

demo: deps
	$(MAKE) all
	bash scripts/demo.sh

# the reference page's storage cluster on the test cluster's real Ceph (SB_CEPH=1)
demo-ceph: deps
	$(MAKE) all
	SB_DEMO=ceph bash scripts/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build bin

# $(info) prints entries as they are (quotes, parentheses and all), without a shell.
help:
	$(info storagebench $(VERSION) make targets:)
	$(info $()  all        build the binaries into bin/ (default))
	$(info $()  test       install missing packages, build, run every test suite)
	$(info $()  unit       run only the unit tests (sanitizer build))
	$(info $()  check      format check, lint, then test)
	$(info $()  lint       clang-tidy, cppcheck and the banned-function grep)
	$(info $()  fmt        reformat the C sources with clang-format)
	$(info $()  valgrind   run the unit tests and the runner under valgrind)
	$(info $()  test-repeat  the timing-sensitive tests N times (N=5), flaky cases counted)
	$(info $()  bench      our runner against fio on the same jobs, alternating; the client's figures)
	$(info $()  demo       the end-to-end demo on the test cluster)
	$(info $()  demo-ceph  the storage-cluster profile on the test cluster's Ceph (ssd, bulk, cephfs))
	$(info $()  install    install the binaries (PREFIX=$(PREFIX), DESTDIR=))
	$(info $()  clean      remove build/ and bin/)
	$(foreach h,$(EXTRA_HELP),$(info $()  $(h)))
	@:

-include $(shell find build -name '*.d' 2>/dev/null)
