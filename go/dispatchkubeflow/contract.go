package dispatchkubeflow

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/contract"
)

// DefaultTaskQueue is the worker's task queue unless its configuration's temporal.taskQueue says otherwise.
const DefaultTaskQueue = "dispatch-kubeflow"

// ChartTaskQueue is the task queue the Helm chart (and deploy/kubernetes) gives the release that
// acts in namespace, unless its values name one: one queue per release, so that two releases on
// one Temporal namespace never take each other's workflows. Pass it with the namespace:
//
//	dispatchkubeflow.Options{Namespace: "ml-jobs", TaskQueue: dispatchkubeflow.ChartTaskQueue("ml-jobs")}
func ChartTaskQueue(namespace string) string { return DefaultTaskQueue + "-" + namespace }

// The workflow types (docs/contract.md §1, §9): part of every recorded history, never renamed.
const (
	WorkflowStart        = "StartTrainJob"
	WorkflowCapabilities = "TrainJobCapabilities"
	WorkflowProbe        = "ProbeBackend"
	WorkflowOpen         = "OpenTrainJob"
	WorkflowHold         = "HoldTrainJob"
	WorkflowRelease      = "ReleaseTrainJob"
	WorkflowStop         = "StopTrainJob"
	WorkflowWatch        = "WatchTrainJob"
)

// Operation is one of the operations after Start, as it begins its workflow id.
type Operation string

const (
	OpOpen    Operation = "open"
	OpHold    Operation = "hold"
	OpRelease Operation = "release"
	OpStop    Operation = "stop"
	OpWatch   Operation = "watch"
)

// Operations lists every Operation (a new slice each call).
func Operations() []Operation { return []Operation{OpOpen, OpHold, OpRelease, OpStop, OpWatch} }

var operationTypes = map[Operation]string{
	OpOpen: WorkflowOpen, OpHold: WorkflowHold, OpRelease: WorkflowRelease, OpStop: WorkflowStop, OpWatch: WorkflowWatch,
}

var operationNames = map[Operation]string{
	OpOpen: "Open", OpHold: "Hold", OpRelease: "Release", OpStop: "Stop", OpWatch: "Watch",
}

// WorkflowType is the workflow type the operation starts ("OpenTrainJob", ...).
func (o Operation) WorkflowType() string { return operationTypes[o] }

// The search attributes the workflows set (Keyword; the Temporal namespace must have them
// registered), by name: temporal.NewSearchAttributeKeyKeyword(SearchAttributeJobID) is the key.
const (
	SearchAttributeJobID    = "DispatchJobId"
	SearchAttributeTrainJob = "DispatchTrainJob"
	SearchAttributeStep     = "DispatchStep"
	SearchAttributePhase    = "DispatchPhase"
)

var (
	jobIDKey    = temporal.NewSearchAttributeKeyKeyword(SearchAttributeJobID)
	trainJobKey = temporal.NewSearchAttributeKeyKeyword(SearchAttributeTrainJob)
)

// TrainJobName is the TrainJob's (and its runtime copy's) name: dj-<lowercase JobID>-s<submission>.
func TrainJobName(job string, submission int64) string {
	return fmt.Sprintf("dj-%s-s%d", strings.ToLower(job), submission)
}

// AttemptToken is the token a Start of this attempt writes on its objects (docs/contract.md §3):
// Find answers it for a Present TrainJob, so that a caller can tell which attempt made it.
func AttemptToken(namespace, name string, attempt int64) string {
	digest := sha256.Sum256([]byte(fmt.Sprintf("%s/%s/%d", namespace, name, attempt)))
	return fmt.Sprintf("%d-%s", attempt, hex.EncodeToString(digest[:])[:12])
}

// StartWorkflowID is a Start's id: start/<namespace>/<name>/a<attempt>.
func StartWorkflowID(namespace, name string, attempt int64) string {
	return fmt.Sprintf("%sa%d", contract.StartIDPrefix(namespace, name), attempt)
}

// ProbeWorkflowID is the one probe of a namespace, which every worker and caller attaches to.
func ProbeWorkflowID(namespace string) string { return "probe/" + namespace }

// CapabilitiesWorkflowID is one capabilities query's id: capabilities/<namespace>/<unique>.
func CapabilitiesWorkflowID(namespace, unique string) string {
	return fmt.Sprintf("capabilities/%s/%s", namespace, unique)
}

// OperationWorkflowID is an operation's id on one TrainJob: <op>/<namespace>/<name>/<uid>.
func OperationWorkflowID(op Operation, ref TrainJobRef) string {
	return fmt.Sprintf("%s/%s/%s/%s", op, ref.Namespace, ref.Name, ref.UID)
}

// startSummary is a Start's static summary, as the Temporal UI shows it.
func startSummary(request StartRequest, namespace, name string) string {
	return contract.StartSummary(request.Job, request.Generation, request.Submission, request.Attempt, namespace, name)
}

// operationSummary is an operation's static summary: "Open TrainJob <ns>/<name> (uid <uid>)".
func operationSummary(op Operation, ref TrainJobRef) string {
	return contract.OperationSummary(operationNames[op], ref.Namespace, ref.Name, ref.UID)
}

// startSearchAttributes are the search attributes a Start is started with.
func startSearchAttributes(request StartRequest, name string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		jobIDKey.ValueSet(request.Job),
		trainJobKey.ValueSet(name),
	)
}

// operationSearchAttributes are the search attributes an operation is started with.
func operationSearchAttributes(ref TrainJobRef) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(trainJobKey.ValueSet(ref.Name))
}
