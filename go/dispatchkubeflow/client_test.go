package dispatchkubeflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/faketemporal"
)

const ulid = "01JD0Q3J0Y6Q7J7Z4W2X5V8K9M"

var testRef = TrainJobRef{Namespace: "ml-jobs", Name: TrainJobName(ulid, 12), UID: "0b5b2c1e"}

func testRequest(attempt int64) StartRequest {
	return StartRequest{Job: ulid, Generation: 3, Submission: 12, Attempt: attempt, Spec: JobSpec{
		Command: []string{"true"}, Nodes: 1,
		Extensions: &Extensions{Image: &ImageExtension{Ref: "img"}, RuntimeRef: &RuntimeRefExtension{Kind: ClusterTrainingRuntime, Name: "torch"}},
	}}
}

// workerFailure is the error a Go caller receives for a failure the worker threw: the
// ApplicationError through the failure converter (details as payloads), wrapped.
func workerFailure(t ErrorType, details FailureDetails) error {
	converter := temporal.GetDefaultFailureConverter()
	message := (&Error{Type: t, Reasons: details.Reasons, Ref: details.Ref}).Error()
	thrown := temporal.NewNonRetryableApplicationError(message, string(t), nil, details)
	return fmt.Errorf("workflow execution error: %w", converter.FailureToError(converter.ErrorToFailure(thrown)))
}

func mustNew(t testing.TB, temporal client.Client, options Options) *Client {
	t.Helper()
	dk, err := New(temporal, options)
	if err != nil {
		t.Fatal(err)
	}
	return dk
}

// fakeTrainJobs answers ReadTrainJob from a table by name: uid and attempt token.
type fakeTrainJobs map[string][2]string

func (f fakeTrainJobs) ReadTrainJob(_ context.Context, _ string, name string) (string, string, bool, error) {
	found, ok := f[name]
	return found[0], found[1], ok, nil
}

func TestStartAnswersItsResultAndItsTypedFailure(t *testing.T) {
	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs"})
	id := StartWorkflowID("ml-jobs", testRef.Name, 1)
	fake.Answers[id] = `{"ref":"ml-jobs/` + testRef.Name + `","uid":"0b5b2c1e","namespace":"ml-jobs","name":"` + testRef.Name + `","runtimeCopy":"` + testRef.Name + `","mode":"plain"}`
	result, err := dk.Start(t.Context(), testRequest(1))
	if err != nil || result.Ref != testRef || result.Mode != ModePlain || result.RuntimeCopy != testRef.Name {
		t.Fatalf("got %+v, %v", result, err)
	}

	id = StartWorkflowID("ml-jobs", testRef.Name, 2)
	fake.Errors[id] = workerFailure(ErrOutcomeUnknown, FailureDetails{Reasons: []string{"no answer"}, Step: 6, Ref: &TrainJobRef{Namespace: "ml-jobs", Name: testRef.Name}})
	_, err = dk.Start(t.Context(), testRequest(2))
	var failure *Error
	if !errors.As(err, &failure) || failure.Type != ErrOutcomeUnknown || failure.Step != 6 || failure.Ref.UID != "" || !errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("got %#v", err)
	}
	if IsRetryable(err) {
		t.Error("ErrOutcomeUnknown taken as simply retryable")
	}
}

func TestOperationsAnswerTheirShapeAndRefuseAnother(t *testing.T) {
	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs"})
	state := `{"ref":{"namespace":"ml-jobs","name":"` + testRef.Name + `","uid":"0b5b2c1e"},"phase":"Held","held":true,"reasons":["held"]}`
	for _, op := range []Operation{OpOpen, OpHold, OpRelease, OpStop} {
		fake.Answers[OperationWorkflowID(op, testRef)] = state
	}
	for name, call := range map[string]func() (TrainJobState, error){
		"open": func() (TrainJobState, error) { return dk.Open(t.Context(), testRef) }, "hold": func() (TrainJobState, error) { return dk.Hold(t.Context(), testRef) },
		"release": func() (TrainJobState, error) { return dk.Release(t.Context(), testRef) }, "stop": func() (TrainJobState, error) { return dk.Stop(t.Context(), testRef) },
	} {
		got, err := call()
		if err != nil || got.Phase != PhaseHeld || !got.Held || got.Ref != testRef {
			t.Errorf("%s: %+v, %v", name, got, err)
		}
	}
	// A Watch that answered a TrainJobState, not an Outcome, is refused, not half-read.
	fake.Answers[OperationWorkflowID(OpWatch, testRef)] = state
	if _, err := dk.Watch(t.Context(), testRef); err == nil || !strings.Contains(err.Error(), "Outcome") {
		t.Errorf("a TrainJobState taken as an Outcome: %v", err)
	}
	if _, err := dk.SubmitOperation(t.Context(), OpWatch, testRef); err == nil {
		t.Error("SubmitOperation took watch")
	}
	fake.Errors[OperationWorkflowID(OpHold, testRef)] = workerFailure(ErrRejected, FailureDetails{Reasons: []string{"the TrainJob has Succeeded"}, Ref: &testRef})
	if _, err := dk.Hold(t.Context(), testRef); !errors.Is(err, ErrRejected) {
		t.Errorf("Hold of a finished TrainJob: %v", err)
	}
}

func TestWatchHandleWaitsForTheOutcomeLater(t *testing.T) {
	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs"})
	handle, err := dk.SubmitWatch(t.Context(), testRef)
	if err != nil || handle.ID() != "watch/ml-jobs/"+testRef.Name+"/0b5b2c1e" {
		t.Fatalf("%v %v", handle, err)
	}
	fake.Answers[handle.ID()] = `{"ref":{"namespace":"ml-jobs","name":"` + testRef.Name + `","uid":"0b5b2c1e"},"phase":"Failed","reason":"BackoffLimitExceeded","message":"m","exitCode":125,"finishedAt":"2026-12-01T04:17:12Z"}`
	later, err := dk.WatchHandle(t.Context(), testRef)
	if err != nil {
		t.Fatal(err)
	}
	outcome, err := later.Get(t.Context())
	if err != nil || outcome.Phase != PhaseFailed || outcome.ExitCode == nil || *outcome.ExitCode != 125 || outcome.FinishedAt.Unix() != 1796098632 {
		t.Errorf("%+v %v", outcome, err)
	}
}

func TestFindAnswersInFlightPresentAndAbsent(t *testing.T) {
	running, failed := findQueries("ml-jobs", testRef.Name, time.Now())
	failed = strings.Split(failed, " AND CloseTime")[0]
	token := AttemptToken("ml-jobs", testRef.Name, 1)
	trainJobs := fakeTrainJobs{testRef.Name: {"0b5b2c1e", token}}

	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs", TrainJobs: trainJobs})
	fake.Lists[running] = []string{"start/ml-jobs/" + testRef.Name + "/a1"}
	if got, err := dk.Find(t.Context(), ulid, 12); err != nil || got.State != FindInFlight || got.WorkflowID != "start/ml-jobs/"+testRef.Name+"/a1" {
		t.Errorf("a running Start: %+v %v", got, err)
	}

	// A Start that failed ErrOutcomeUnknown within CallBound keeps it InFlight; one that failed
	// otherwise does not.
	fake = faketemporal.New()
	dk = mustNew(t, fake, Options{Namespace: "ml-jobs", TrainJobs: trainJobs})
	unknown, rejected := "start/ml-jobs/"+testRef.Name+"/a2", "start/ml-jobs/"+testRef.Name+"/a3"
	fake.Errors[rejected] = workerFailure(ErrRejected, FailureDetails{Reasons: []string{"no"}, Step: 6})
	fake.Errors[unknown] = workerFailure(ErrOutcomeUnknown, FailureDetails{Reasons: []string{"no answer"}, Step: 6})
	fake.Lists[failed] = []string{rejected, unknown}
	if got, err := dk.Find(t.Context(), ulid, 12); err != nil || got.State != FindInFlight || got.WorkflowID != unknown {
		t.Errorf("after ErrOutcomeUnknown: %+v %v", got, err)
	}
	fake.Lists[failed] = []string{rejected}
	got, err := dk.Find(t.Context(), ulid, 12)
	if err != nil || got.State != FindPresent || *got.Ref != testRef || got.AttemptToken != token || !got.ThisAttempt(testRequest(1)) || got.ThisAttempt(testRequest(2)) {
		t.Errorf("after ErrRejected only: %+v %v", got, err)
	}

	if got, err := mustNew(t, faketemporal.New(), Options{Namespace: "ml-jobs", TrainJobs: fakeTrainJobs{}}).Find(t.Context(), ulid, 12); err != nil || got.State != FindAbsent {
		t.Errorf("nothing: %+v %v", got, err)
	}
	if _, err := mustNew(t, faketemporal.New(), Options{Namespace: "ml-jobs"}).Find(t.Context(), ulid, 12); !errors.Is(err, ErrNoTrainJobReader) {
		t.Errorf("without a reader: %v", err)
	}
}

func TestResolveOutcomeUnknownWaitsWhileFindAnswersInFlight(t *testing.T) {
	running, _ := findQueries("ml-jobs", testRef.Name, time.Now())
	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs", TrainJobs: fakeTrainJobs{testRef.Name: {"0b5b2c1e", AttemptToken("ml-jobs", testRef.Name, 1)}}})
	a1 := "start/ml-jobs/" + testRef.Name + "/a1"
	fake.ListSeq[running] = [][]string{{a1}, {a1}}
	got, err := dk.ResolveOutcomeUnknown(t.Context(), testRequest(1), time.Millisecond)
	if err != nil || got.State != FindPresent || !got.ThisAttempt(testRequest(1)) {
		t.Errorf("%+v %v", got, err)
	}
	if runningAsked := strings.Count(strings.Join(fake.Queries, "\n"), "'Running'"); runningAsked != 3 {
		t.Errorf("Find asked %d times, want 3 (two InFlight, then Present)", runningAsked)
	}
}

func TestRestartAfterOutcomeUnknownStartsTheSameAttemptUnlessAnotherMadeTheTrainJob(t *testing.T) {
	running, _ := findQueries("ml-jobs", testRef.Name, time.Now())
	a1 := StartWorkflowID("ml-jobs", testRef.Name, 1)
	answer := `{"ref":"ml-jobs/` + testRef.Name + `","uid":"0b5b2c1e","namespace":"ml-jobs","name":"` + testRef.Name + `","runtimeCopy":"` + testRef.Name + `","mode":"plain"}`
	for _, c := range []struct {
		what      string
		trainJobs fakeTrainJobs
		restarted bool
	}{
		{"the create landed", fakeTrainJobs{testRef.Name: {"0b5b2c1e", AttemptToken("ml-jobs", testRef.Name, 1)}}, true},
		{"nothing was made", fakeTrainJobs{}, true},
		{"another attempt made it", fakeTrainJobs{testRef.Name: {"0b5b2c1e", AttemptToken("ml-jobs", testRef.Name, 0)}}, false},
	} {
		fake := faketemporal.New()
		fake.ListSeq[running] = [][]string{{a1}}
		fake.Answers[a1] = answer
		dk := mustNew(t, fake, Options{Namespace: "ml-jobs", TrainJobs: c.trainJobs})
		result, err := dk.RestartAfterOutcomeUnknown(t.Context(), testRequest(1), time.Millisecond)
		if c.restarted {
			if err != nil || result.Ref.UID != "0b5b2c1e" || len(fake.Started) != 1 || fake.Started[0].Options.ID != a1 {
				t.Errorf("%s: %+v %v, started %d", c.what, result, err, len(fake.Started))
			}
		} else if !errors.Is(err, ErrAnotherAttempt) || len(fake.Started) != 0 {
			t.Errorf("%s: %v, started %d", c.what, err, len(fake.Started))
		}
	}
}

func TestNewRefusesAMissingNamespaceOrTemporalClient(t *testing.T) {
	for _, namespace := range []string{"", "ML_Jobs", strings.Repeat("a", 64)} {
		if dk, err := New(faketemporal.New(), Options{Namespace: namespace}); dk != nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "Options.Namespace") {
			t.Errorf("namespace %q: %v %v", namespace, dk, err)
		}
	}
	if _, err := New(nil, Options{Namespace: "ml-jobs"}); err == nil {
		t.Error("a nil Temporal client taken")
	}
	dk := mustNew(t, faketemporal.New(), Options{Namespace: "ml-jobs"})
	if dk.TaskQueue() != DefaultTaskQueue || dk.options.CallBound != DefaultCallBound {
		t.Errorf("defaults %q %v", dk.TaskQueue(), dk.options.CallBound)
	}
}

// Cancelling through the client asks Temporal to cancel the workflow (not only abandoning the
// wait); a handle to an existing Start is got by its id, and cancels it as well.
func TestHandlesCancelTheirWorkflowAndAStartIsFoundByItsID(t *testing.T) {
	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs"})
	watch, err := dk.SubmitWatch(t.Context(), testRef)
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Cancel(t.Context()); err != nil {
		t.Fatal(err)
	}
	var cancelled *temporal.CanceledError
	if _, err := watch.Get(t.Context()); !errors.As(err, &cancelled) {
		t.Errorf("a cancelled Watch answered %v", err)
	}

	start, err := dk.SubmitStart(t.Context(), testRequest(1))
	if err != nil {
		t.Fatal(err)
	}
	again, err := dk.StartHandle(t.Context(), start.ID())
	if err != nil || again.ID() != StartWorkflowID("ml-jobs", testRef.Name, 1) || again.RunID() != "" {
		t.Fatalf("StartHandle: %v %v", again, err)
	}
	if err := again.Cancel(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{watch.ID() + " run-1", start.ID() + " "}
	if !slices.Equal(fake.Cancelled, want) {
		t.Errorf("cancelled %q, want %q", fake.Cancelled, want)
	}
	for _, id := range []string{"start/other/" + testRef.Name + "/a1", "open/ml-jobs/x/u", "start/ml-jobs/x", "start/ml-jobs/x/a1/more"} {
		if _, err := dk.StartHandle(t.Context(), id); !errors.Is(err, ErrInvalid) {
			t.Errorf("StartHandle(%q): %v", id, err)
		}
	}
	if _, err := dk.WatchHandle(t.Context(), TrainJobRef{Namespace: "ml-jobs"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("WatchHandle of a malformed ref: %v", err)
	}
}
