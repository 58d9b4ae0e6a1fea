{{/*
The chart name, truncated to 63 characters (a label value).
*/}}
{{- define "storagebench.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name prefixing every object: the release name when it contains
the chart name, else "<release>-<chart>"; truncated to 63 characters.
*/}}
{{- define "storagebench.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
"<fullname>-<suffix>" within 63 characters: the full name is shortened,
never the suffix. Called as (include "storagebench.suffixed" (list . "controller")).
*/}}
{{- define "storagebench.suffixed" -}}
{{- $ctx := index . 0 }}
{{- $suffix := index . 1 }}
{{- $base := include "storagebench.fullname" $ctx | trunc (int (sub 62 (len $suffix))) | trimSuffix "-" }}
{{- printf "%s-%s" $base $suffix }}
{{- end }}

{{/* The controller's Deployment, ClusterRole, Roles, bindings and Lease. */}}
{{- define "storagebench.controllerName" -}}
{{- include "storagebench.suffixed" (list . "controller") }}
{{- end }}

{{/* The Secret of the result signing master key (and its Role). */}}
{{- define "storagebench.signingSecretName" -}}
{{- include "storagebench.suffixed" (list . "signing-key") }}
{{- end }}

{{/* The Role and RoleBinding for the leader-election Lease. */}}
{{- define "storagebench.leaderElectionName" -}}
{{- include "storagebench.suffixed" (list . "leader-election") }}
{{- end }}

{{/* The metrics Service. */}}
{{- define "storagebench.metricsName" -}}
{{- include "storagebench.suffixed" (list . "metrics") }}
{{- end }}

{{/* The runners' Roles and RoleBindings. */}}
{{- define "storagebench.runnerName" -}}
{{- include "storagebench.suffixed" (list . "runner") }}
{{- end }}

{{/*
Chart name and version, as used by the helm.sh/chart label.
*/}}
{{- define "storagebench.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Selector labels: never change them in an upgrade (a Deployment's selector
is immutable).
*/}}
{{- define "storagebench.selectorLabels" -}}
app.kubernetes.io/name: {{ include "storagebench.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Common labels of every object of the chart.
*/}}
{{- define "storagebench.labels" -}}
helm.sh/chart: {{ include "storagebench.chart" . }}
{{ include "storagebench.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: storagebench
{{- end }}

{{/*
The controller's ServiceAccount name.
*/}}
{{- define "storagebench.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "storagebench.controllerName" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The controller and default runner image: repository:tag, the tag
defaulting to the chart's appVersion.
*/}}
{{- define "storagebench.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag | toString) }}
{{- end }}

{{- define "storagebench.runnerImage" -}}
{{- default (include "storagebench.image" .) .Values.runner.image }}
{{- end }}

{{/*
The namespaces where BenchmarkRuns run (runner ServiceAccount, Role and
RoleBinding in each), one per line: runner.namespaces, else the
watchNamespaces, else the release namespace and "default".
*/}}
{{- define "storagebench.runnerNamespaces" -}}
{{- $ns := .Values.runner.namespaces }}
{{- if not $ns }}
{{- $ns = .Values.watchNamespaces }}
{{- end }}
{{- if not $ns }}
{{- $ns = list .Release.Namespace "default" }}
{{- end }}
{{- range (uniq $ns) }}
{{ . }}
{{- end }}
{{- end }}

{{/*
The controller's rules on the objects of the runs it serves: in a
ClusterRole when watching all namespaces, else in a Role in each watched
namespace. docs/getting-started.md and tests/chart list the same set.
*/}}
{{- define "storagebench.controllerRunRules" -}}
# the runs it serves: read them, write their status
- apiGroups: [storagebench.io]
  resources: [benchmarkruns]
  verbs: [get, list, watch]
- apiGroups: [storagebench.io]
  resources: [benchmarkruns/status]
  verbs: [get, update, patch]
# what a run owns: volumes, runner pods, spec and report ConfigMaps
- apiGroups: [""]
  resources: [persistentvolumeclaims, pods]
  verbs: [get, list, watch, create, delete]
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch, create]
# each run's result signing key: create only (docs/security.md)
- apiGroups: [""]
  resources: [secrets]
  verbs: [create]
# the Secret an object store names: get, to see its consent label
# (storagebench.io/credentials=true) before a runner pod may use its keys;
# never list or watch (docs/security.md)
- apiGroups: [""]
  resources: [secrets]
  verbs: [get]
# spec.lifecycle: a volume's resize (a patch of the claim's requested size)
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [patch]
# spec.lifecycle: a volume's snapshot, watched until ready, then deleted
- apiGroups: [snapshot.storage.k8s.io]
  resources: [volumesnapshots]
  verbs: [get, list, watch, create, delete]
# events on the runs
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
# schedules (docs/schedules.md): read them, write their status, create and
# prune their runs
- apiGroups: [storagebench.io]
  resources: [benchmarkschedules]
  verbs: [get, list, watch]
- apiGroups: [storagebench.io]
  resources: [benchmarkschedules/status]
  verbs: [get, update, patch]
- apiGroups: [storagebench.io]
  resources: [benchmarkruns]
  verbs: [create, delete]
{{- end }}

{{/*
Checks of the values that cannot be expressed otherwise.
*/}}
{{- define "storagebench.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) }}
{{- fail "replicaCount > 1 needs leaderElection.enabled: two replicas without leader election would both act on every run" }}
{{- end }}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) }}
{{- fail "metrics.serviceMonitor.enabled needs metrics.enabled" }}
{{- end }}
{{- if gt (len .Values.watchNamespaces) 16 }}
{{- fail "watchNamespaces: the controller watches at most 16 namespaces (leave it empty to watch all)" }}
{{- end }}
{{- range .Values.watchNamespaces }}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" .) }}
{{- fail (printf "watchNamespaces: '%s' is not a namespace name" .) }}
{{- end }}
{{- end }}
{{- if not (has .Values.runnerPolicy.podSecurity (list "restricted" "baseline" "privileged")) }}
{{- fail (printf "runnerPolicy.podSecurity: '%s' is not restricted, baseline or privileged" .Values.runnerPolicy.podSecurity) }}
{{- end }}
{{- range .Values.runnerPolicy.allowedImages }}
{{- if not (regexMatch `^([*]|([^*@\s,/]+/)*[^*@\s,/:]+/?)$` .) }}
{{- fail (printf "runnerPolicy.allowedImages: '%s' is not a repository (registry/path/, registry/path/name or *; no tag, no digest)" .) }}
{{- end }}
{{- end }}
{{- range .Values.runnerPolicy.allowedServiceAccounts }}
{{- if not (regexMatch "^([*]|[a-z0-9]([-a-z0-9.]*[a-z0-9])?)$" .) }}
{{- fail (printf "runnerPolicy.allowedServiceAccounts: '%s' is not a ServiceAccount name (or *)" .) }}
{{- end }}
{{- end }}
{{- if and .Values.runnerPolicy.admission.enabled (semverCompare "<1.30-0" .Capabilities.KubeVersion.Version) }}
{{- fail (printf "runnerPolicy.admission.enabled: ValidatingAdmissionPolicy needs Kubernetes 1.30 or later; this cluster is %s (the controller enforces the policy anyway)" .Capabilities.KubeVersion.Version) }}
{{- end }}
{{- if not (has .Values.controller.logLevel (list "debug" "info" "warn" "error")) }}
{{- fail (printf "controller.logLevel: '%s' is not debug, info, warn or error" .Values.controller.logLevel) }}
{{- end }}
{{- if not (has .Values.controller.logFormat (list "text" "json")) }}
{{- fail (printf "controller.logFormat: '%s' is not text or json" .Values.controller.logFormat) }}
{{- end }}
{{- end }}
