package dispatchkubeflow

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
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
	raw, err := os.ReadFile("../test/fixtures/requests/contract-example.json")
	if err != nil {
		t.Fatal(err)
	}
	var request StartRequest
	if err := decodeStrict(raw, &request); err != nil {
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

func TestResultsAreDecodedStrictly(t *testing.T) {
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
		{"an unknown field", `{"ref":` + ref + `,"phase":"Held","held":true,"reasons":[],"extra":1}`, &TrainJobState{}, "unknown field"},
		{"an Outcome for a TrainJobState", `{"ref":` + ref + `,"phase":"Failed","reason":"r","message":"m","finishedAt":"2026-12-01T04:17:12Z"}`, &TrainJobState{}, "unknown field"},
		{"an Outcome with an exit code", `{"ref":` + ref + `,"phase":"Failed","reason":"r","message":"m","exitCode":125,"finishedAt":"2026-12-01T04:17:12.5+01:00"}`, &Outcome{}, ""},
		{"gates without reasons", `{"reach":true,"write":true,"start":true,"checkedAt":"2026-12-01T04:17:12.000Z"}`, &BackendGates{}, "reasons: is required"},
		{"a StartResult", `{"ref":"ml-jobs/dj-x-s1","uid":"u","namespace":"ml-jobs","name":"dj-x-s1","runtimeCopy":"dj-x-s1","mode":"kueue"}`, &StartResult{}, ""},
	}
	for _, c := range cases {
		err := decodeStrict([]byte(c.json), c.into)
		if c.error == "" && err != nil {
			t.Errorf("%s: refused: %v", c.what, err)
		}
		if c.error != "" && (err == nil || !strings.Contains(err.Error(), c.error)) {
			t.Errorf("%s: want an error with %q, got %v", c.what, c.error, err)
		}
	}
}

func TestStartResultGivesTheRefTheOperationsTake(t *testing.T) {
	result := StartResult{Ref: "ml-jobs/dj-x-s1", UID: "u", Namespace: "ml-jobs", Name: "dj-x-s1"}
	if got := result.TrainJobRef(); got != (TrainJobRef{Namespace: "ml-jobs", Name: "dj-x-s1", UID: "u"}) {
		t.Errorf("got %+v", got)
	}
}
