# The controller: bin/storagebench-controller. main.c is the entry point;
# the rest goes into the shared archive so unit tests can link it.
CONTROLLER_MAIN := controller/main.c
CONTROLLER_SRCS += $(filter-out $(CONTROLLER_MAIN),$(sort $(wildcard controller/*.c)))
