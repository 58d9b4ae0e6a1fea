# Code shared by the controller, the runner and the plugin, in layers
# (docs/architecture.md "Layers"; the Makefile makes one archive of each):
#  core    lib/*.c: logging, units, statistics, names, aggregation...
#  kube    lib/kube/: the Kubernetes client
#  report  lib/report*.c, lib/report_svg/, and what renders through them
#          (compare.c, validity.c)
#  fiojob  lib/fiojob/: the fio job language and the S3 options
# kube, report and fiojob use only core; core uses none.
LIB_KUBE_SRCS := $(sort $(wildcard lib/kube/*.c))
LIB_REPORT_SRCS := $(sort $(wildcard lib/report*.c lib/report/*.c lib/report_svg/*.c) \
	lib/compare.c lib/validity.c)
LIB_FIOJOB_SRCS := $(sort $(wildcard lib/fiojob/*.c))
LIB_CORE_SRCS := $(filter-out $(LIB_REPORT_SRCS),$(sort $(wildcard lib/*.c)))
LIB_SRCS += $(LIB_CORE_SRCS) $(LIB_KUBE_SRCS) $(LIB_REPORT_SRCS) $(LIB_FIOJOB_SRCS)
