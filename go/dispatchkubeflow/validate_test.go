package dispatchkubeflow

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/faketemporal"
)

// One validation, every reason at once: Validate names each problem of a request, and the worker
// names the same ones (testdata/go-encodings.json holds Validate's reasons, and
// test/unit/contract/go-encodings.test.ts checks the worker answers exactly those).
func TestValidateNamesEveryProblemAtOnce(t *testing.T) {
	request := testRequest(1)
	request.Job, request.Attempt = "not-a-ulid", -1
	request.Spec.Command, request.Spec.Nodes, request.Spec.TimeLimit = nil, 0, -time.Minute
	request.Spec.Extensions.Image = nil
	err := request.Validate()
	var failure *Error
	if !errors.As(err, &failure) || failure.Type != ErrInvalid || failure.Step != 4 {
		t.Fatalf("got %v", err)
	}
	want := []string{
		"job: not a valid JobID", "attempt: negative attempt", "spec.command: no command", "spec.nodes: fewer than one node",
		"spec.timeLimit: negative time limit", "spec.extensions.dispatch/Image: is required",
	}
	if !slices.Equal(failure.Reasons, want) {
		t.Errorf("reasons\n%q\nwant\n%q", failure.Reasons, want)
	}
	if err := testRequest(1).Validate(); err != nil {
		t.Errorf("a valid request refused: %v", err)
	}
	unknown := testRequest(1)
	unknown.Spec.Extensions.Other = map[string]json.RawMessage{}
	if err := unknown.Validate(); err != nil {
		t.Errorf("an empty Other refused: %v", err)
	}
}

// Start refuses, before starting anything, a request whose workflow id cannot be built, naming
// every problem of it; one whose id can be built goes to the worker, which judges the rest.
func TestStartRefusesABadIdentityWithEveryReasonAndSendsTheRestToTheWorker(t *testing.T) {
	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs"})
	request := testRequest(1)
	request.Job, request.Spec.Nodes, request.Spec.Command = "not-a-ulid", 0, nil
	_, err := dk.Start(t.Context(), request)
	var failure *Error
	if !errors.As(err, &failure) || len(fake.Started) != 0 {
		t.Fatalf("got %v, started %d", err, len(fake.Started))
	}
	reasons := strings.Join(failure.Reasons, "\n")
	for _, want := range []string{"job:", "spec.nodes:", "spec.command:"} {
		if !strings.Contains(reasons, want) {
			t.Errorf("no %q among %q", want, reasons)
		}
	}
	request = testRequest(1)
	request.Spec.Nodes = 0
	if _, err := dk.SubmitStart(t.Context(), request); err != nil || len(fake.Started) != 1 {
		t.Errorf("a request with a valid identity was not sent: %v", err)
	}
}
