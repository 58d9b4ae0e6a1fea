# Code shared by the controller, the runner and the plugin.
LIB_SRCS += $(sort $(wildcard lib/*.c lib/kube/*.c lib/report/*.c lib/report_svg/*.c lib/fiojob/*.c))
