{{- /*
The worker's Deployment, one per build with versioning (docs/versioning.md): the workflows, their activities and the preflight (`dispatch-kubeflow worker`), locked
down as deploy/kubernetes/base/deployment.yaml is. The Temporal connection is the standard
TEMPORAL_* variables (docs/deploy.md); secrets come from the Secrets the values name.
*/ -}}
{{- define "dispatch-kubeflow.workerDeployment" -}}
{{- $tls := .Values.temporal.tls -}}
{{- $tlsDir := "/etc/dispatch-kubeflow/temporal-tls" -}}
{{- $endpointsTls := .Values.endpointsTls -}}
{{- $endpointsTlsDir := include "dispatch-kubeflow.endpointsTlsDir" . -}}
{{- $workerClusters := include "dispatch-kubeflow.workerClusters" . | fromYamlArray -}}
{{- if and $endpointsTls.enabled (not $endpointsTls.secretName) }}
{{- fail "endpointsTls.enabled needs endpointsTls.secretName: the Secret holding the certificate and its key" }}
{{- end -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "dispatch-kubeflow.fullname" . }}{{ with .Build.id }}-{{ . }}{{ end }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "dispatch-kubeflow.labels" . | nindent 4 }}
    {{- with include "dispatch-kubeflow.buildLabel" . }}{{ . | nindent 4 }}{{- end }}
  {{- with include "dispatch-kubeflow.annotations" . }}
  {{- . | nindent 2 }}
  {{- end }}
spec:
  replicas: {{ .Build.replicas | default .Values.replicas }}
  selector:
    matchLabels:
      {{- include "dispatch-kubeflow.selectorLabels" . | nindent 6 }}
      {{- with include "dispatch-kubeflow.buildLabel" . }}{{ . | nindent 6 }}{{- end }}
  template:
    metadata:
      labels:
        {{- include "dispatch-kubeflow.labels" . | nindent 8 }}
        {{- with include "dispatch-kubeflow.buildLabel" . }}{{ . | nindent 8 }}{{- end }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # A changed configuration rolls the worker.
        checksum/config: {{ include "dispatch-kubeflow.config" . | sha256sum }}
        {{- if .Values.metrics.podAnnotations }}
        # dispatch's metrics; the Temporal SDK's are scraped through the Service (one port per Pod here).
        prometheus.io/scrape: 'true'
        prometheus.io/port: {{ .Values.metrics.dispatchPort | quote }}
        prometheus.io/path: /metrics
        {{- if $endpointsTls.enabled }}
        prometheus.io/scheme: https
        {{- end }}
        {{- end }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "dispatch-kubeflow.fullname" . }}
      automountServiceAccountToken: true
      # Covers the drain after SIGTERM (docs/deploy.md, "Drain and readiness"): computed from
      # config.timeouts unless the value sets it.
      terminationGracePeriodSeconds: {{ include "dispatch-kubeflow.terminationGracePeriodSeconds" . }}
      {{- with .Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- with include "dispatch-kubeflow.podSecurityContext" . | fromYaml }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: worker
          {{- $image := merge (dict) (.Build.image | default dict) .Values.image }}
          image: "{{ $image.repository }}:{{ default .Chart.AppVersion $image.tag }}"
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          args:
            - worker
            - --config=/etc/dispatch-kubeflow/config.yaml
            - --metrics=0.0.0.0:{{ .Values.metrics.sdkPort }}
            - --dispatch-metrics=0.0.0.0:{{ .Values.metrics.dispatchPort }}
            - --health=0.0.0.0:{{ .Values.health.port }}
            {{- if $endpointsTls.enabled }}
            - --tls-cert={{ $endpointsTlsDir }}/{{ $endpointsTls.certKey }}
            - --tls-key={{ $endpointsTlsDir }}/{{ $endpointsTls.keyKey }}
            {{- end }}
          env:
            {{- with .Build.id }}
            # A build of the release's worker deployment (docs/versioning.md).
            - name: DISPATCH_DEPLOYMENT_NAME
              value: {{ include "dispatch-kubeflow.deploymentName" $ | quote }}
            - name: DISPATCH_BUILD_ID
              value: {{ . | quote }}
            {{- end }}
            - name: NODE_OPTIONS
              value: {{ .Values.nodeOptions | quote }}
            - name: TEMPORAL_ADDRESS
              value: {{ required "temporal.address is required" .Values.temporal.address | quote }}
            - name: TEMPORAL_NAMESPACE
              value: {{ .Values.temporal.namespace | quote }}
            {{- if $tls.enabled }}
            - name: TEMPORAL_TLS
              value: 'true'
            {{- with $tls.serverName }}
            - name: TEMPORAL_TLS_SERVER_NAME
              value: {{ . | quote }}
            {{- end }}
            {{- if $tls.secretName }}
            {{- range $variable, $key := dict "TEMPORAL_TLS_CLIENT_CERT_PATH" $tls.clientCertKey "TEMPORAL_TLS_CLIENT_KEY_PATH" $tls.clientKeyKey "TEMPORAL_TLS_SERVER_CA_CERT_PATH" $tls.serverCAKey }}
            {{- if $key }}
            - name: {{ $variable }}
              value: {{ printf "%s/%s" $tlsDir $key | quote }}
            {{- end }}
            {{- end }}
            {{- end }}
            {{- end }}
            {{- with .Values.temporal.apiKey.secretName }}
            - name: TEMPORAL_API_KEY
              valueFrom:
                secretKeyRef:
                  name: {{ . }}
                  key: {{ $.Values.temporal.apiKey.key }}
            {{- end }}
            {{- with .Values.codec.secretName }}
            - name: DISPATCH_CODEC_KEYS
              valueFrom:
                secretKeyRef:
                  name: {{ . }}
                  key: {{ $.Values.codec.keysKey }}
            - name: DISPATCH_CODEC_KEY_ID
              valueFrom:
                secretKeyRef:
                  name: {{ . }}
                  key: {{ $.Values.codec.keyIdKey }}
                  optional: true
            {{- end }}
            {{- with .Values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- with .Values.extraEnvFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          ports:
            - name: metrics
              containerPort: {{ .Values.metrics.dispatchPort }}
              protocol: TCP
            - name: sdk-metrics
              containerPort: {{ .Values.metrics.sdkPort }}
              protocol: TCP
            - name: health
              containerPort: {{ .Values.health.port }}
              protocol: TCP
          {{- range $probe := list "startupProbe" "livenessProbe" "readinessProbe" }}
          {{- with index $.Values.health $probe }}
          {{ $probe }}:
            {{- toYaml (mergeOverwrite (dict "httpGet" (include "dispatch-kubeflow.healthGet" $ | fromYaml)) .) | nindent 12 }}
          {{- end }}
          {{- end }}
          {{- with .Values.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with .Values.securityContext }}
          securityContext:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            - name: config
              mountPath: /etc/dispatch-kubeflow
              readOnly: true
            {{- if and $tls.enabled $tls.secretName }}
            - name: temporal-tls
              mountPath: {{ $tlsDir }}
              readOnly: true
            {{- end }}
            {{- if $endpointsTls.enabled }}
            - name: endpoints-tls
              mountPath: {{ $endpointsTlsDir }}
              readOnly: true
            {{- end }}
            {{- if $workerClusters }}
            - name: worker-clusters
              mountPath: {{ include "dispatch-kubeflow.workerClustersDir" . }}
              readOnly: true
            {{- end }}
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: config
          configMap:
            name: {{ include "dispatch-kubeflow.fullname" . }}-config
        {{- if and $tls.enabled $tls.secretName }}
        - name: temporal-tls
          secret:
            secretName: {{ $tls.secretName }}
        {{- end }}
        {{- if $endpointsTls.enabled }}
        - name: endpoints-tls
          secret:
            secretName: {{ $endpointsTls.secretName }}
        {{- end }}
        {{- if $workerClusters }}
        # MultiKueue's worker clusters: each one's kubeconfig from its Secret, as <name>.kubeconfig.
        - name: worker-clusters
          projected:
            sources:
              {{- range $workerClusters }}
              - secret:
                  name: {{ .kubeconfigSecret.name }}
                  items:
                    - key: {{ .kubeconfigSecret.key | default "kubeconfig" }}
                      path: {{ .name }}.kubeconfig
              {{- end }}
        {{- end }}
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
