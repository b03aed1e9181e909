// Package contract holds what the client starts its workflows with that a caller never writes
// itself: the static summaries, Find's visibility queries and the failure messages, each as the
// TypeScript client and worker write them (testdata/contract.json records theirs).
package contract

import (
	"fmt"
	"strings"
)

// StartIDPrefix is what every Start id of one TrainJob begins with, whatever its attempt.
func StartIDPrefix(namespace, name string) string {
	return fmt.Sprintf("start/%s/%s/", namespace, name)
}

// StartSummary is a Start's static summary, as the Temporal UI shows it.
func StartSummary(job string, generation, submission, attempt int64, namespace, name string) string {
	return fmt.Sprintf("Start job %s g=%d s=%d a=%d as TrainJob %s/%s", job, generation, submission, attempt, namespace, name)
}

// OperationSummary is an operation's static summary: "Open TrainJob <ns>/<name> (uid <uid>)".
func OperationSummary(operation, namespace, name, uid string) string {
	return fmt.Sprintf("%s TrainJob %s/%s (uid %s)", operation, namespace, name, uid)
}

// ProbeSummary is the probe's static summary.
func ProbeSummary(namespace string) string { return "Preflight probe of namespace " + namespace }

// FindQueries are the two visibility queries of Find: Starts (of workflowType) of the TrainJob
// that run, and those that failed since `since` (RFC 3339 with milliseconds, UTC; an ErrOutcomeUnknown among them
// keeps the answer InFlight). By workflow id, which every caller sets, not by search attribute,
// which a Start sets only at its first workflow task.
func FindQueries(workflowType, namespace, name, since string) (running, failed string) {
	base := fmt.Sprintf("WorkflowType = '%s' AND WorkflowId STARTS_WITH '%s'", workflowType, StartIDPrefix(namespace, name))
	running = base + " AND ExecutionStatus = 'Running'"
	failed = fmt.Sprintf("%s AND ExecutionStatus = 'Failed' AND CloseTime > '%s'", base, since)
	return running, failed
}

// Message is the worker's message for a failure: the type's summary, the TrainJob when the
// failure names one ("" namespace and name: none), then every reason.
func Message(summary string, ref *[2]string, reasons []string) string {
	head := summary
	if ref != nil {
		head = fmt.Sprintf("%s (TrainJob %s/%s)", head, ref[0], ref[1])
	}
	if len(reasons) == 0 {
		return head
	}
	return head + ": " + strings.Join(reasons, "; ")
}
