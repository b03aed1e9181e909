// Command start-open-watch runs one job from Start to its outcome through dispatch-kubeflow's
// worker, with the Go client: StartTrainJob (the TrainJob's ref), OpenTrainJob (it now runs), then
// WatchTrainJob (Succeeded, Failed or Absent). A worker must be running on the task queue; see the
// module's README for the local stack.
//
// The connection comes from TEMPORAL_ADDRESS (default localhost:7233) and TEMPORAL_NAMESPACE
// (default "default"); K8S_NAMESPACE names the worker's Kubernetes namespace (default "dispatch"),
// DISPATCH_TASK_QUEUE its task queue (default "dispatch-kubeflow"); DISPATCH_CODEC_KEYS and
// DISPATCH_CODEC_KEY_ID turn on the payload codec, as on the worker.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	dk "github.com/phpboyscout/dispatch-kubeflow/go/dispatchkubeflow"
	"go.temporal.io/sdk/client"
)

func main() {
	runtime := flag.String("runtime", "ClusterTrainingRuntime/dispatch-torch", "the runtime, <Kind>/<name>")
	timeout := flag.Duration("timeout", 10*time.Minute, "how long to wait for the outcome")
	flag.Parse()
	if err := run(*runtime, *timeout); err != nil {
		var failure *dk.Error
		if errors.As(err, &failure) {
			fmt.Fprintf(os.Stderr, "%s at step %d (may retry: %s): %v\n", failure.Type, failure.Step, failure.Type.CallerRetry(), err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func env(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func run(runtime string, timeout time.Duration) error {
	kind, name, ok := strings.Cut(runtime, "/")
	if !ok || kind == "" || name == "" {
		return fmt.Errorf("-runtime %q is not <Kind>/<name>", runtime)
	}
	dataConverter, err := dk.DataConverterFromEnv()
	if err != nil {
		return err
	}
	// The codec (nil: plain JSON) for payloads and, through dk.Dial, for the failures' details.
	temporal, err := dk.Dial(client.Options{
		HostPort:      env("TEMPORAL_ADDRESS", "localhost:7233"),
		Namespace:     env("TEMPORAL_NAMESPACE", "default"),
		DataConverter: dataConverter,
	})
	if err != nil {
		return err
	}
	defer temporal.Close()
	dispatch, err := dk.New(temporal, dk.Options{Namespace: env("K8S_NAMESPACE", "dispatch"), TaskQueue: env("DISPATCH_TASK_QUEUE", "")})
	if err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	request := dk.StartRequest{
		Job: dk.RandomJobID(), Generation: 3, Submission: 12, Attempt: 1,
		Spec: dk.JobSpec{
			Name:        "resnet50",
			Command:     []string{"python", "train.py", "--epochs", "10"},
			Env:         map[string]string{"LR": "0.1"},
			Nodes:       2,
			GPUsPerNode: 8,
			TimeLimit:   2*time.Hour + 30*time.Minute,
			Extensions: &dk.Extensions{
				Image:      &dk.ImageExtension{Ref: "ghcr.io/example/train:1.4"},
				RuntimeRef: &dk.RuntimeRefExtension{Kind: dk.RuntimeKind(kind), Name: name},
			},
		},
	}
	if err := request.Validate(); err != nil {
		return err // every problem at once, as the worker would name them
	}
	start, err := dispatch.SubmitStart(ctx, request)
	if err != nil {
		return err
	}
	fmt.Printf("workflow %s\n", start.ID())
	started, err := start.Get(ctx)
	if err != nil {
		return err
	}
	ref := started.Ref
	fmt.Printf("  Start: TrainJob %s/%s (uid %s), mode %s\n", ref.Namespace, ref.Name, ref.UID, started.Mode)

	fmt.Printf("workflow %s\n", dk.OperationWorkflowID(dk.OpOpen, ref))
	opened, err := dispatch.Open(ctx, ref)
	if err != nil {
		return err
	}
	fmt.Printf("  Open: %s: %v\n", opened.Phase, opened.Reasons)

	watch, err := dispatch.SubmitWatch(ctx, ref)
	if err != nil {
		return err
	}
	fmt.Printf("workflow %s\n", watch.ID())
	outcome, err := watch.Get(ctx)
	if err != nil {
		return err
	}
	exit := ""
	if outcome.ExitCode != nil {
		exit = fmt.Sprintf(", exit code %d", *outcome.ExitCode)
	}
	if outcome.Cluster != "" {
		exit += fmt.Sprintf(", on worker cluster %s", outcome.Cluster)
	}
	fmt.Printf("  Watch: %s, %s%s, at %s\n", outcome.Phase, outcome.Reason, exit, outcome.FinishedAt.Format(time.RFC3339))
	return nil
}
