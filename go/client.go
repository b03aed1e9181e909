package dispatchkubeflow

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// Options configure a Client.
type Options struct {
	// Namespace is the Kubernetes namespace the worker starts its objects in (its configuration's
	// namespace): Start ids and TrainJob names are built with it.
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
// Give the Temporal client the codec (NewCodecDataConverter) when the worker encrypts payloads.
type Client struct {
	temporal client.Client
	options  Options
}

// New makes a Client on a connected Temporal client.
func New(temporalClient client.Client, options Options) *Client {
	if options.TaskQueue == "" {
		options.TaskQueue = DefaultTaskQueue
	}
	if options.CallBound == 0 {
		options.CallBound = DefaultCallBound
	}
	return &Client{temporal: temporalClient, options: options}
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

// StartOptions are the options a Start of this request is started with.
func (c *Client) StartOptions(request StartRequest) client.StartWorkflowOptions {
	name := TrainJobName(request.Job, request.Submission)
	options := c.attaching(StartWorkflowID(c.options.Namespace, name, request.Attempt), StartSummary(request, c.options.Namespace, name))
	options.TypedSearchAttributes = StartSearchAttributes(request, name)
	return options
}

// OperationOptions are the options an operation on this TrainJob is started with.
func (c *Client) OperationOptions(op Operation, ref TrainJobRef) client.StartWorkflowOptions {
	options := c.attaching(OperationWorkflowID(op, ref), OperationSummary(op, ref))
	options.TypedSearchAttributes = OperationSearchAttributes(ref)
	return options
}

// ProbeOptions are the options of the namespace's probe.
func (c *Client) ProbeOptions() client.StartWorkflowOptions {
	return c.attaching(ProbeWorkflowID(c.options.Namespace), ProbeSummary(c.options.Namespace))
}

// CapabilitiesOptions are the options of one capabilities query (its own id, default policies).
func (c *Client) CapabilitiesOptions(unique string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{ID: CapabilitiesWorkflowID(c.options.Namespace, unique), TaskQueue: c.options.TaskQueue}
}

// SubmitStart starts (or attaches to the running) Start of this request's attempt, after checking
// the fields its workflow id is built from; the handle waits for its StartResult.
func (c *Client) SubmitStart(ctx context.Context, request StartRequest) (Handle[StartResult], error) {
	if err := checkIdentity(request); err != nil {
		return Handle[StartResult]{}, err
	}
	return start[StartResult](ctx, c, c.StartOptions(request), WorkflowStart, request)
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
	return start[TrainJobState](ctx, c, c.OperationOptions(op, ref), op.WorkflowType(), ref)
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
// its Outcome, later or from another process (WatchHandle gives it by id).
func (c *Client) SubmitWatch(ctx context.Context, ref TrainJobRef) (Handle[Outcome], error) {
	if err := ref.Validate(); err != nil {
		return Handle[Outcome]{}, err
	}
	return start[Outcome](ctx, c, c.OperationOptions(OpWatch, ref), WorkflowWatch, ref)
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
// its workflow id.
func (c *Client) WatchHandle(ctx context.Context, ref TrainJobRef) Handle[Outcome] {
	return Handle[Outcome]{run: c.temporal.GetWorkflow(ctx, OperationWorkflowID(OpWatch, ref), "")}
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
	handle, err := start[Capabilities](ctx, c, c.CapabilitiesOptions(uuid.NewString()), WorkflowCapabilities, capabilitiesInput(spec))
	if err != nil {
		return Capabilities{}, err
	}
	return handle.Get(ctx)
}

// Probe starts (or attaches to the running) probe of the namespace and answers its gates.
func (c *Client) Probe(ctx context.Context) (BackendGates, error) {
	handle, err := start[BackendGates](ctx, c, c.ProbeOptions(), WorkflowProbe)
	if err != nil {
		return BackendGates{}, err
	}
	return handle.Get(ctx)
}

func start[T any](ctx context.Context, c *Client, options client.StartWorkflowOptions, workflowType string, args ...any) (Handle[T], error) {
	run, err := c.temporal.ExecuteWorkflow(ctx, options, workflowType, args...)
	if err != nil {
		return Handle[T]{}, Typed(err)
	}
	return Handle[T]{run: run}, nil
}
