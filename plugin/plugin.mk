# The kubectl plugin: bin/kubectl-storagebench (kubectl finds it on PATH as
# `kubectl storagebench`). main.c is the entry point; the other files go
# into the shared archive so the unit tests (tests/unit/plugin/test_plugin_*.c)
# can link them.
PLUGIN_MAIN := plugin/main.c
PLUGIN_SRCS += $(filter-out $(PLUGIN_MAIN),$(sort $(wildcard plugin/*.c)))
