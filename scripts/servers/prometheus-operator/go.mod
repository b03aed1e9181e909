// Consumer module that only pins prometheus-operator: nothing is built from it. Its module zip
// carries the monitoring.coreos.com CRDs (example/prometheus-operator-crd/), which the Helm chart's
// test installs to check its ServiceMonitor and PrometheusRule (dev/harness/crd-sources.ts).
module dispatch-kubeflow/servers/prometheus-operator

go 1.26.0

require github.com/prometheus-operator/prometheus-operator v0.85.0
