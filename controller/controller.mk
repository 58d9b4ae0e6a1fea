# The controller: bin/storagebench-controller. main.c is the entry point;
# the rest goes into the shared archive so unit tests can link it.
CONTROLLER_MAIN := controller/main.c
CONTROLLER_SRCS += $(filter-out $(CONTROLLER_MAIN),$(sort $(wildcard controller/*.c controller/*/*.c)))

# The controller at scale (issue 16, docs/benchmarks.md): N fail-fast + M real
# runs on the running test cluster (SB_PREFIX honoured), RSS, runs/s, API
# requests by verb. BENCH_CONTROLLER_ARGS="--runs 1000 --real 20" (defaults).
.PHONY: bench-controller
EXTRA_HELP += $(call sb_help,bench-controller the controller at scale on the test cluster (docs/benchmarks.md))
bench-controller: all
	bash tests/cluster/in-netns.sh /usr/bin/python3 scripts/bench-controller.py $(BENCH_CONTROLLER_ARGS)
