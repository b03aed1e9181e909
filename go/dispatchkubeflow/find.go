package dispatchkubeflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/contract"
)

// DefaultCallBound is the worker's default timeouts.call.
const DefaultCallBound = 30 * time.Second

// TrainJobReader reads one TrainJob for Find: its UID and its attempt-token annotation
// (dispatch.phpboyscout.uk/attempt-token), found false when the API server answers 404. Any
// Kubernetes client does (client-go's dynamic client, for instance); this module does not depend
// on one.
type TrainJobReader interface {
	ReadTrainJob(ctx context.Context, namespace, name string) (uid, attemptToken string, found bool, err error)
}

// AttemptTokenAnnotation is the annotation of a TrainJob that holds its attempt token.
const AttemptTokenAnnotation = "dispatch.phpboyscout.uk/attempt-token"

// ErrNoTrainJobReader is Find's error when the client has no Options.TrainJobs.
var ErrNoTrainJobReader = errors.New("dispatchkubeflow: Find needs Options.TrainJobs to read the TrainJob")

// findQueries are Find's two visibility queries (internal/contract.FindQueries), failures
// counted since `since`.
func findQueries(namespace, name string, since time.Time) (running, failed string) {
	return contract.FindQueries(WorkflowStart, namespace, name, since.UTC().Format("2006-01-02T15:04:05.000Z07:00"))
}

// Find answers for a job and submission (docs/contract.md §7): InFlight while a Start of it runs in
// the client's namespace, and for CallBound after one ended ErrOutcomeUnknown; otherwise Present
// (the TrainJob's ref and attempt token) or Absent.
func (c *Client) Find(ctx context.Context, job string, submission int64) (FindResult, error) {
	if c.options.TrainJobs == nil {
		return FindResult{}, ErrNoTrainJobReader
	}
	name := TrainJobName(job, submission)
	running, failed := findQueries(c.options.Namespace, name, time.Now().Add(-c.options.CallBound))
	if id, found, err := c.firstExecution(ctx, running, nil); err != nil {
		return FindResult{}, err
	} else if found {
		return FindResult{State: FindInFlight, WorkflowID: id}, nil
	}
	unknown := func(execution executionID) bool {
		err := c.temporal.GetWorkflow(ctx, execution.workflowID, execution.runID).Get(ctx, nil)
		return isOutcomeUnknown(err)
	}
	if id, found, err := c.firstExecution(ctx, failed, unknown); err != nil {
		return FindResult{}, err
	} else if found {
		return FindResult{State: FindInFlight, WorkflowID: id}, nil
	}
	uid, token, present, err := c.options.TrainJobs.ReadTrainJob(ctx, c.options.Namespace, name)
	if err != nil {
		return FindResult{}, err
	}
	if !present {
		return FindResult{State: FindAbsent}, nil
	}
	return FindResult{State: FindPresent, Ref: &TrainJobRef{Namespace: c.options.Namespace, Name: name, UID: uid}, AttemptToken: token}, nil
}

func isOutcomeUnknown(err error) bool {
	failure, ok := FromError(err)
	return ok && failure.Type == ErrOutcomeUnknown
}

type executionID struct{ workflowID, runID string }

// firstExecution is the id of the first execution the query lists that `accept` takes (nil: any).
func (c *Client) firstExecution(ctx context.Context, query string, accept func(executionID) bool) (string, bool, error) {
	var token []byte
	for {
		page, err := c.temporal.ListWorkflow(ctx, listRequest(query, token))
		if err != nil {
			return "", false, callError(ctx, err)
		}
		for _, info := range page.GetExecutions() {
			execution := executionID{info.GetExecution().GetWorkflowId(), info.GetExecution().GetRunId()}
			if accept == nil || accept(execution) {
				return execution.workflowID, true, nil
			}
		}
		token = page.GetNextPageToken()
		if len(token) == 0 {
			return "", false, nil
		}
	}
}

// ResolveOutcomeUnknown settles what an ErrOutcomeUnknown left unknown, as docs/errors.md says:
// it asks Find every `poll` (zero: one second) while it answers InFlight, and returns its first
// other answer. Present with AttemptToken(ref's namespace, name, request.Attempt) means this
// attempt's create landed; then, or when Absent, retry the same attempt (Start with the same
// request): it adopts the TrainJob, or starts it anew. Present with another attempt's token means
// another attempt made the TrainJob: start no other attempt before asking why. The wait ends with
// ctx.
func (c *Client) ResolveOutcomeUnknown(ctx context.Context, request StartRequest, poll time.Duration) (FindResult, error) {
	if poll <= 0 {
		poll = time.Second
	}
	for {
		found, err := c.Find(ctx, request.Job, request.Submission)
		if err != nil || found.State != FindInFlight {
			return found, err
		}
		select {
		case <-ctx.Done():
			return found, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// ThisAttempt is whether a Present answer is the TrainJob of this request's attempt.
func (r FindResult) ThisAttempt(request StartRequest) bool {
	return r.State == FindPresent && r.Ref != nil && r.AttemptToken == AttemptToken(r.Ref.Namespace, r.Ref.Name, request.Attempt)
}

// listRequest asks for one page of the query (the Temporal client fills in its namespace).
func listRequest(query string, token []byte) *workflowservice.ListWorkflowExecutionsRequest {
	return &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: token}
}

// ErrAnotherAttempt is RestartAfterOutcomeUnknown's answer when Find finds the submission's
// TrainJob made by another attempt: start no attempt of it before asking why.
var ErrAnotherAttempt = errors.New("dispatchkubeflow: the submission's TrainJob was made by another attempt")

// RestartAfterOutcomeUnknown does what docs/errors.md says after a Start ended ErrOutcomeUnknown:
// it waits while Find answers InFlight (ResolveOutcomeUnknown), then, when the TrainJob is this
// attempt's (the create landed) or Absent, starts the same attempt again, which adopts the
// TrainJob or makes it anew, and answers that Start. Present with another attempt's token is
// ErrAnotherAttempt, and nothing is started.
func (c *Client) RestartAfterOutcomeUnknown(ctx context.Context, request StartRequest, poll time.Duration) (StartResult, error) {
	found, err := c.ResolveOutcomeUnknown(ctx, request, poll)
	if err != nil {
		return StartResult{}, err
	}
	if found.State == FindPresent && !found.ThisAttempt(request) {
		return StartResult{}, fmt.Errorf("%w: TrainJob %s/%s (uid %s) carries token %s, not attempt %d's",
			ErrAnotherAttempt, found.Ref.Namespace, found.Ref.Name, found.Ref.UID, found.AttemptToken, request.Attempt)
	}
	return c.Start(ctx, request)
}
