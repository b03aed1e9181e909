package dispatchkubeflow

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/faketemporal"
	"github.com/phpboyscout/dispatch-kubeflow/go/internal/wire"
)

// jsonEqual is whether two JSON texts hold the same value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestContractExampleRequestRoundTrips(t *testing.T) {
	// docs/contract.md §2's example, as the TypeScript tests validate and render it.
	raw, err := os.ReadFile("../../test/fixtures/requests/contract-example.json")
	if err != nil {
		t.Fatal(err)
	}
	var request StartRequest
	if err := wire.DecodeStrict(raw, &request); err != nil {
		t.Fatalf("the example does not decode strictly: %v", err)
	}
	if request.Spec.Extensions == nil || request.Spec.Extensions.Image == nil || request.Spec.Extensions.RuntimeRef == nil || request.Spec.Extensions.SharedCheckpoint == nil {
		t.Fatalf("the three extensions were not read into their types: %+v", request.Spec.Extensions)
	}
	if request.Spec.Extensions.RuntimeRef.Kind != ClusterTrainingRuntime || request.Spec.Extensions.Image.Ref != "ghcr.io/example/train:1.4" {
		t.Errorf("extensions read wrongly: %+v %+v", request.Spec.Extensions.RuntimeRef, request.Spec.Extensions.Image)
	}
	again, err := json.Marshal(request)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(t, raw, again) {
		t.Errorf("the example re-encodes differently:\n%s\n%s", raw, again)
	}
}

func TestExtensionsKeepAnUnknownKeyAndRefuseAnUnknownField(t *testing.T) {
	raw := []byte(`{"dispatch/Image":{"ref":"img"},"acme/Thing":{"a":[1,2]},"kubeflow/RuntimeRef":{"kind":"TrainingRuntime","name":"t"}}`)
	var extensions Extensions
	if err := json.Unmarshal(raw, &extensions); err != nil {
		t.Fatal(err)
	}
	if string(extensions.Other["acme/Thing"]) != `{"a":[1,2]}` || extensions.SharedCheckpoint != nil {
		t.Errorf("read %+v", extensions)
	}
	again, _ := json.Marshal(extensions)
	if !jsonEqual(t, raw, again) {
		t.Errorf("re-encoded as %s", again)
	}
	err := json.Unmarshal([]byte(`{"dispatch/Image":{"ref":"img","tag":"x"}}`), &extensions)
	if err == nil || !strings.Contains(err.Error(), "spec.extensions.dispatch/Image") {
		t.Errorf("an unknown field inside dispatch/Image was not refused: %v", err)
	}
}

func TestOptionalFieldsAreOmittedAsTheWorkerReadsThemUnset(t *testing.T) {
	request := StartRequest{Job: "01JD0Q3J0Y6Q7J7Z4W2X5V8K9M", Submission: 1, Spec: JobSpec{Command: []string{"true"}, Nodes: 1}}
	got, _ := json.Marshal(request)
	want := `{"job":"01JD0Q3J0Y6Q7J7Z4W2X5V8K9M","generation":0,"submission":1,"attempt":0,"spec":{"command":["true"],"nodes":1}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestResultsAreReadTolerantlyAndRequestsStrictly(t *testing.T) {
	ref := `{"namespace":"ml-jobs","name":"dj-x-s1","uid":"u"}`
	cases := []struct {
		what  string
		json  string
		into  any
		error string
	}{
		{"a TrainJobState", `{"ref":` + ref + `,"phase":"Held","held":true,"reasons":[]}`, &TrainJobState{}, ""},
		{"a field missing", `{"ref":` + ref + `,"phase":"Held","reasons":[]}`, &TrainJobState{}, "held: is required"},
		{"a field of the ref missing", `{"ref":{"namespace":"ml-jobs","name":"x"},"phase":"Held","held":true,"reasons":[]}`, &TrainJobState{}, "ref.uid: is required"},
		{"reasons null", `{"ref":` + ref + `,"phase":"Held","held":true,"reasons":null}`, &TrainJobState{}, "reasons: is required"},
		// A newer worker's field (docs/contract.md §10): ignored, at any depth.
		{"a field added by a newer worker", `{"ref":{"namespace":"ml-jobs","name":"dj-x-s1","uid":"u","zone":"east"},"phase":"Held","held":true,"reasons":[],"zone":"east"}`, &TrainJobState{}, ""},
		{"a TrainJobState with its MultiKueue cluster", `{"ref":` + ref + `,"phase":"Running","held":false,"reasons":[],"cluster":"worker-1"}`, &TrainJobState{}, ""},
		{"an Outcome with its MultiKueue cluster", `{"ref":` + ref + `,"phase":"Succeeded","reason":"r","message":"m","finishedAt":"2026-12-01T04:17:12Z","cluster":"worker-1"}`, &Outcome{}, ""},
		{"an Outcome for a TrainJobState", `{"ref":` + ref + `,"phase":"Failed","reason":"r","message":"m","finishedAt":"2026-12-01T04:17:12Z"}`, &TrainJobState{}, "held: is required"},
		{"an Outcome with an exit code", `{"ref":` + ref + `,"phase":"Failed","reason":"r","message":"m","exitCode":125,"finishedAt":"2026-12-01T04:17:12.5+01:00"}`, &Outcome{}, ""},
		{"gates without reasons", `{"reach":true,"write":true,"start":true,"checkedAt":"2026-12-01T04:17:12.000Z"}`, &BackendGates{}, "reasons: is required"},
		{"a StartResult", `{"ref":"ml-jobs/dj-x-s1","uid":"u","namespace":"ml-jobs","name":"dj-x-s1","runtimeCopy":"dj-x-s1","mode":"kueue"}`, &startResultJSON{}, ""},
		{"a StartResult without its uid", `{"ref":"ml-jobs/dj-x-s1","namespace":"ml-jobs","name":"dj-x-s1","runtimeCopy":"dj-x-s1","mode":"kueue"}`, &startResultJSON{}, "uid: is required"},
	}
	for _, c := range cases {
		err := wire.DecodeResult([]byte(c.json), c.into)
		if c.error == "" && err != nil {
			t.Errorf("%s: refused: %v", c.what, err)
		}
		if c.error != "" && (err == nil || !strings.Contains(err.Error(), c.error)) {
			t.Errorf("%s: want an error with %q, got %v", c.what, c.error, err)
		}
	}
	// A request stays strict: the worker refuses an unknown field, and so does a Go reading.
	var request StartRequest
	raw := `{"job":"01JD0Q3J0Y6Q7J7Z4W2X5V8K9M","generation":0,"submission":1,"attempt":0,"spec":{"command":["true"],"nodes":1,"gpus":8}}`
	if err := wire.DecodeStrict([]byte(raw), &request); err == nil || !strings.Contains(err.Error(), `unknown field "gpus"`) {
		t.Errorf("a request with an unknown spec field: %v", err)
	}
}

// Today's client reading what a newer worker answers: every result with a field added, through
// Handle.Get as a caller receives it.
func TestEveryResultWithAnAddedFieldIsRead(t *testing.T) {
	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs", TrainJobs: fakeTrainJobs{}})
	refJSON := `{"namespace":"ml-jobs","name":"` + testRef.Name + `","uid":"0b5b2c1e","zone":"east"}`
	fake.Answers[StartWorkflowID("ml-jobs", testRef.Name, 1)] = `{"ref":"ml-jobs/` + testRef.Name + `","uid":"0b5b2c1e","namespace":"ml-jobs","name":"` + testRef.Name + `","runtimeCopy":"c","mode":"plain","startedAt":"2027-01-01T00:00:00Z"}`
	fake.Answers[OperationWorkflowID(OpOpen, testRef)] = `{"ref":` + refJSON + `,"phase":"Running","held":false,"reasons":[],"cluster":"east","zone":"east"}`
	fake.Answers[OperationWorkflowID(OpWatch, testRef)] = `{"ref":` + refJSON + `,"phase":"Succeeded","reason":"AllJobsCompleted","message":"","finishedAt":"2026-12-01T04:17:12Z","cluster":"east","attempts":1}`
	fake.Answers[ProbeWorkflowID("ml-jobs")] = `{"reach":true,"write":true,"start":true,"reasons":[],"checkedAt":"2026-12-01T04:17:12Z","multiKueue":false}`
	fake.Worker = func(string, []any) (any, error) {
		return map[string]any{"runtime": "ClusterTrainingRuntime/torch", "procsPerNode": true, "gpuKinds": []string{"a100"}}, nil
	}
	if got, err := dk.Start(t.Context(), testRequest(1)); err != nil || got.Ref != testRef {
		t.Errorf("Start: %+v %v", got, err)
	}
	if got, err := dk.Open(t.Context(), testRef); err != nil || got.Phase != PhaseRunning || got.Cluster != "east" {
		t.Errorf("Open: %+v %v", got, err)
	}
	if got, err := dk.Watch(t.Context(), testRef); err != nil || got.Phase != PhaseSucceeded || got.Cluster != "east" {
		t.Errorf("Watch: %+v %v", got, err)
	}
	if got, err := dk.Probe(t.Context()); err != nil || !got.Start {
		t.Errorf("Probe: %+v %v", got, err)
	}
	if got, err := dk.Capabilities(t.Context(), JobSpec{}); err != nil || !got.ProcsPerNode {
		t.Errorf("Capabilities: %+v %v", got, err)
	}
}

func TestStartResultReadsAndWritesTheWorkersShape(t *testing.T) {
	raw := []byte(`{"ref":"ml-jobs/dj-x-s1","uid":"u","namespace":"ml-jobs","name":"dj-x-s1","runtimeCopy":"dj-x-s1","mode":"kueue","weakened":"w"}`)
	var result StartResult
	if err := json.Unmarshal(raw, &result); err != nil {
		t.Fatal(err)
	}
	want := StartResult{Ref: TrainJobRef{Namespace: "ml-jobs", Name: "dj-x-s1", UID: "u"}, RuntimeCopy: "dj-x-s1", Mode: ModeKueue, Weakened: "w"}
	if result != want {
		t.Errorf("read %+v", result)
	}
	again, err := json.Marshal(result)
	if err != nil || !jsonEqual(t, raw, again) {
		t.Errorf("written as %s (%v)", again, err)
	}
}

func TestTimeLimitIsSentAsTheShortestGoDuration(t *testing.T) {
	for limit, want := range map[time.Duration]string{
		0: "", 2*time.Hour + 30*time.Minute: "2h30m", time.Hour: "1h", 90 * time.Minute: "1h30m", 45 * time.Second: "45s",
		time.Hour + 5*time.Second: "1h0m5s", 1500 * time.Millisecond: "1.5s", 30 * time.Minute: "30m", -time.Minute: "-1m",
	} {
		encoded, err := json.Marshal(JobSpec{Command: []string{"x"}, Nodes: 1, TimeLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		_ = json.Unmarshal(encoded, &fields)
		got, _ := fields["timeLimit"].(string)
		if got != want {
			t.Errorf("%v sent as %q, want %q", limit, got, want)
		}
		var back JobSpec
		if err := json.Unmarshal(encoded, &back); err != nil || back.TimeLimit != limit {
			t.Errorf("%s read back as %v (%v)", encoded, back.TimeLimit, err)
		}
	}
}
