package dispatchkubeflow_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	dk "github.com/phpboyscout/dispatch-kubeflow/go/dispatchkubeflow"
)

// Dial Temporal with the worker's codec, make a client for the worker's Kubernetes namespace, and
// run a job from Start to its outcome.
func Example() {
	dataConverter, err := dk.DataConverterFromEnv() // DISPATCH_CODEC_KEYS, as the worker; nil: plain JSON
	if err != nil {
		log.Fatal(err)
	}
	// dk.Dial is client.Dial that also gives the codec to the failure converter, so that the
	// details of the worker's typed failures (step, ref) are read.
	temporalClient, err := dk.Dial(client.Options{HostPort: "localhost:7233", DataConverter: dataConverter})
	if err != nil {
		log.Fatal(err)
	}
	defer temporalClient.Close()
	dispatch, err := dk.New(temporalClient, dk.Options{Namespace: "ml-jobs"})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	started, err := dispatch.Start(ctx, exampleRequest())
	if err != nil {
		log.Fatal(err)
	}
	if _, err := dispatch.Open(ctx, started.Ref); err != nil {
		log.Fatal(err)
	}
	outcome, err := dispatch.Watch(ctx, started.Ref)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(outcome.Phase)
}

func ExampleClient_Start() {
	dispatch := exampleClient() // dk.New on a dialled Temporal client
	started, err := dispatch.Start(context.Background(), exampleRequest())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(started.Ref.Namespace, started.Ref.Name, started.Mode)
	// Output: ml-jobs dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12 plain
}

// SubmitStart gives a handle at once; its ID finds the Start again later (StartHandle), and
// Cancel asks the workflow to stop (the Start then undoes what it made).
func ExampleClient_SubmitStart() {
	dispatch := exampleClient()
	ctx := context.Background()
	start, err := dispatch.SubmitStart(ctx, exampleRequest())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(start.ID())
	later, err := dispatch.StartHandle(ctx, start.ID())
	if err != nil {
		log.Fatal(err)
	}
	started, err := later.Get(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(started.Ref.UID)
	// Output:
	// start/ml-jobs/dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12/a1
	// 0b5b2c1e-1111-2222-3333-444455556666
}

func ExampleHandle_Cancel() {
	dispatch := exampleClient()
	ctx := context.Background()
	watch, err := dispatch.SubmitWatch(ctx, exampleRef)
	if err != nil {
		log.Fatal(err)
	}
	if err := watch.Cancel(ctx); err != nil {
		log.Fatal(err)
	}
	_, err = watch.Get(ctx)
	var cancelled *temporal.CanceledError
	fmt.Println(errors.As(err, &cancelled))
	// Output: true
}

func ExampleStartRequest_Validate() {
	request := exampleRequest()
	request.Spec.Nodes = 0
	request.Spec.TimeLimit = -time.Minute
	request.Spec.Extensions.Image = nil
	err := request.Validate() // the worker's reasons, every one at once
	var failure *dk.Error
	if errors.As(err, &failure) {
		fmt.Println(failure.Type, failure.Step)
		for _, reason := range failure.Reasons {
			fmt.Println(reason)
		}
	}
	// Output:
	// ErrInvalid 4
	// spec.nodes: fewer than one node
	// spec.timeLimit: negative time limit
	// spec.extensions.dispatch/Image: is required
}

func ExampleClient_Open() {
	state, err := exampleClient().Open(context.Background(), exampleRef)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(state.Phase, state.Held)
	// Output: Running false
}

func ExampleClient_Hold() {
	state, err := exampleClient().Hold(context.Background(), exampleRef)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(state.Phase, state.Held)
	// Output: Held true
}

func ExampleClient_Release() {
	state, err := exampleClient().Release(context.Background(), exampleRef)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(state.Phase, state.Held)
	// Output: Gated false
}

func ExampleClient_Stop() {
	state, err := exampleClient().Stop(context.Background(), exampleRef)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(state.Phase)
	// Output: Absent
}

func ExampleClient_Watch() {
	outcome, err := exampleClient().Watch(context.Background(), exampleRef)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(outcome.Phase, outcome.Reason, outcome.FinishedAt.Format(time.RFC3339))
	// Output: Succeeded AllJobsCompleted 2026-12-01T04:17:12Z
}

// A Watch, or any wait, whose context ends answers an error that is context.Canceled or
// context.DeadlineExceeded; the workflow goes on (Handle.Cancel stops it).
func ExampleClient_Watch_deadline() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, err := exampleClient().Watch(ctx, exampleRef)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output: true
}

func ExampleClient_Find() {
	dispatch := exampleClientWith(dk.Options{Namespace: "ml-jobs", TrainJobs: exampleCluster{}})
	request := exampleRequest()
	found, err := dispatch.Find(context.Background(), request.Job, request.Submission)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(found.State, found.Ref.Name, found.ThisAttempt(request))
	// Output: Present dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12 true
}

func ExampleClient_Capabilities() {
	capabilities, err := exampleClient().Capabilities(context.Background(), exampleRequest().Spec)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(capabilities.Runtime, capabilities.ProcsPerNode)
	// Output: ClusterTrainingRuntime/torch-distributed true
}

func ExampleClient_Probe() {
	gates, err := exampleClient().Probe(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(gates.Reach, gates.Write, gates.Start)
	// Output: true true true
}

// A typed failure is an *Error, matched with errors.Is (its type) and errors.As, however it was
// wrapped or joined; its type's CallerRetry says what the caller may do.
func ExampleError() {
	request := exampleRequest()
	request.Spec.Extensions.RuntimeRef.Name = "no-such-runtime"
	_, err := exampleClient().Start(context.Background(), request)
	err = errors.Join(errors.New("batch of one"), fmt.Errorf("starting %s: %w", request.Job, err))

	var failure *dk.Error
	if errors.Is(err, dk.ErrUnsupported) && errors.As(err, &failure) {
		fmt.Println(failure.Type, failure.Step, failure.Type.CallerRetry(), failure.Type.CallerRetry() == dk.GiveUp)
		fmt.Println(failure.Reasons[0])
	}
	// Output:
	// ErrUnsupported 2 no true
	// ClusterTrainingRuntime/no-such-runtime: not found
}

// A caller of a release installed by the Helm chart with its default task queue names the queue
// with the namespace: both come from the release.
func ExampleChartTaskQueue() {
	options := dk.Options{Namespace: "ml-jobs", TaskQueue: dk.ChartTaskQueue("ml-jobs")}
	fmt.Println(options.TaskQueue)
	// Output: dispatch-kubeflow-ml-jobs
}
