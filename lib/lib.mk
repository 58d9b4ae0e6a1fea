# Code shared by the controller, the runner and the plugin, in layers
# (docs/architecture.md "Layers"; the Makefile makes one archive of each):
#  core    lib/core/ (logging, units, names, the contract), lib/time/,
#          lib/stats/ (statistics, histograms, aggregation), lib/result/
#          (the result document, its signature, ownership)
#  kube    lib/kube/: the Kubernetes client
#  report  lib/report/ and lib/report/svg/: rendering for people
#  fiojob  lib/fiojob/ (the fio job language) and lib/s3opts/ (warp's flags)
# kube, report and fiojob use only core; core uses none.
LIB_KUBE_SRCS := $(sort $(wildcard lib/kube/*.c))
LIB_REPORT_SRCS := $(sort $(wildcard lib/report/*.c lib/report/svg/*.c))
LIB_FIOJOB_SRCS := $(sort $(wildcard lib/fiojob/*.c lib/s3opts/*.c))
LIB_CORE_SRCS := $(sort $(wildcard lib/core/*.c lib/time/*.c lib/stats/*.c lib/result/*.c))
LIB_SRCS += $(LIB_CORE_SRCS) $(LIB_KUBE_SRCS) $(LIB_REPORT_SRCS) $(LIB_FIOJOB_SRCS)
