package dispatchkubeflow

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	commonpb "go.temporal.io/api/common/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
)

// fakeTemporal is a Temporal client that records what it is asked to start and list, and answers
// from tables: a run's result (JSON) or error by workflow id, a list by the query's beginning.
type fakeTemporal struct {
	client.Client
	mu      sync.Mutex
	started []startedCall
	queries []string
	answers map[string]string
	errors  map[string]error
	lists   map[string][]string
	// listSeq answers a query from its first entry, consumed, before lists does.
	listSeq  map[string][][]string
	startErr error
}

type startedCall struct {
	options      client.StartWorkflowOptions
	workflowType string
	args         []any
}

var _ client.Client = (*fakeTemporal)(nil)

func newFake() *fakeTemporal {
	return &fakeTemporal{answers: map[string]string{}, errors: map[string]error{}, lists: map[string][]string{}, listSeq: map[string][][]string{}}
}

func (f *fakeTemporal) ExecuteWorkflow(_ context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.started = append(f.started, startedCall{options: options, workflowType: workflow.(string), args: args})
	if f.startErr != nil {
		return nil, f.startErr
	}
	return f.run(options.ID, "run-1"), nil
}

func (f *fakeTemporal) GetWorkflow(_ context.Context, workflowID, runID string) client.WorkflowRun {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.run(workflowID, runID)
}

func (f *fakeTemporal) run(id, runID string) *fakeRun {
	return &fakeRun{id: id, runID: runID, answer: f.answers[id], err: f.errors[id]}
}

func (f *fakeTemporal) ListWorkflow(_ context.Context, request *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, request.GetQuery())
	var executions []*workflowpb.WorkflowExecutionInfo
	// A table's key is a prefix of the queries it answers (Find's second query holds the time).
	var ids []string
	for prefix, listed := range f.lists {
		if strings.HasPrefix(request.GetQuery(), prefix) {
			ids = listed
		}
	}
	for prefix, seq := range f.listSeq {
		if strings.HasPrefix(request.GetQuery(), prefix) && len(seq) > 0 {
			ids, f.listSeq[prefix] = seq[0], seq[1:]
		}
	}
	for _, id := range ids {
		executions = append(executions, &workflowpb.WorkflowExecutionInfo{Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: "run-of-" + id}})
	}
	return &workflowservice.ListWorkflowExecutionsResponse{Executions: executions}, nil
}

type fakeRun struct {
	id, runID, answer string
	err               error
}

func (r *fakeRun) GetID() string                  { return r.id }
func (r *fakeRun) GetRunID() string               { return r.runID }
func (r *fakeRun) GetFirstExecutionRunID() string { return r.runID }
func (r *fakeRun) Get(_ context.Context, valuePtr any) error {
	if r.err != nil {
		return r.err
	}
	if valuePtr == nil {
		return nil
	}
	return json.Unmarshal([]byte(r.answer), valuePtr)
}
func (r *fakeRun) GetWithOptions(ctx context.Context, valuePtr any, _ client.WorkflowRunGetOptions) error {
	return r.Get(ctx, valuePtr)
}

// fakeTrainJobs answers ReadTrainJob from a table by name.
type fakeTrainJobs map[string][2]string

func (f fakeTrainJobs) ReadTrainJob(_ context.Context, _ string, name string) (string, string, bool, error) {
	found, ok := f[name]
	return found[0], found[1], ok, nil
}
