package dispatchkubeflow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	dk "github.com/phpboyscout/dispatch-kubeflow/go/dispatchkubeflow"
	"github.com/phpboyscout/dispatch-kubeflow/go/internal/faketemporal"
)

// The examples run against a fake Temporal client whose stand-in worker answers each workflow as
// the worker of namespace ml-jobs answers a job that runs to completion.

const exampleUID = "0b5b2c1e-1111-2222-3333-444455556666"

var exampleRef = dk.TrainJobRef{Namespace: "ml-jobs", Name: dk.TrainJobName("01JD0Q3J0Y6Q7J7Z4W2X5V8K9M", 12), UID: exampleUID}

// exampleRequest is docs/contract.md §2's example.
func exampleRequest() dk.StartRequest {
	return dk.StartRequest{
		Job: "01JD0Q3J0Y6Q7J7Z4W2X5V8K9M", Generation: 3, Submission: 12, Attempt: 1,
		Spec: dk.JobSpec{
			Name:         "resnet50",
			Command:      []string{"python", "train.py", "--epochs", "10"},
			Env:          map[string]string{"LR": "0.1"},
			Nodes:        2,
			GPUsPerNode:  8,
			ProcsPerNode: 8,
			TimeLimit:    2*time.Hour + 30*time.Minute,
			Extensions: &dk.Extensions{
				Image:      &dk.ImageExtension{Ref: "ghcr.io/example/train:1.4"},
				RuntimeRef: &dk.RuntimeRefExtension{Kind: dk.ClusterTrainingRuntime, Name: "torch-distributed"},
			},
		},
	}
}

func exampleClient() *dk.Client { return exampleClientWith(dk.Options{Namespace: "ml-jobs"}) }

func exampleClientWith(options dk.Options) *dk.Client {
	fake := faketemporal.New()
	fake.Worker = exampleWorker
	dispatch, err := dk.New(fake, options)
	if err != nil {
		panic(err)
	}
	return dispatch
}

// exampleCluster holds the example's TrainJob, made by attempt 1.
type exampleCluster struct{}

func (exampleCluster) ReadTrainJob(_ context.Context, namespace, name string) (string, string, bool, error) {
	return exampleUID, dk.AttemptToken(namespace, name, 1), name == exampleRef.Name, nil
}

func exampleWorker(workflowType string, args []any) (any, error) {
	finished := time.Date(2026, 12, 1, 4, 17, 12, 0, time.UTC)
	ref, _ := firstArg(args).(dk.TrainJobRef)
	state := func(phase dk.Phase, held bool) dk.TrainJobState {
		return dk.TrainJobState{Ref: ref, Phase: phase, Held: held, Reasons: []string{}}
	}
	switch workflowType {
	case dk.WorkflowStart:
		request := args[0].(dk.StartRequest)
		runtime := request.Spec.Extensions.RuntimeRef
		if runtime.Name == "no-such-runtime" {
			return nil, workerRefusal(dk.ErrUnsupported, 2, fmt.Sprintf("%s/%s: not found", runtime.Kind, runtime.Name))
		}
		name := dk.TrainJobName(request.Job, request.Submission)
		return dk.StartResult{Ref: dk.TrainJobRef{Namespace: "ml-jobs", Name: name, UID: exampleUID}, RuntimeCopy: name, Mode: dk.ModePlain}, nil
	case dk.WorkflowOpen:
		return state(dk.PhaseRunning, false), nil
	case dk.WorkflowHold:
		return state(dk.PhaseHeld, true), nil
	case dk.WorkflowRelease:
		return state(dk.PhaseGated, false), nil
	case dk.WorkflowStop:
		return state(dk.PhaseAbsent, false), nil
	case dk.WorkflowWatch:
		return dk.Outcome{Ref: ref, Phase: dk.PhaseSucceeded, Reason: "AllJobsCompleted", Message: "jobs completed", FinishedAt: finished}, nil
	case dk.WorkflowCapabilities:
		var query struct {
			Spec struct {
				Extensions dk.Extensions `json:"extensions"`
			} `json:"spec"`
		}
		encoded, _ := json.Marshal(args[0])
		_ = json.Unmarshal(encoded, &query)
		runtime := query.Spec.Extensions.RuntimeRef
		return dk.Capabilities{Runtime: string(runtime.Kind) + "/" + runtime.Name, ProcsPerNode: true}, nil
	case dk.WorkflowProbe:
		return dk.BackendGates{Reach: true, Write: true, Start: true, Reasons: []string{}, CheckedAt: finished}, nil
	}
	return nil, fmt.Errorf("no workflow type %s", workflowType)
}

func firstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

// workerRefusal is a typed failure as a Temporal client receives it from the worker.
func workerRefusal(errorType dk.ErrorType, step int64, reason string) error {
	converter := temporal.GetDefaultFailureConverter()
	details := dk.FailureDetails{Reasons: []string{reason}, Step: step}
	thrown := temporal.NewNonRetryableApplicationError(reason, string(errorType), nil, details)
	return fmt.Errorf("workflow execution error: %w", converter.FailureToError(converter.ErrorToFailure(thrown)))
}
