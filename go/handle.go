package dispatchkubeflow

import (
	"context"
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/client"
)

// Handle is a started workflow whose result is a T: Get waits for it.
type Handle[T any] struct {
	run client.WorkflowRun
}

// ID is the workflow's id.
func (h Handle[T]) ID() string { return h.run.GetID() }

// RunID is the run's id (for a call that attached to a running workflow, that run's).
func (h Handle[T]) RunID() string { return h.run.GetRunID() }

// Run is the Temporal SDK's handle.
func (h Handle[T]) Run() client.WorkflowRun { return h.run }

// Get waits for the result. A typed failure is an *Error; an answer that is not a T (a field
// missing or unknown) is an error too, as the TypeScript client's schema parse makes it.
func (h Handle[T]) Get(ctx context.Context) (T, error) {
	var result T
	var raw json.RawMessage
	if err := h.run.Get(ctx, &raw); err != nil {
		return result, Typed(err)
	}
	if err := decodeStrict(raw, &result); err != nil {
		return result, fmt.Errorf("dispatchkubeflow: workflow %s answered %s, which is not a %T: %w", h.run.GetID(), raw, result, err)
	}
	return result, nil
}
