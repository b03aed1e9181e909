package dispatchkubeflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/contract"
)

// Options configure a Client.
type Options struct {
	// Namespace is the Kubernetes namespace the worker starts its objects in (its configuration's
	// namespace): Start ids and TrainJob names are built with it. Required.
	Namespace string
	// TaskQueue is the worker's task queue; empty: DefaultTaskQueue.
	TaskQueue string
	// TrainJobs reads TrainJobs for Find; Find refuses to run without it.
	TrainJobs TrainJobReader
	// CallBound is the worker's timeouts.call: Find answers InFlight for this long after a Start
	// ended ErrOutcomeUnknown. Zero: DefaultCallBound.
	CallBound time.Duration
}

// Client starts dispatch-kubeflow's workflows on a Temporal client, as the TypeScript client does.
// Dial the Temporal client with Dial (or WithDataConverter) when the worker encrypts payloads.
type Client struct {
	temporal client.Client
	options  Options
}

// New makes a Client on a connected Temporal client. It refuses a nil Temporal client and a
// Namespace that is empty or not a Kubernetes namespace name (ErrInvalid).
func New(temporalClient client.Client, options Options) (*Client, error) {
	if temporalClient == nil {
		return nil, errors.New("dispatchkubeflow: New needs a Temporal client")
	}
	if !namespaceRegexp.MatchString(options.Namespace) || len(options.Namespace) > 63 {
		return nil, &Error{Type: ErrInvalid, Reasons: []string{fmt.Sprintf(
			"Options.Namespace: the worker's Kubernetes namespace is required (DNS-1123 label, at most 63 characters), not %q", options.Namespace)}}
	}
	if options.TaskQueue == "" {
		options.TaskQueue = DefaultTaskQueue
	}
	if options.CallBound <= 0 {
		options.CallBound = DefaultCallBound
	}
	return &Client{temporal: temporalClient, options: options}, nil
}

// TaskQueue is the task queue the client starts workflows on.
func (c *Client) TaskQueue() string { return c.options.TaskQueue }

// Namespace is the Kubernetes namespace of the client's Starts.
func (c *Client) Namespace() string { return c.options.Namespace }

// attaching are the options of a workflow a second call attaches to while it runs (USE_EXISTING),
// and may run again once it has closed (ALLOW_DUPLICATE).
func (c *Client) attaching(id, summary string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                c.options.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:            summary,
	}
}

// startOptions are the options a Start of this request is started with.
func (c *Client) startOptions(request StartRequest) client.StartWorkflowOptions {
	name := TrainJobName(request.Job, request.Submission)
	options := c.attaching(StartWorkflowID(c.options.Namespace, name, request.Attempt), startSummary(request, c.options.Namespace, name))
	options.TypedSearchAttributes = startSearchAttributes(request, name)
	return options
}

// operationOptions are the options an operation on this TrainJob is started with.
func (c *Client) operationOptions(op Operation, ref TrainJobRef) client.StartWorkflowOptions {
	options := c.attaching(OperationWorkflowID(op, ref), operationSummary(op, ref))
	options.TypedSearchAttributes = operationSearchAttributes(ref)
	return options
}

// probeOptions are the options of the namespace's probe.
func (c *Client) probeOptions() client.StartWorkflowOptions {
	return c.attaching(ProbeWorkflowID(c.options.Namespace), contract.ProbeSummary(c.options.Namespace))
}

// capabilitiesOptions are the options of one capabilities query (its own id, default policies).
func (c *Client) capabilitiesOptions(unique string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{ID: CapabilitiesWorkflowID(c.options.Namespace, unique), TaskQueue: c.options.TaskQueue}
}

// SubmitStart starts (or attaches to the running) Start of this request's attempt; the handle
// waits for its StartResult, and cancels it. When a field the workflow id is built from (job,
// generation, submission, attempt) is invalid, nothing is started and the answer is Validate's
// ErrInvalid, naming every problem of the request at once; otherwise the worker judges the rest
// (with the same reasons Validate gives, or a newer worker's wider rules).
func (c *Client) SubmitStart(ctx context.Context, request StartRequest) (Handle[StartResult], error) {
	if err := request.Validate(); identityInvalid(err) {
		return Handle[StartResult]{}, err
	}
	return start[StartResult](ctx, c, c.startOptions(request), WorkflowStart, request)
}

// StartHandle is the handle of an existing Start by its workflow id (StartWorkflowID; a Handle's
// ID), without starting one: the latest run of that id, to wait for or cancel. The id must be a
// Start of this client's namespace.
func (c *Client) StartHandle(ctx context.Context, workflowID string) (Handle[StartResult], error) {
	prefix := "start/" + c.options.Namespace + "/"
	if !strings.HasPrefix(workflowID, prefix) || strings.Count(workflowID, "/") != 3 {
		return Handle[StartResult]{}, &Error{Type: ErrInvalid, Reasons: []string{fmt.Sprintf(
			"workflow id: %q is not a Start of namespace %s (%s<name>/a<attempt>)", workflowID, c.options.Namespace, prefix)}}
	}
	return Handle[StartResult]{temporal: c.temporal, run: c.temporal.GetWorkflow(ctx, workflowID, "")}, nil
}

// Start starts the job's TrainJob and waits for the answer (docs/contract.md §1, §2). A failure
// is an *Error (see FromError); after ErrOutcomeUnknown, see ResolveOutcomeUnknown.
func (c *Client) Start(ctx context.Context, request StartRequest) (StartResult, error) {
	handle, err := c.SubmitStart(ctx, request)
	if err != nil {
		return StartResult{}, err
	}
	return handle.Get(ctx)
}

// SubmitOperation starts (or attaches to the running) Open, Hold, Release or Stop of the TrainJob;
// for Watch, use SubmitWatch.
func (c *Client) SubmitOperation(ctx context.Context, op Operation, ref TrainJobRef) (Handle[TrainJobState], error) {
	if op == OpWatch || op.WorkflowType() == "" {
		return Handle[TrainJobState]{}, fmt.Errorf("dispatchkubeflow: SubmitOperation takes open, hold, release or stop, not %q", op)
	}
	if err := ref.Validate(); err != nil {
		return Handle[TrainJobState]{}, err
	}
	return start[TrainJobState](ctx, c, c.operationOptions(op, ref), op.WorkflowType(), ref)
}

func (c *Client) operate(ctx context.Context, op Operation, ref TrainJobRef) (TrainJobState, error) {
	handle, err := c.SubmitOperation(ctx, op, ref)
	if err != nil {
		return TrainJobState{}, err
	}
	return handle.Get(ctx)
}

// Open lets a started TrainJob run: plain mode, spec.suspend false; Kueue mode, dispatch's gate removed.
func (c *Client) Open(ctx context.Context, ref TrainJobRef) (TrainJobState, error) {
	return c.operate(ctx, OpOpen, ref)
}

// Hold suspends a TrainJob and marks it held; in Kueue mode its Workload is deactivated.
func (c *Client) Hold(ctx context.Context, ref TrainJobRef) (TrainJobState, error) {
	return c.operate(ctx, OpHold, ref)
}

// Release undoes a Hold.
func (c *Client) Release(ctx context.Context, ref TrainJobRef) (TrainJobState, error) {
	return c.operate(ctx, OpRelease, ref)
}

// Stop deletes the TrainJob and everything it owns.
func (c *Client) Stop(ctx context.Context, ref TrainJobRef) (TrainJobState, error) {
	return c.operate(ctx, OpStop, ref)
}

// SubmitWatch starts (or attaches to the running) Watch of the TrainJob: a handle to wait on for
// its Outcome, later or from another process (WatchHandle gives it by ref), or to cancel it.
func (c *Client) SubmitWatch(ctx context.Context, ref TrainJobRef) (Handle[Outcome], error) {
	if err := ref.Validate(); err != nil {
		return Handle[Outcome]{}, err
	}
	return start[Outcome](ctx, c, c.operationOptions(OpWatch, ref), WorkflowWatch, ref)
}

// Watch waits until the TrainJob has completed, failed or gone.
func (c *Client) Watch(ctx context.Context, ref TrainJobRef) (Outcome, error) {
	handle, err := c.SubmitWatch(ctx, ref)
	if err != nil {
		return Outcome{}, err
	}
	return handle.Get(ctx)
}

// WatchHandle is the handle of the Watch of this TrainJob, without starting one: the latest run of
// its workflow id, to wait for or cancel.
func (c *Client) WatchHandle(ctx context.Context, ref TrainJobRef) (Handle[Outcome], error) {
	if err := ref.Validate(); err != nil {
		return Handle[Outcome]{}, err
	}
	return Handle[Outcome]{temporal: c.temporal, run: c.temporal.GetWorkflow(ctx, OperationWorkflowID(OpWatch, ref), "")}, nil
}

// capabilitiesRequest is TrainJobCapabilities' input: of the spec, only what it reads.
type capabilitiesRequest struct {
	Spec struct {
		ProcsPerNode int64       `json:"procsPerNode,omitempty"`
		Extensions   *Extensions `json:"extensions,omitempty"`
	} `json:"spec"`
}

func capabilitiesInput(spec JobSpec) capabilitiesRequest {
	var input capabilitiesRequest
	input.Spec.ProcsPerNode, input.Spec.Extensions = spec.ProcsPerNode, spec.Extensions
	return input
}

// Capabilities asks whether the worker can run this spec's runtime: only its kubeflow/RuntimeRef
// and ProcsPerNode are read, and sent.
func (c *Client) Capabilities(ctx context.Context, spec JobSpec) (Capabilities, error) {
	handle, err := start[Capabilities](ctx, c, c.capabilitiesOptions(uuid.NewString()), WorkflowCapabilities, capabilitiesInput(spec))
	if err != nil {
		return Capabilities{}, err
	}
	return handle.Get(ctx)
}

// Probe starts (or attaches to the running) probe of the namespace and answers its gates.
func (c *Client) Probe(ctx context.Context) (BackendGates, error) {
	handle, err := start[BackendGates](ctx, c, c.probeOptions(), WorkflowProbe)
	if err != nil {
		return BackendGates{}, err
	}
	return handle.Get(ctx)
}

func start[T any](ctx context.Context, c *Client, options client.StartWorkflowOptions, workflowType string, args ...any) (Handle[T], error) {
	run, err := c.temporal.ExecuteWorkflow(ctx, options, workflowType, args...)
	if err != nil {
		return Handle[T]{}, callError(ctx, err)
	}
	return Handle[T]{temporal: c.temporal, run: run}, nil
}
