# The runner: bin/storagebench-runner. main.c is the entry point; every
# other runner/*.c goes into the shared archive so unit tests can link it.
RUNNER_MAIN := runner/main.c
RUNNER_SRCS += $(filter-out $(RUNNER_MAIN),$(sort $(wildcard runner/*.c runner/*/*.c)))
