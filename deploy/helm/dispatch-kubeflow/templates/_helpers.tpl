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

{{/* The worker's configuration file (docs/contract.md §5). */}}
{{- define "dispatch-kubeflow.config" -}}
namespace: {{ include "dispatch-kubeflow.jobsNamespace" . }}
mode: {{ .Values.mode }}
{{- if include "dispatch-kubeflow.kueueMode" . }}
kueue:
  {{- toYaml .Values.kueue | nindent 2 }}
{{- end }}
{{ toYaml .Values.config }}
temporal:
  taskQueue: {{ include "dispatch-kubeflow.taskQueue" . | quote }}
# Empty: in the cluster, the Pod's service account.
kubeconfig: ''
{{- end }}
