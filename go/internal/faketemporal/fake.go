// Package faketemporal is a Temporal client for the client's tests and examples: it records what
// it is asked to start, list and cancel, and answers from tables (a run's result as JSON, or its
// error, by workflow id; a list by the query's beginning), or from a Worker function standing in
// for the worker.
package faketemporal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// Temporal is the fake client. Only the methods the dispatch-kubeflow client calls are implemented.
type Temporal struct {
	client.Client
	mu sync.Mutex
	// Started lists every ExecuteWorkflow, in order.
	Started []Call
	// Queries lists every ListWorkflow's query, in order.
	Queries []string
	// Cancelled lists every CancelWorkflow as "<workflow id> <run id>".
	Cancelled []string
	// Answers and Errors are each run's result (JSON) or error, by workflow id.
	Answers map[string]string
	Errors  map[string]error
	// Lists answers a query by a prefix of it; ListSeq answers from its first entry, consumed,
	// before Lists does.
	Lists   map[string][]string
	ListSeq map[string][][]string
	// StartErr is every ExecuteWorkflow's error when set.
	StartErr error
	// Worker answers a workflow when it is started and neither table has its id.
	Worker func(workflowType string, args []any) (answer any, err error)
}

// Call is one ExecuteWorkflow.
type Call struct {
	Options      client.StartWorkflowOptions
	WorkflowType string
	Args         []any
}

var _ client.Client = (*Temporal)(nil)

// New is an empty fake.
func New() *Temporal {
	return &Temporal{Answers: map[string]string{}, Errors: map[string]error{}, Lists: map[string][]string{}, ListSeq: map[string][][]string{}}
}

// ExecuteWorkflow records the call and answers a run of the workflow id.
func (f *Temporal) ExecuteWorkflow(_ context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	workflowType, _ := workflow.(string)
	f.Started = append(f.Started, Call{Options: options, WorkflowType: workflowType, Args: args})
	if f.StartErr != nil {
		return nil, f.StartErr
	}
	_, answered := f.Answers[options.ID]
	_, failed := f.Errors[options.ID]
	if f.Worker != nil && !answered && !failed {
		answer, err := f.Worker(workflowType, args)
		if err != nil {
			f.Errors[options.ID] = err
		} else {
			encoded, err := json.Marshal(answer)
			if err != nil {
				return nil, err
			}
			f.Answers[options.ID] = string(encoded)
		}
	}
	return &run{fake: f, id: options.ID, runID: "run-1"}, nil
}

// GetWorkflow is a run of the workflow id; its Get answers from the tables when it is called.
func (f *Temporal) GetWorkflow(_ context.Context, workflowID, runID string) client.WorkflowRun {
	return &run{fake: f, id: workflowID, runID: runID}
}

// CancelWorkflow records the request; the workflow's runs then answer a cancellation.
func (f *Temporal) CancelWorkflow(_ context.Context, workflowID, runID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Cancelled = append(f.Cancelled, workflowID+" "+runID)
	f.Errors[workflowID] = fmt.Errorf("workflow execution error (workflowID: %s): %w", workflowID, temporal.NewCanceledError())
	delete(f.Answers, workflowID)
	return nil
}

// ListWorkflow records the query and answers the executions its table lists.
func (f *Temporal) ListWorkflow(_ context.Context, request *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Queries = append(f.Queries, request.GetQuery())
	var ids []string
	for prefix, listed := range f.Lists {
		if strings.HasPrefix(request.GetQuery(), prefix) {
			ids = listed
		}
	}
	for prefix, seq := range f.ListSeq {
		if strings.HasPrefix(request.GetQuery(), prefix) && len(seq) > 0 {
			ids, f.ListSeq[prefix] = seq[0], seq[1:]
		}
	}
	var executions []*workflowpb.WorkflowExecutionInfo
	for _, id := range ids {
		executions = append(executions, &workflowpb.WorkflowExecutionInfo{Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "run-of-" + id}})
	}
	return &workflowservice.ListWorkflowExecutionsResponse{Executions: executions}, nil
}

type run struct {
	fake      *Temporal
	id, runID string
}

func (r *run) GetID() string                  { return r.id }
func (r *run) GetRunID() string               { return r.runID }
func (r *run) GetFirstExecutionRunID() string { return r.runID }

// Get answers as the SDK's long poll does: serviceerror.Canceled or DeadlineExceeded once the
// caller's context has ended, NotFound for a workflow never started, else the run's result or error.
func (r *run) Get(ctx context.Context, valuePtr any) error {
	switch ctx.Err() {
	case context.Canceled:
		return serviceerror.NewCanceled(ctx.Err().Error())
	case context.DeadlineExceeded:
		return serviceerror.NewDeadlineExceeded(ctx.Err().Error())
	}
	r.fake.mu.Lock()
	answer, answered := r.fake.Answers[r.id]
	err := r.fake.Errors[r.id]
	r.fake.mu.Unlock()
	switch {
	case err != nil:
		return err
	case !answered:
		return serviceerror.NewNotFoundf("workflow not found for ID: %s", r.id)
	case valuePtr == nil:
		return nil
	}
	return json.Unmarshal([]byte(answer), valuePtr)
}

func (r *run) GetWithOptions(ctx context.Context, valuePtr any, _ client.WorkflowRunGetOptions) error {
	return r.Get(ctx, valuePtr)
}
