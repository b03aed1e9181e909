package dispatchkubeflow

import (
	"context"
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/wire"
)

// Handle is a started workflow whose result is a T: Get waits for it, Cancel asks the workflow to
// stop.
type Handle[T any] struct {
	temporal client.Client
	run      client.WorkflowRun
}

// ID is the workflow's id.
func (h Handle[T]) ID() string { return h.run.GetID() }

// RunID is the run's id (for a call that attached to a running workflow, that run's; "" for a
// handle got by id, which follows the latest run).
func (h Handle[T]) RunID() string { return h.run.GetRunID() }

// Run is the Temporal SDK's handle.
func (h Handle[T]) Run() client.WorkflowRun { return h.run }

// Get waits for the result. A typed failure is an *Error; a cancelled workflow a
// *temporal.CanceledError. When ctx ends first, the error matches context.Canceled or
// context.DeadlineExceeded with errors.Is (the workflow goes on: Cancel stops it). The result is
// read tolerantly: a field this client does not know (a newer worker's) is ignored, and a field
// the contract requires that is missing is an error, as the TypeScript client's parse makes it.
func (h Handle[T]) Get(ctx context.Context) (T, error) {
	var result T
	var raw json.RawMessage
	if err := h.run.Get(ctx, &raw); err != nil {
		return result, callError(ctx, err)
	}
	var err error
	if shaped, ok := any(result).(interface{ wireShape() any }); ok {
		if err = wire.DecodeResult(raw, shaped.wireShape()); err == nil {
			err = json.Unmarshal(raw, &result)
		}
	} else {
		err = wire.DecodeResult(raw, &result)
	}
	if err != nil {
		return result, fmt.Errorf("dispatchkubeflow: workflow %s answered %s, which is not a %T: %w", h.run.GetID(), raw, result, err)
	}
	return result, nil
}

// Cancel asks Temporal to cancel the workflow (its run, or the latest run for a handle got by id):
// a Start then undoes what it made, a Watch ends; Get answers a *temporal.CanceledError. It does
// not wait for the workflow to end.
func (h Handle[T]) Cancel(ctx context.Context) error {
	return callError(ctx, h.temporal.CancelWorkflow(ctx, h.run.GetID(), h.run.GetRunID()))
}
