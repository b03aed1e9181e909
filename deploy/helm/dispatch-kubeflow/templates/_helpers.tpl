{{/*
Names and labels shared by every template. With the release named dispatch-kubeflow (or a
fullnameOverride of it), every object has the name deploy/kubernetes gives it.
*/}}

{{- define "dispatch-kubeflow.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "dispatch-kubeflow.fullname" -}}
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

{{/* Where Start creates TrainJobs (the configuration's namespace): where the Roles are. */}}
{{- define "dispatch-kubeflow.jobsNamespace" -}}
{{- default .Release.Namespace .Values.namespace }}
{{- end }}

{{/* The task queue: the value, or one per configuration namespace (two releases never share one by default). */}}
{{- define "dispatch-kubeflow.taskQueue" -}}
{{- default (printf "dispatch-kubeflow-%s" (include "dispatch-kubeflow.jobsNamespace" .)) .Values.temporal.taskQueue }}
{{- end }}

{{/* The worker deployment's name in Temporal (versioning): the value, or one per release and namespace. */}}
{{- define "dispatch-kubeflow.deploymentName" -}}
{{- default (printf "%s-%s" (include "dispatch-kubeflow.fullname" .) (include "dispatch-kubeflow.jobsNamespace" .)) .Values.versioning.deploymentName }}
{{- end }}

{{/* A build's label on its Deployment, selector and Pods (versioning); nothing without builds. */}}
{{- define "dispatch-kubeflow.buildLabel" -}}
{{- with .Build.id }}dispatch-kubeflow/build: {{ . | quote }}{{ end }}
{{- end }}

{{/* The labels that select the worker's Pods. */}}
{{- define "dispatch-kubeflow.selectorLabels" -}}
app.kubernetes.io/name: {{ include "dispatch-kubeflow.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: worker
{{- end }}

{{- define "dispatch-kubeflow.labels" -}}
{{ include "dispatch-kubeflow.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* commonAnnotations, as an `annotations:` block (nothing when there are none), indented by the caller. */}}
{{- define "dispatch-kubeflow.annotations" -}}
{{- with .Values.commonAnnotations -}}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
A Pod's securityContext: podSecurityContext, less the user, group and fsGroup with openshift on,
which OpenShift's restricted SCC assigns from the namespace's range (a fixed one outside it is refused).
*/}}
{{- define "dispatch-kubeflow.podSecurityContext" -}}
{{- $context := deepCopy .Values.podSecurityContext }}
{{- if .Values.openshift }}
{{- $context = omit $context "runAsUser" "runAsGroup" "fsGroup" }}
{{- end }}
{{- toYaml $context }}
{{- end }}

{{/* The probes' port, and their scheme with endpointsTls on. */}}
{{- define "dispatch-kubeflow.healthGet" -}}
port: health
{{- if .Values.endpointsTls.enabled }}
scheme: HTTPS
{{- end }}
{{- end }}

{{/* Where the endpoints' certificate Secret is mounted (endpointsTls). */}}
{{- define "dispatch-kubeflow.endpointsTlsDir" -}}
/etc/dispatch-kubeflow/endpoints-tls
{{- end }}

{{/* The ServiceAccount every binding names. */}}
{{- define "dispatch-kubeflow.subject" -}}
- kind: ServiceAccount
  name: {{ include "dispatch-kubeflow.fullname" . }}
  namespace: {{ .Release.Namespace }}
{{- end }}

{{/* The mode, refused unless plain or kueue (values.schema.json says the same to helm lint). */}}
{{- define "dispatch-kubeflow.kueueMode" -}}
{{- if not (has .Values.mode (list "plain" "kueue")) }}
{{- fail (printf "mode must be plain or kueue, not %q" .Values.mode) }}
{{- end }}
{{- if eq .Values.mode "kueue" }}true{{ end }}
{{- end }}

{{/*
MultiKueue's worker clusters (kueue.multiKueue.clusters, docs/multikueue.md), each
{name, kubeconfigSecret: {name, key}}: nothing without them. Refused outside Kueue mode, as the
configuration refuses kueue.multiKueue there.
*/}}
{{- define "dispatch-kubeflow.workerClusters" -}}
{{- $clusters := dig "multiKueue" "clusters" list (.Values.kueue | default dict) -}}
{{- if and $clusters (not (include "dispatch-kubeflow.kueueMode" .)) }}
{{- fail "kueue.multiKueue needs mode: kueue" }}
{{- end -}}
{{- if $clusters }}{{ toYaml $clusters }}{{ end -}}
{{- end }}

{{/* Where the worker clusters' kubeconfig files are mounted, one file <name>.kubeconfig each. */}}
{{- define "dispatch-kubeflow.workerClustersDir" -}}
/etc/dispatch-kubeflow/clusters
{{- end }}

{{/*
The configuration's kueue: the values, with each worker cluster's kubeconfigSecret replaced by the
path its file is mounted at (the volume `worker-clusters` of _worker-deployment.tpl).
*/}}
{{- define "dispatch-kubeflow.kueueConfig" -}}
{{- $kueue := omit .Values.kueue "multiKueue" -}}
{{- with include "dispatch-kubeflow.workerClusters" . | fromYamlArray }}
{{- $dir := include "dispatch-kubeflow.workerClustersDir" $ -}}
{{- $clusters := list -}}
{{- range . }}
{{- $clusters = append $clusters (dict "name" .name "kubeconfig" (printf "%s/%s.kubeconfig" $dir .name)) -}}
{{- end }}
{{- $_ := set $kueue "multiKueue" (dict "clusters" $clusters) -}}
{{- end }}
{{- toYaml $kueue }}
{{- end }}

{{/* The worker's configuration file (docs/contract.md §5). */}}
{{- define "dispatch-kubeflow.config" -}}
namespace: {{ include "dispatch-kubeflow.jobsNamespace" . }}
mode: {{ .Values.mode }}
{{- if include "dispatch-kubeflow.kueueMode" . }}
kueue:
  {{- toYaml (include "dispatch-kubeflow.kueueConfig" . | fromYaml) | nindent 2 }}
{{- end }}
{{ toYaml .Values.config }}
temporal:
  taskQueue: {{ include "dispatch-kubeflow.taskQueue" . | quote }}
# Empty: in the cluster, the Pod's service account.
kubeconfig: ''
{{- end }}

{{/* The codec server's labels: the worker's, with its own component (so neither selects the other's Pods). */}}
{{- define "dispatch-kubeflow.codecServerSelectorLabels" -}}
app.kubernetes.io/name: {{ include "dispatch-kubeflow.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: codec-server
{{- end }}

{{- define "dispatch-kubeflow.codecServerLabels" -}}
{{ include "dispatch-kubeflow.labels" . | replace "app.kubernetes.io/component: worker" "app.kubernetes.io/component: codec-server" }}
{{- end }}

{{/* A Go duration ("90s", "1m30s", "1.5h", "500ms") in seconds, as a float: the sum of its parts. */}}
{{- define "dispatch-kubeflow.durationSeconds" -}}
{{- $units := dict "h" 3600.0 "m" 60.0 "s" 1.0 "ms" 0.001 "us" 0.000001 "µs" 0.000001 "ns" 0.000000001 -}}
{{- $total := 0.0 -}}
{{- range regexFindAll "[0-9.]+(ns|us|µs|ms|s|m|h)" . -1 -}}
{{- $unit := regexFind "(ns|us|µs|ms|s|m|h)$" . -}}
{{- $total = addf $total (mulf (float64 (trimSuffix $unit .)) (get $units $unit)) -}}
{{- end -}}
{{- $total -}}
{{- end }}

{{/*
The Pod's termination grace: the value when set; otherwise what covers the worker's drain
(src/core/drain.ts, podTerminationGraceSeconds): the grace (config.timeouts.drain, or the longest
activity, Start's step-9 wait of workload + 2 x call, plus 10 s), 10 s to cancel what is left, and
10 s to exit.
*/}}
{{- define "dispatch-kubeflow.terminationGracePeriodSeconds" -}}
{{- if not (kindIs "invalid" .Values.terminationGracePeriodSeconds) -}}
{{- .Values.terminationGracePeriodSeconds -}}
{{- else -}}
{{- $timeouts := .Values.config.timeouts | default dict -}}
{{- $grace := 0.0 -}}
{{- if $timeouts.drain -}}
{{- $grace = float64 (include "dispatch-kubeflow.durationSeconds" $timeouts.drain) -}}
{{- else -}}
{{- $workload := float64 (include "dispatch-kubeflow.durationSeconds" (default "60s" $timeouts.workload)) -}}
{{- $call := float64 (include "dispatch-kubeflow.durationSeconds" (default "30s" $timeouts.call)) -}}
{{- $grace = addf $workload (mulf 2 $call) 10 -}}
{{- end -}}
{{- addf $grace 20 | ceil | int -}}
{{- end -}}
{{- end }}
