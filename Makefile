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

WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wno-missing-field-initializers \
	-Wno-format-truncation
# Include paths by layer: code in lib/ sees only lib/ (an include of
# runner/, controller/ or plugin/ from lib/ does not compile); the binaries'
# code and the tests see lib/ and the top directory. src_inc picks by path.
LIB_INC := -Ilib
APP_INC := -Ilib -I.
src_inc = $(if $(filter lib/%,$(1)),$(LIB_INC),$(APP_INC))
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -DSB_VERSION='"$(VERSION)"' $(WARN) $(PKG_CFLAGS)
REL_CFLAGS := $(BASE_CFLAGS) -O2 -g $(CFLAGS)
ASAN_CFLAGS := $(BASE_CFLAGS) -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined $(CFLAGS)
# Every system library (test programs, which link every layer); a binary
# links only its layers' (layer_libs below).
LDLIBS_ALL = $(LDLIBS_TESTS)
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

# ---- Layers and the link rule (docs/architecture.md "Layers") ----
# Each layer is one archive, build/<variant>/libsb-<layer>.a. LAYER_USES_x
# are the layers x may call, highest first (its link order); a binary links
# its own layer's archive then those, each scanned once (no --start-group),
# so a call from a lower layer into a higher one is an undefined symbol.
# `make layer-check` links every archive whole against only what it may
# use, so the rule holds for code no binary pulls in too.
# LAYER_PKGS_x / LAYER_LIBS_x: the system libraries x's own code calls.
LAYERS := core kube report fiojob runner controller plugin
LAYER_USES_core :=
LAYER_USES_kube := core
LAYER_USES_report := core
LAYER_USES_fiojob := core
LAYER_USES_runner := report fiojob kube core
LAYER_USES_controller := report fiojob kube core
LAYER_USES_plugin := report kube core
LAYER_PKGS_core := jansson openssl
LAYER_LIBS_core := -lm
LAYER_PKGS_kube := jansson yaml-0.1 libcurl openssl zlib
LAYER_LIBS_kube := -lpthread
LAYER_PKGS_report := jansson
LAYER_LIBS_report := -lm
LAYER_PKGS_fiojob := yaml-0.1
LAYER_PKGS_runner := liburing jansson libcurl openssl
LAYER_LIBS_runner := -lpthread -lm
LAYER_PKGS_controller := libmicrohttpd jansson openssl
LAYER_LIBS_controller := -lpthread
LAYER_PKGS_plugin := jansson
# Tests link every layer, highest first.
TEST_LAYERS := plugin controller runner report fiojob kube core

# $(call layer_ar,variant,layer): the archive
layer_ar = build/$(1)/libsb-$(2).a
# $(call layer_link,variant,layer): the layer's archive and those it uses, in link order
layer_link = $(foreach l,$(2) $(LAYER_USES_$(2)),$(call layer_ar,$(1),$(l)))
# $(call layer_all,variant): every archive in link order (tests)
layer_all = $(foreach l,$(TEST_LAYERS),$(call layer_ar,$(1),$(l)))
# $(call layer_libs,layer...): the system libraries of those layers and what they use
layer_closure = $(sort $(foreach x,$(1),$(x) $(LAYER_USES_$(x))))
layer_pkgs = $(sort $(foreach l,$(call layer_closure,$(1)),$(LAYER_PKGS_$(l))))
layer_libs = $(shell pkg-config --libs $(call layer_pkgs,$(1))) \
	$(sort $(foreach l,$(call layer_closure,$(1)),$(LAYER_LIBS_$(l))))

# The archives of every variant (rel, asan; fuzz and arm64 in their fragments).
define layer_ar_rule
$(call layer_ar,$(1),$(2)): $$(call obj,$(1),$$(LAYER_SRCS_$(2)))
	@mkdir -p $$(@D)
	@echo "  AR      $$@"
	@rm -f $$@ && $(3) rcs $$@ $$^
endef
FORCE:
.PHONY: FORCE all test check lint circles layout contract-check funclen fmt fmt-check bench demo demo-ceph install clean help deps valgrind unit vg-bins unit-bins asan test-repeat
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

ALL_CORE_SRCS := $(LIB_SRCS) $(RUNNER_SRCS) $(CONTROLLER_SRCS) $(PLUGIN_SRCS)

LAYER_SRCS_core := $(LIB_CORE_SRCS)
LAYER_SRCS_kube := $(LIB_KUBE_SRCS)
LAYER_SRCS_report := $(LIB_REPORT_SRCS)
LAYER_SRCS_fiojob := $(LIB_FIOJOB_SRCS)
LAYER_SRCS_runner := $(RUNNER_SRCS)
LAYER_SRCS_controller := $(CONTROLLER_SRCS)
LAYER_SRCS_plugin := $(PLUGIN_SRCS)

$(foreach v,rel asan,$(foreach l,$(LAYERS),$(eval $(call layer_ar_rule,$(v),$(l),ar))))
# Every archive of a variant, in link order (the tests link these).
LIB_REL := $(call layer_all,rel)
LIB_ASAN := $(call layer_all,asan)
LDLIBS_TESTS := $(call layer_libs,$(LAYERS))

-include fuzz/fuzz.mk
-include tests/arm64/arm64.mk

build/rel/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(REL_CFLAGS) $(call src_inc,$<) -MMD -MP -c -o $@ $<
build/asan/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC asan $<"
	@$(CC) $(ASAN_CFLAGS) $(call src_inc,$<) -MMD -MP -c -o $@ $<

build/asan/bin/storagebench-runner: build/asan/$(RUNNER_MAIN:.c=.o) $(call layer_link,asan,runner)
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(call layer_libs,runner)

# ---- The shipped binaries: linked statically ----
# bin/storagebench-runner, bin/storagebench-controller and
# bin/kubectl-storagebench (and the first two for arm64, build/arm64rel/bin/,
# for the image) link every library whole into the program (-static-pie: no
# shared library, no dynamic loader, so the image needs neither): libcurl
# and libmicrohttpd built from Debian's source packages with only what the
# binaries use (scripts/get-minlibs.sh, cached outside the checkout), not
# Debian's builds and the libraries they pull in (docs/benchmarks.md "The
# libraries' floor"), and Debian's static OpenSSL, nghttp2, zlib, jansson,
# libyaml and liburing (the -dev packages; for arm64 their arm64 packages,
# unpacked by get-minlibs.sh --arch=arm64); glibc too (1.3 MiB less resident
# than libc.so, libm.so and ld.so mapped whole, same section; glibc warns
# that getaddrinfo and dlopen would load its shared NSS modules: only for an
# nsswitch.conf naming modules other than files and dns, which are built
# in). On amd64 relative relocations packed (DT_RELR, glibc 2.36: a PIE
# still, without 480 KiB of relocation records read at every start). The
# ASan builds keep the shared libraries.
# build/minlibs-<arch>.flags holds the -L flags that find the archives,
# rewritten only when they change: the script (well under a second once
# cached) runs on every make. A rebuilt archive or a -dev package's upgrade
# relinks (the archives are prerequisites).
# STATIC_ORDER: the layers' pkg-config names in link order; STATIC_AR_x
# the archives of x (-l: names are searched on the -L path, the minimal
# libraries named by path so that Debian's libcurl.a is never picked).
STATIC_ORDER := libcurl libmicrohttpd openssl zlib jansson yaml-0.1 liburing
STATIC_AR_libcurl = $(MINLIBS_DIR_$(1))/lib/libcurl.a -l:libnghttp2.a
STATIC_AR_libmicrohttpd = $(MINLIBS_DIR_$(1))/lib/libmicrohttpd.a
STATIC_AR_openssl := -l:libssl.a -l:libcrypto.a
STATIC_AR_zlib := -l:libz.a
STATIC_AR_jansson := -l:libjansson.a
STATIC_AR_yaml-0.1 := -l:libyaml.a
STATIC_AR_liburing := -l:liburing.a
$(foreach p,$(call layer_pkgs,$(LAYERS)),$(if $(filter $(p),$(STATIC_ORDER)),,\
	$(error $(p): a library of the layers with no static archive named (Makefile STATIC_ORDER))))
# $(call static_libs,arch,layer): the layer's libraries as static archives, then -lpthread -lm
static_libs = $(foreach p,$(STATIC_ORDER),$(if $(filter $(p),$(call layer_pkgs,$(2))),$(call STATIC_AR_$(p),$(1)))) \
	$(sort $(foreach l,$(call layer_closure,$(2)),$(LAYER_LIBS_$(l))))
MINLIBS_DIR_amd64 := $(shell bash scripts/get-minlibs.sh --print-dir 2>/dev/null)
MINLIBS_DIR_arm64 := $(shell bash scripts/get-minlibs.sh --arch=arm64 --print-dir 2>/dev/null)
# what relinks a binary: the minimal libraries and the -dev packages' archives
STATIC_DEPS_amd64 := $(wildcard $(addprefix $(MINLIBS_DIR_amd64)/lib/,libcurl.a libmicrohttpd.a) \
	$(addprefix $(shell pkg-config --variable=libdir openssl 2>/dev/null)/,libssl.a libcrypto.a \
		libnghttp2.a libz.a libjansson.a libyaml.a liburing.a))
STATIC_DEPS_arm64 := $(wildcard $(addprefix $(MINLIBS_DIR_arm64)/lib/,libcurl.a libmicrohttpd.a) \
	$(MINLIBS_DIR_arm64)/sysroot/.versions)
.PRECIOUS: build/minlibs-%.flags build/minlibs-%.cflags
build/minlibs-%.flags: FORCE
	@mkdir -p $(@D)
	@bash scripts/get-minlibs.sh --arch=$* --quiet --print-libs >$@.new || { rm -f $@.new; exit 1; }
	@cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@
build/minlibs-%.cflags: FORCE
	@mkdir -p $(@D)
	@bash scripts/get-minlibs.sh --arch=$* --quiet --print-cflags >$@.new || { rm -f $@.new; exit 1; }
	@cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@
# packed relative relocations: amd64 (aarch64's binutils 2.40 ignores the option)
STATIC_LDFLAGS_amd64 := -Wl,-z,pack-relative-relocs
# $(call static_bin,OUT,CC,VARIANT,ARCH,LAYER,MAIN): the rule of one static binary
define static_bin
$(1): $(call obj,$(3),$(6)) $(call layer_link,$(3),$(5)) build/minlibs-$(4).flags $$(STATIC_DEPS_$(4))
	@mkdir -p $$(@D)
	$(2) -static-pie -o $$@ $(call obj,$(3),$(6)) $(call layer_link,$(3),$(5)) \
		$$(LDFLAGS) -Wl,--gc-sections $$(STATIC_LDFLAGS_$(4)) \
		$$$$(cat build/minlibs-$(4).flags) $(call static_libs,$(4),$(5))
endef
$(eval $(call static_bin,bin/storagebench-runner,$(CC),rel,amd64,runner,$(RUNNER_MAIN)))

ifneq ($(CONTROLLER_MAIN),)
BINS += bin/storagebench-controller
$(eval $(call static_bin,bin/storagebench-controller,$(CC),rel,amd64,controller,$(CONTROLLER_MAIN)))
build/asan/bin/storagebench-controller: build/asan/$(CONTROLLER_MAIN:.c=.o) $(call layer_link,asan,controller)
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(call layer_libs,controller)
endif

# ---- The image (scripts/build-image.sh, docs/testing.md "The image") ----
# The same two binaries for arm64: the product's sources compiled by
# Debian's cross compiler as bin/ is (-O2 -g, no sanitizer; the arm64 suite's
# build/arm64/ objects carry UBSan) against the arm64 headers and archives
# of scripts/get-minlibs.sh --arch=arm64, linked statically the same way.
ARM64REL_CFLAGS := -std=c11 -D_GNU_SOURCE -DSB_VERSION='"$(VERSION)"' $(WARN) -O2 -g
build/arm64rel/%.o: %.c build/minlibs-arm64.cflags
	@mkdir -p $(@D)
	@echo "  CC arm64 $<"
	@$(ARM64_CC) $(ARM64REL_CFLAGS) $$(cat build/minlibs-arm64.cflags) $(call src_inc,$<) -MMD -MP -c -o $@ $<
$(foreach l,$(LAYERS),$(eval $(call layer_ar_rule,arm64rel,$(l),aarch64-linux-gnu-ar)))
ARM64_IMAGE_BINS := build/arm64rel/bin/storagebench-runner build/arm64rel/bin/storagebench-controller
$(eval $(call static_bin,build/arm64rel/bin/storagebench-runner,$(ARM64_CC),arm64rel,arm64,runner,$(RUNNER_MAIN)))
$(eval $(call static_bin,build/arm64rel/bin/storagebench-controller,$(ARM64_CC),arm64rel,arm64,controller,$(CONTROLLER_MAIN)))
# make image: the OCI image index of both platforms from the four binaries,
# a CA bundle and the zone files (build/image/storagebench-$(VERSION).oci.tar)
# (image-bins-<arch>: one platform's binaries, the Dockerfile's build stage).
.PHONY: image image-bins image-bins-amd64 image-bins-arm64
image-bins-amd64: bin/storagebench-runner bin/storagebench-controller
image-bins-arm64: $(ARM64_IMAGE_BINS)
image-bins: image-bins-amd64 image-bins-arm64
image: image-bins
	bash scripts/build-image.sh
img_help = $(subst $(img_space),$(img_nbsp),$(1))
img_nbsp := $(shell printf '\302\240')
img_space := $(subst ,, )
EXTRA_HELP += $(call img_help,image           the container image (amd64 + arm64, static binaries, no shell) in build/image/*.oci.tar)
ifneq ($(PLUGIN_MAIN),)
BINS += bin/kubectl-storagebench
# static as well: one file that runs on any Linux, as kubectl plugins are shipped
$(eval $(call static_bin,bin/kubectl-storagebench,$(CC),rel,amd64,plugin,$(PLUGIN_MAIN)))
build/asan/bin/kubectl-storagebench: build/asan/$(PLUGIN_MAIN:.c=.o) $(call layer_link,asan,plugin)
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(call layer_libs,plugin)
endif

BINS := bin/storagebench-runner $(BINS)
ASAN_BINS := $(patsubst bin/%,build/asan/bin/%,$(BINS))

all: $(BINS)
asan: $(ASAN_BINS)

# Unit tests: every tests/unit/<layer>/test_*.c is its own program, built
# with the sanitizers, linked against every layer's archive but the mains.
UNIT_SRCS := $(sort $(wildcard tests/unit/*/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,build/asan/tests/unit/%,$(UNIT_SRCS))
build/asan/tests/unit/%: build/asan/tests/unit/%.o $(LIB_ASAN)
	@mkdir -p $(@D)
	$(CC) $(ASAN_LDFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS_TESTS)
.PRECIOUS: build/asan/tests/unit/%.o
# Small helper programs the tests run (tests/tools/*.c), built plain.
TOOL_BINS := $(patsubst tests/tools/%.c,build/tests/tools/%,$(wildcard tests/tools/*.c))
build/tests/tools/%: tests/tools/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(REL_CFLAGS) $(APP_INC) -o $@ $<
# stats-eval calls lib/stats/stats.c (the reference check of tests/reports)
build/tests/tools/stats-eval: tests/tools/stats-eval.c $(call layer_ar,rel,core)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(REL_CFLAGS) $(APP_INC) -o $@ $< $(call layer_ar,rel,core) $(LDFLAGS) $(call layer_libs,core)

unit-bins: $(UNIT_BINS) $(TOOL_BINS)

deps:
	bash scripts/install-deps.sh

# The README's test command. Installs what is missing, builds both
# variants (make -jN), then runs every suite; the last line is the total.
# The Kubernetes build and the image's arm64 libraries start in the background first
# (tests/run-suites.sh --build, tests/prereq.sh; docs/testing.md). No
# $(MAKE) on the line: make -n would run it (and with it every suite).
test: deps
	bash tests/run-suites.sh --build

unit: all asan unit-bins
	bash tests/run-suites.sh unit

# The same unit tests without sanitizers, for valgrind (they do not mix).
VG_UNIT_BINS := $(patsubst tests/unit/%.c,build/rel/tests/unit/%,$(UNIT_SRCS))
build/rel/tests/unit/%: build/rel/tests/unit/%.o $(LIB_REL)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(LDLIBS_TESTS)
.PRECIOUS: build/rel/tests/unit/%.o

# valgrind's memcheck replaces malloc only in shared libraries (in the
# static bin/storagebench-runner it sees no allocation and reports glibc's
# own code): the runner it checks (tests/valgrind.sh) is the same objects
# linked against the shared libraries.
VG_RUNNER := build/rel/bin/storagebench-runner
$(VG_RUNNER): build/rel/$(RUNNER_MAIN:.c=.o) $(call layer_link,rel,runner)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(LDFLAGS) $(call layer_libs,runner)

vg-bins: $(VG_UNIT_BINS) $(VG_RUNNER)

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

lint: layer-check contract-check circles layout
	bash scripts/lint.sh

# No circle between source files (scripts/circles.py): the graph of the
# compiler's dependency files (build/rel/**/*.d: a file compiled with x.h
# depends on x.c) and of the objects' symbols (nm: a file that uses a
# function or global another file defines depends on it); each strongly
# connected component of more than one file is named with its files and the
# symbols or includes that tie each arrow. The circles being fixed by their
# owners are listed in scripts/circles.allow, exactly (a listed circle that
# is gone is an error too). tests/layers/test_circles.sh plants circles.
# The tree says where things are (scripts/layout.py): every folder of lib/,
# runner/, controller/ and plugin/ names its one concern (a one-line
# README.md, or a main header named after the folder whose first comment
# does), and every include guard names its header's path
# (lib/report/dist.h: SB_LIB_REPORT_DIST_H). What is being fixed is listed
# in scripts/layout.allow. tests/layers/test_layout.sh plants both faults.
.PHONY: layout
layout:
	@/usr/bin/python3 scripts/layout.py

.PHONY: circles
circles: $(foreach l,$(LAYERS),$(call layer_ar,rel,$(l))) \
		$(call obj,rel,$(RUNNER_MAIN) $(CONTROLLER_MAIN) $(PLUGIN_MAIN))
	@/usr/bin/python3 scripts/circles.py

# The binaries' contracts (lib/core/labels.h: labels, env names, log markers,
# result keys...) spelled out only in their header: a string literal
# equal to one of them anywhere else in lib/ controller/ runner/ plugin/
# fails (tests/layers/test_contracts.sh plants one).
.PHONY: contract-check
contract-check:
	@python3 scripts/contract-check.py

# No product function over 120 lines, brace to brace (scripts/funclen.py; lint runs it too).
funclen:
	/usr/bin/python3 scripts/funclen.py

# The layers' rule, checked (docs/architecture.md "Layers"):
#  - each layer's archive linked whole (every object, pulled in by a binary
#    or not) with a stub main against only the layers it may use and its own
#    system libraries: a call in the wrong direction, or a library the layer
#    does not declare, is an undefined reference;
#  - no binary's code includes another binary's directory (lib/ cannot:
#    it compiles with -Ilib only).
# LAYER_PLANT_<layer>=obj.o adds an object to a layer and LAYER_CHECK_DIR
# moves the output (tests/layers/test_layers.sh plants a wrong call).
LAYER_CHECK_DIR ?= build/rel/layer-check
.PHONY: layer-check
layer-check: build/rel/tests/layers/main_stub.o $(foreach l,$(LAYERS),$(call layer_ar,rel,$(l)))
	@mkdir -p $(LAYER_CHECK_DIR)
	@set -e; $(foreach l,$(LAYERS),echo "  LAYER   $(l) uses $(or $(LAYER_USES_$(l)),nothing)"; \
		$(CC) -o $(LAYER_CHECK_DIR)/$(l) $< -Wl,--whole-archive $(call layer_ar,rel,$(l)) \
		$(LAYER_PLANT_$(l)) -Wl,--no-whole-archive \
		$(foreach u,$(LAYER_USES_$(l)),$(call layer_ar,rel,$(u))) $(LDFLAGS) $(call layer_libs,$(l));)
	@inc='^[[:space:]]*#[[:space:]]*include[[:space:]]*"'; \
	out=$$(grep -nE "$$inc(\.\./|runner/|controller/|plugin/)" $$(git ls-files 'lib/*.[ch]'); \
		grep -nE "$$inc(\.\./|controller/|plugin/)" $$(git ls-files 'runner/*.[ch]'); \
		grep -nE "$$inc(\.\./|runner/|plugin/)" $$(git ls-files 'controller/*.[ch]'); \
		grep -nE "$$inc(\.\./|runner/|controller/)" $$(git ls-files 'plugin/*.[ch]')); \
	if [ -n "$$out" ]; then \
		echo "layer-check: an include across the layers:"; echo "$$out"; exit 1; fi
	@echo "layer-check: every layer links against only what it may use"
# tests/layers/test_layers.sh: a file of tests/layers/ compiled as if it
# were in lib/ (lib/'s include path, src_inc).
build/layer-probe/%.o: tests/layers/%.c
	@mkdir -p $(@D)
	$(CC) $(REL_CFLAGS) $(call src_inc,lib/$(notdir $<)) -c -o $@ $<

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
	$(info $()  lint       the layers' link and include check, the circle and layout checks, commit subjects, clang-tidy, cppcheck, the banned-function grep, funclen, contract-check)
	$(info $()  circles    no circle between source files (scripts/circles.py, scripts/circles.allow))
	$(info $()  layout     every folder names its concern, every include guard its path (scripts/layout.py))
	$(info $()  funclen    no product function over 120 lines (scripts/funclen.py))
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
