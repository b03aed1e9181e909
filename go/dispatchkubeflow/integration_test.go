//go:build integration

// Integration tests of the client against the real worker (plain and Kueue mode) on the local
// stack. They build only with `-tags integration` and skip unless DISPATCH_IT_TEMPORAL_ADDRESS is
// set: test/integration/go-client/go-client.test.ts (part of npm test) starts the stack's workers
// and runs them, passing what they need in the environment:
//
//	DISPATCH_IT_TEMPORAL_ADDRESS, DISPATCH_IT_TEMPORAL_NAMESPACE   the Temporal server
//	DISPATCH_IT_PLAIN_NAMESPACE, DISPATCH_IT_PLAIN_TASK_QUEUE       the plain-mode worker
//	DISPATCH_IT_KUEUE_NAMESPACE, DISPATCH_IT_KUEUE_TASK_QUEUE       the Kueue-mode worker
//	DISPATCH_IT_UNREACHABLE_*, DISPATCH_IT_READONLY_*               workers without gates, and with RBAC
//	DISPATCH_IT_LOST_*, DISPATCH_IT_RESET_*                         workers whose TrainJob creates a
//	                                                                fault proxy answers not (landed) or resets
//	DISPATCH_IT_CALL_BOUND, DISPATCH_IT_PROXIED_CALL_BOUND          the workers' timeouts.call
//	DISPATCH_IT_KUBE_SERVER, DISPATCH_IT_KUBE_TOKEN, DISPATCH_IT_KUBE_CA_FILE   for Find
//	DISPATCH_IT_RUNTIME, DISPATCH_IT_FAIL_RUNTIME, DISPATCH_IT_SLOW_RUNTIME      <Kind>/<name>
//	DISPATCH_CODEC_KEYS, DISPATCH_CODEC_KEY_ID                      the workers' codec, when on
package dispatchkubeflow

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

type itStack struct {
	temporal     client.Client
	plain, kueue *Client
	// Workers that refuse on demand: no gates yet, RBAC, TrainJob creates unanswered.
	unreachable, readOnly, lost, reset *Client
	runtime                            RuntimeRefExtension
	failRuntime                        RuntimeRefExtension
	slowRuntime                        RuntimeRefExtension
	codec                              bool
}

func runtimeFromEnv(t *testing.T, name, fallback string) RuntimeRefExtension {
	value := os.Getenv(name)
	if value == "" {
		value = fallback
	}
	kind, runtimeName, ok := strings.Cut(value, "/")
	if !ok {
		t.Fatalf("%s=%q is not <Kind>/<name>", name, value)
	}
	return RuntimeRefExtension{Kind: RuntimeKind(kind), Name: runtimeName}
}

func stack(t *testing.T) itStack {
	t.Helper()
	address := os.Getenv("DISPATCH_IT_TEMPORAL_ADDRESS")
	if address == "" {
		t.Skip("DISPATCH_IT_TEMPORAL_ADDRESS is not set: run through test/integration/go-client/go-client.test.ts")
	}
	dataConverter, err := DataConverterFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	temporalClient, err := client.Dial(WithDataConverter(client.Options{HostPort: address, Namespace: os.Getenv("DISPATCH_IT_TEMPORAL_NAMESPACE")}, dataConverter))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(temporalClient.Close)
	ca, err := os.ReadFile(os.Getenv("DISPATCH_IT_KUBE_CA_FILE"))
	if err != nil {
		t.Fatal(err)
	}
	trainJobs, err := NewRESTTrainJobs(os.Getenv("DISPATCH_IT_KUBE_SERVER"), os.Getenv("DISPATCH_IT_KUBE_TOKEN"), ca)
	if err != nil {
		t.Fatal(err)
	}
	callBound, err := time.ParseDuration(os.Getenv("DISPATCH_IT_CALL_BOUND"))
	if err != nil {
		t.Fatalf("DISPATCH_IT_CALL_BOUND: %v", err)
	}
	proxiedCallBound, err := time.ParseDuration(os.Getenv("DISPATCH_IT_PROXIED_CALL_BOUND"))
	if err != nil {
		t.Fatalf("DISPATCH_IT_PROXIED_CALL_BOUND: %v", err)
	}
	clientWith := func(worker string, bound time.Duration) *Client {
		return mustNew(t, temporalClient, Options{
			Namespace: os.Getenv("DISPATCH_IT_" + worker + "_NAMESPACE"),
			TaskQueue: os.Getenv("DISPATCH_IT_" + worker + "_TASK_QUEUE"),
			TrainJobs: trainJobs,
			CallBound: bound,
		})
	}
	client := func(worker string) *Client { return clientWith(worker, callBound) }
	return itStack{
		temporal:    temporalClient,
		plain:       client("PLAIN"),
		kueue:       client("KUEUE"),
		unreachable: client("UNREACHABLE"),
		readOnly:    client("READONLY"),
		lost:        clientWith("LOST", proxiedCallBound),
		reset:       clientWith("RESET", proxiedCallBound),
		runtime:     runtimeFromEnv(t, "DISPATCH_IT_RUNTIME", "ClusterTrainingRuntime/dispatch-kind"),
		failRuntime: runtimeFromEnv(t, "DISPATCH_IT_FAIL_RUNTIME", ""),
		slowRuntime: runtimeFromEnv(t, "DISPATCH_IT_SLOW_RUNTIME", ""),
		codec:       dataConverter != nil,
	}
}

// request is docs/contract.md §2's example on a runtime, with a fresh JobID.
func request(runtime RuntimeRefExtension) StartRequest {
	return StartRequest{
		Job: RandomJobID(), Generation: 3, Submission: 12, Attempt: 1,
		Spec: JobSpec{
			Name:        "resnet50",
			Command:     []string{"python", "train.py", "--epochs", "10"},
			Env:         map[string]string{"LR": "0.1", "WANDB_MODE": "offline"},
			WorkDir:     "/workspace",
			Nodes:       2,
			GPUsPerNode: 8,
			TimeLimit:   2*time.Hour + 30*time.Minute,
			Checkpoint:  "s3://bucket/ckpt/resnet50",
			Recovery:    &Recovery{Policy: "requeue"},
			Extensions: &Extensions{
				Image:            &ImageExtension{Ref: "ghcr.io/example/train:1.4"},
				RuntimeRef:       &runtime,
				SharedCheckpoint: &SharedCheckpointExtension{},
			},
		},
	}
}

func itContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls check every 250 ms until it says done, and answers its last value; the test
// fails when ctx ends first.
func eventually[T any](t *testing.T, ctx context.Context, check func() (T, bool)) T {
	t.Helper()
	for {
		value, done := check()
		if done {
			return value
		}
		select {
		case <-ctx.Done():
			t.Fatalf("still %+v when the test's time ran out", value)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// refusal is err as a typed failure of type want, or fails the test.
func refusal(t *testing.T, err error, want ErrorType) *Error {
	t.Helper()
	var failure *Error
	if !errors.As(err, &failure) || failure.Type != want || !errors.Is(err, want) {
		t.Fatalf("want a %s, got %v", want, err)
	}
	if len(failure.Reasons) == 0 {
		t.Errorf("a %s without reasons", want)
	}
	return failure
}

func TestIntegrationPlainStartOpenWatchAndFind(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	req := request(s.runtime)
	if found, err := s.plain.Find(ctx, req.Job, req.Submission); err != nil || found.State != FindAbsent {
		t.Fatalf("Find before Start: %+v %v", found, err)
	}
	started, err := s.plain.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	ref := started.Ref
	if started.Mode != ModePlain || ref.Name != TrainJobName(req.Job, req.Submission) || ref.Namespace != s.plain.Namespace() || ref.UID == "" || started.RuntimeCopy != ref.Name {
		t.Errorf("Start answered %+v", started)
	}

	// What the Temporal UI shows of it: the TypeScript client's summary and search attributes.
	id := StartWorkflowID(s.plain.Namespace(), ref.Name, req.Attempt)
	description, err := s.temporal.DescribeWorkflow(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	summary, err := description.GetStaticSummary()
	if err != nil || summary != startSummary(req, s.plain.Namespace(), ref.Name) {
		t.Errorf("static summary %q %v", summary, err)
	}
	if job, _ := description.TypedSearchAttributes.GetKeyword(jobIDKey); job != req.Job {
		t.Errorf("DispatchJobId %q", job)
	}
	if s.codec {
		events := s.temporal.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		if !events.HasNext() {
			t.Fatal("the Start has no history")
		}
		first, err := events.Next()
		if err != nil {
			t.Fatal(err)
		}
		input := first.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
		if len(input) != 1 || !IsEncrypted(input[0]) || strings.Contains(string(input[0].GetData()), req.Job) {
			t.Errorf("the request is not encrypted in the history: %v", input)
		}
	}

	// Visibility is eventually consistent: the Start may list as running a moment after it ended.
	found := eventually(t, ctx, func() (FindResult, bool) {
		found, err := s.plain.Find(ctx, req.Job, req.Submission)
		if err != nil {
			t.Fatal(err)
		}
		return found, found.State != FindInFlight
	})
	if found.State != FindPresent || *found.Ref != ref || !found.ThisAttempt(req) {
		t.Errorf("Find after Start: %+v", found)
	}
	opened, err := s.plain.Open(ctx, ref)
	if err != nil || opened.Ref != ref || opened.Phase != PhaseRunning || opened.Held {
		t.Fatalf("Open: %+v %v", opened, err)
	}
	outcome, err := s.plain.Watch(ctx, ref)
	if err != nil || outcome.Ref != ref || outcome.Phase != PhaseSucceeded || outcome.FinishedAt.IsZero() {
		t.Fatalf("Watch: %+v %v", outcome, err)
	}
	t.Logf("plain: %+v; outcome %+v", started, outcome)

	// A finished TrainJob cannot be held: ErrRejected, step 0, naming it.
	_, err = s.plain.Hold(ctx, ref)
	failure := refusal(t, err, ErrRejected)
	if failure.Step != 0 || failure.Ref == nil || *failure.Ref != ref || !strings.Contains(failure.Reasons[0], "it has Succeeded") || IsRetryable(err) {
		t.Errorf("Hold of a finished TrainJob: %+v", failure)
	}
}

func TestIntegrationRetriedStartAnswersTheSameTrainJob(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	req := request(s.runtime)
	first, err := s.plain.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.plain.Start(ctx, req)
	if err != nil || again != first {
		t.Errorf("the retried Start answered %+v, %v; the first %+v", again, err, first)
	}
	// A handle to the existing Start, by its id: the same answer.
	handle, err := s.plain.StartHandle(ctx, StartWorkflowID(s.plain.Namespace(), first.Ref.Name, req.Attempt))
	if err != nil {
		t.Fatal(err)
	}
	if found, err := handle.Get(ctx); err != nil || found != first {
		t.Errorf("StartHandle answered %+v, %v; the Start %+v", found, err, first)
	}
	if _, err := s.plain.Stop(ctx, first.Ref); err != nil {
		t.Error(err)
	}
}

func TestIntegrationHoldReleaseStopAndACallThatAttaches(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	started, err := s.plain.Start(ctx, request(s.slowRuntime))
	if err != nil {
		t.Fatal(err)
	}
	ref := started.Ref
	// A Watch of a TrainJob not yet opened runs until it ends: a second Watch attaches to it.
	watch, err := s.plain.SubmitWatch(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.plain.SubmitWatch(ctx, ref)
	if err != nil || again.RunID() != watch.RunID() {
		t.Errorf("a second SubmitWatch started run %s, not the running %s (%v)", again.RunID(), watch.RunID(), err)
	}
	held, err := s.plain.Hold(ctx, ref)
	if err != nil || held.Phase != PhaseHeld || !held.Held {
		t.Fatalf("Hold: %+v %v", held, err)
	}
	released, err := s.plain.Release(ctx, ref)
	if err != nil || released.Held || released.Phase != PhaseGated {
		t.Fatalf("Release of a job never opened: %+v %v", released, err)
	}
	opened, err := s.plain.Open(ctx, ref)
	if err != nil || opened.Phase != PhaseRunning {
		t.Fatalf("Open: %+v %v", opened, err)
	}
	stopped, err := s.plain.Stop(ctx, ref)
	if err != nil || stopped.Ref != ref {
		t.Fatalf("Stop: %+v %v", stopped, err)
	}
	// The Watch begun before any of it answers, later, on a handle got by the ref.
	later, err := s.plain.WatchHandle(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	outcome, err := later.Get(ctx)
	if err != nil || outcome.Phase != PhaseAbsent {
		t.Errorf("Watch of a stopped TrainJob: %+v %v", outcome, err)
	}
}

func TestIntegrationAFailedJobsOutcomeHasItsExitCode(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	started, err := s.plain.Start(ctx, request(s.failRuntime))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.plain.Open(ctx, started.Ref); err != nil {
		t.Fatal(err)
	}
	outcome, err := s.plain.Watch(ctx, started.Ref)
	if err != nil || outcome.Phase != PhaseFailed || outcome.ExitCode == nil || *outcome.ExitCode != 125 {
		t.Errorf("%+v %v", outcome, err)
	}
}

// Cancelling through the client's handle cancels the workflow itself: the Watch ends cancelled.
func TestIntegrationCancelledWatchIsNotATypedFailure(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	started, err := s.plain.Start(ctx, request(s.runtime))
	if err != nil {
		t.Fatal(err)
	}
	watch, err := s.plain.SubmitWatch(ctx, started.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = watch.Get(ctx)
	var cancelled *temporal.CanceledError
	if !errors.As(err, &cancelled) {
		t.Errorf("want a cancellation, got %v", err)
	}
	if _, typed := FromError(err); typed || IsRetryable(err) {
		t.Errorf("a cancellation decoded as a typed failure: %v", err)
	}
	if _, err := s.plain.Stop(ctx, started.Ref); err != nil {
		t.Error(err)
	}
}

// A Watch whose context ends answers an error that is the context's (the real SDK answers
// serviceerror.DeadlineExceeded); the workflow goes on, and a handle got by the ref cancels it.
func TestIntegrationAWatchWhoseContextEndsIsTheContextsErrorAndGoesOn(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	started, err := s.plain.Start(ctx, request(s.runtime))
	if err != nil {
		t.Fatal(err)
	}
	// Not opened: the Watch runs until the TrainJob ends.
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = s.plain.Watch(short, started.Ref)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a Watch past its context's deadline: %v (%T)", err, err)
	}
	watch, err := s.plain.WatchHandle(ctx, started.Ref)
	if err != nil {
		t.Fatal(err)
	}
	description, err := s.temporal.DescribeWorkflowExecution(ctx, watch.ID(), "")
	if err != nil || description.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		t.Errorf("the Watch after its caller gave up: %v %v", description.GetWorkflowExecutionInfo().GetStatus(), err)
	}
	if err := watch.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	var cancelled *temporal.CanceledError
	if _, err := watch.Get(ctx); !errors.As(err, &cancelled) {
		t.Errorf("the cancelled Watch answered %v", err)
	}
	if _, err := s.plain.Stop(ctx, started.Ref); err != nil {
		t.Error(err)
	}
}

func TestIntegrationTypedRefusals(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)

	// Several problems with a valid identity: the worker judges them, and names what Validate names.
	invalid := request(s.runtime)
	invalid.Spec.Nodes, invalid.Spec.TimeLimit, invalid.Spec.Checkpoint = 0, -time.Second, "relative"
	invalid.Spec.Extensions.Image = nil
	_, err := s.plain.Start(ctx, invalid)
	failure := refusal(t, err, ErrInvalid)
	if failure.Step != 4 || !slices.ContainsFunc(failure.Reasons, func(r string) bool { return strings.HasPrefix(r, "spec.nodes") }) {
		t.Errorf("ErrInvalid: %+v", failure)
	}
	if local := invalid.Validate().(*Error); !slices.Equal(local.Reasons, failure.Reasons) || len(local.Reasons) != 4 {
		t.Errorf("the worker's reasons %q, Validate's %q", failure.Reasons, local.Reasons)
	}

	unknown := request(s.runtime)
	unknown.Spec.Extensions.Other = map[string]json.RawMessage{"acme/Thing": json.RawMessage(`{}`)}
	_, err = s.plain.Start(ctx, unknown)
	if failure := refusal(t, err, ErrUnsupported); failure.Step != 4 || !strings.Contains(strings.Join(failure.Reasons, "\n"), "acme/Thing") {
		t.Errorf("ErrUnsupported for an unknown extension: %+v", failure)
	}

	missing := request(RuntimeRefExtension{Kind: ClusterTrainingRuntime, Name: "no-such-runtime"})
	_, err = s.plain.Start(ctx, missing)
	if failure := refusal(t, err, ErrUnsupported); failure.Step != 2 {
		t.Errorf("ErrUnsupported for a missing runtime: %+v", failure)
	}

	// A malformed ref, sent past this client's own check: the worker's ErrInvalid, without a ref.
	run, err := s.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "open/it-malformed/" + RandomJobID(), TaskQueue: s.plain.TaskQueue()},
		WorkflowOpen, map[string]string{"namespace": "Not_A_Namespace", "name": "x", "uid": "u"})
	if err != nil {
		t.Fatal(err)
	}
	if failure := refusal(t, callError(ctx, run.Get(ctx, nil)), ErrInvalid); failure.Ref != nil || failure.Step != 0 || !strings.HasPrefix(failure.Reasons[0], "namespace") {
		t.Errorf("ErrInvalid for a malformed ref: %+v", failure)
	}
}

func TestIntegrationCapabilitiesAndProbe(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	capabilities, err := s.plain.Capabilities(ctx, JobSpec{Extensions: &Extensions{RuntimeRef: &s.runtime}})
	if err != nil || capabilities.Runtime != string(s.runtime.Kind)+"/"+s.runtime.Name {
		t.Errorf("Capabilities: %+v %v", capabilities, err)
	}
	_, err = s.plain.Capabilities(ctx, JobSpec{Extensions: &Extensions{RuntimeRef: &RuntimeRefExtension{Kind: ClusterTrainingRuntime, Name: "no-such-runtime"}}})
	refusal(t, err, ErrUnsupported)

	gates, err := s.plain.Probe(ctx)
	if err != nil || !gates.Reach || !gates.Write || gates.CheckedAt.IsZero() {
		t.Errorf("Probe: %+v %v", gates, err)
	}
	t.Logf("probe: %+v", gates)
}

func TestIntegrationKueueStartOpenWatch(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	started, err := s.kueue.Start(ctx, request(s.runtime))
	if err != nil {
		t.Fatal(err)
	}
	if started.Mode != ModeKueue {
		t.Errorf("Start answered mode %s", started.Mode)
	}
	ref := started.Ref
	opened, err := s.kueue.Open(ctx, ref)
	if err != nil || (opened.Phase != PhaseQueued && opened.Phase != PhaseRunning) {
		t.Fatalf("Open: %+v %v", opened, err)
	}
	outcome, err := s.kueue.Watch(ctx, ref)
	if err != nil || outcome.Phase != PhaseSucceeded {
		t.Fatalf("Watch: %+v %v", outcome, err)
	}
	t.Logf("kueue: %+v; outcome %+v", started, outcome)
}

func TestIntegrationErrUnreachableBeforeAnyPreflightIsRetryable(t *testing.T) {
	s := stack(t)
	_, err := s.unreachable.Start(itContext(t), request(s.runtime))
	failure := refusal(t, err, ErrUnreachable)
	if failure.Step != 1 || !IsRetryable(err) || !strings.Contains(strings.Join(failure.Reasons, "\n"), "reach") {
		t.Errorf("%+v", failure)
	}
}

// Cancelling a Start through the client: a handle got by its id asks Temporal to cancel the
// workflow, which (waiting at step 1 for gates no preflight has proven, nothing made yet) ends
// cancelled, not with its own refusal.
func TestIntegrationAStartCancelledThroughItsHandleEndsCancelled(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	submitted, err := s.unreachable.SubmitStart(ctx, request(s.runtime))
	if err != nil {
		t.Fatal(err)
	}
	start, err := s.unreachable.StartHandle(ctx, submitted.ID())
	if err != nil {
		t.Fatal(err)
	}
	if err := start.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = submitted.Get(ctx)
	var cancelled *temporal.CanceledError
	if !errors.As(err, &cancelled) {
		t.Errorf("a cancelled Start answered %v", err)
	}
	if _, typed := FromError(err); typed {
		t.Errorf("a cancelled Start decoded as a typed failure: %v", err)
	}
}

func TestIntegrationErrReadOnlyUnderRBAC(t *testing.T) {
	s := stack(t)
	_, err := s.readOnly.Start(itContext(t), request(s.runtime))
	failure := refusal(t, err, ErrReadOnly)
	if failure.Step != 6 || !strings.Contains(failure.Reasons[0], "is forbidden") || IsRetryable(err) || failure.Type.CallerRetry() != RetryLater {
		t.Errorf("%+v", failure)
	}
}

// outcomeUnknown starts req on a proxied worker and checks it ends ErrOutcomeUnknown at step 6,
// naming the TrainJob without a UID.
func outcomeUnknown(t *testing.T, ctx context.Context, dk *Client, req StartRequest) {
	t.Helper()
	_, err := dk.Start(ctx, req)
	failure := refusal(t, err, ErrOutcomeUnknown)
	want := TrainJobRef{Namespace: dk.Namespace(), Name: TrainJobName(req.Job, req.Submission)}
	if failure.Step != 6 || failure.Ref == nil || *failure.Ref != want || IsRetryable(err) {
		t.Errorf("%+v", failure)
	}
}

func TestIntegrationErrOutcomeUnknownResolvesPresentWhenTheCreateLanded(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	req := request(s.runtime)
	outcomeUnknown(t, ctx, s.lost, req)
	// InFlight for CallBound after the failure, then what the API server holds: this attempt's TrainJob.
	found, err := s.lost.ResolveOutcomeUnknown(ctx, req, 500*time.Millisecond)
	if err != nil || found.State != FindPresent || found.Ref.UID == "" || !found.ThisAttempt(req) {
		t.Errorf("%+v %v", found, err)
	}
}

func TestIntegrationRestartAfterOutcomeUnknownStartsTheSameAttemptWhenNothingLanded(t *testing.T) {
	s := stack(t)
	ctx := itContext(t)
	req := request(s.runtime)
	outcomeUnknown(t, ctx, s.reset, req)
	found, err := s.reset.ResolveOutcomeUnknown(ctx, req, 500*time.Millisecond)
	if err != nil || found.State != FindAbsent {
		t.Fatalf("%+v %v", found, err)
	}
	// Absent: the same attempt is started again, and (the creates still reset) ends the same way.
	_, err = s.reset.RestartAfterOutcomeUnknown(ctx, req, 500*time.Millisecond)
	if !errors.Is(err, ErrOutcomeUnknown) {
		t.Errorf("the restarted Start: %v", err)
	}
	id := StartWorkflowID(s.reset.Namespace(), TrainJobName(req.Job, req.Submission), req.Attempt)
	eventually(t, ctx, func() (int, bool) {
		runs, err := s.temporal.ListWorkflow(ctx, listRequest("WorkflowId = '"+id+"' AND ExecutionStatus = 'Failed'", nil))
		if err != nil {
			t.Fatal(err)
		}
		return len(runs.GetExecutions()), len(runs.GetExecutions()) == 2
	})
}
