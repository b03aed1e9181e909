package dispatchkubeflow

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// testdata/go-encodings.json holds what this module sends the worker, as the SDK's JSON payload
// converter encodes it (json.Marshal): requests, a ref and a capabilities query built with the Go
// types. test/unit/contract/go-encodings.test.ts runs the worker's own validation on each, so the
// direction that matters most, a Go caller's JSON read by the worker, is checked by the worker's
// code. `go test -run GoEncodings -update` rewrites the file after a change of the types.

var update = flag.Bool("update", false, "rewrite testdata/go-encodings.json")

const encodingsFile = "../testdata/go-encodings.json"

type encoding struct {
	What string `json:"what"`
	// Kind says which of the worker's checks reads it: start, ref or capabilities.
	Kind string `json:"kind"`
	// Refused is the error type the worker must answer, empty when it must accept it.
	Refused ErrorType `json:"refused,omitempty"`
	// Reasons are Validate's (a StartRequest's) or TrainJobRef.Validate's: the worker must answer
	// exactly these, in this order.
	Reasons []string `json:"reasons,omitempty"`
	Value   any      `json:"json"`
}

func minimalRequest() StartRequest {
	return StartRequest{Job: "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", Submission: 1, Spec: JobSpec{
		Command: []string{"true"}, Nodes: 1,
		Extensions: &Extensions{Image: &ImageExtension{Ref: "img"}, RuntimeRef: &RuntimeRefExtension{Kind: ClusterTrainingRuntime, Name: "torch"}},
	}}
}

func goEncodings() []encoding {
	yes, no := true, false
	full := StartRequest{
		Job: "01JD0Q3J0Y6Q7J7Z4W2X5V8K9M", Generation: 18_000_000, Submission: 999_999, Attempt: 1 << 40,
		Spec: JobSpec{
			Name:         `résumé <&> "quoted"`,
			Command:      []string{"python", "-c", "print('<&>')", "ünïcode", ""},
			Env:          map[string]string{"B": "2", "A": "<&>", "EMPTY": ""},
			WorkDir:      "/workspace/a b",
			Nodes:        3,
			GPUsPerNode:  8,
			ProcsPerNode: 4,
			TimeLimit:    90*time.Minute + 250*time.Millisecond,
			Checkpoint:   "s3://bucket/ckpt",
			Recovery:     &Recovery{Policy: "requeue"},
			Extensions: &Extensions{
				Image:            &ImageExtension{Ref: "ghcr.io/example/train:1.4"},
				RuntimeRef:       &RuntimeRefExtension{Kind: TrainingRuntime, Name: "torch.v2"},
				SharedCheckpoint: &SharedCheckpointExtension{},
			},
		},
		Native: &Native{Requeue: &yes, Restart: &no},
	}
	unknown := minimalRequest()
	unknown.Spec.Extensions.Other = map[string]json.RawMessage{"acme/Thing": json.RawMessage(`{"a":1}`)}
	noNodes := minimalRequest()
	noNodes.Spec.Nodes = 0
	// Every problem Validate knows of, at once, and an unknown extension after them.
	everything := StartRequest{
		Job: "not-a-ulid", Generation: -1, Submission: 1_000_000, Attempt: -1,
		Spec: JobSpec{
			Command:      []string{"python", "a\x00b"},
			Env:          map[string]string{"1BAD": "x", "DISPATCH_K8S_X": "y", "a.b": "z", "NUL": "\x00", "__proto__": "p", "OK": "fine"},
			WorkDir:      "/w\x00",
			Nodes:        0,
			GPUsPerNode:  -1,
			ProcsPerNode: -2,
			TimeLimit:    -time.Second,
			Checkpoint:   "relative/path",
			Extensions: &Extensions{
				RuntimeRef: &RuntimeRefExtension{Kind: "Runtime", Name: "Not_A_Name"},
				Image:      &ImageExtension{},
				Other:      map[string]json.RawMessage{"acme/Thing": json.RawMessage(`{}`)},
			},
		},
	}
	tooMany := minimalRequest()
	tooMany.Spec.WorkDir = "/workspace"
	tooMany.Spec.Env = map[string]string{}
	for i := range envMaxWithWorkDir + 1 {
		tooMany.Spec.Env[fmt.Sprintf("V%03d", i)] = "x"
	}
	tooMany.Spec.Command = make([]string, commandMax+1)
	tooMany.Spec.Extensions = &Extensions{RuntimeRef: &RuntimeRefExtension{Kind: TrainingRuntime, Name: strings.Repeat("a", 254)}, Image: &ImageExtension{Ref: strings.Repeat("é", imageMaxLength+1)}}
	noExtensions := minimalRequest()
	noExtensions.Spec.Extensions = nil
	noExtensions.Spec.Command = nil
	return []encoding{
		{What: "a request with every field set, HTML characters and non-ASCII text", Kind: "start", Value: full},
		{What: "the least a request needs", Kind: "start", Value: minimalRequest()},
		{What: "an extension the worker does not know, kept in Extensions.Other", Kind: "start", Refused: ErrUnsupported, Value: unknown},
		{What: "no node count: Nodes is never omitted, so the worker names it", Kind: "start", Refused: ErrInvalid, Value: noNodes},
		{What: "every problem Validate knows, and an unknown extension", Kind: "start", Refused: ErrInvalid, Value: everything},
		{What: "too many command items and env entries, a long runtime name and image", Kind: "start", Refused: ErrInvalid, Value: tooMany},
		{What: "no extensions and no command", Kind: "start", Refused: ErrInvalid, Value: noExtensions},
		{What: "a malformed ref", Kind: "ref", Refused: ErrInvalid, Value: TrainJobRef{Namespace: "ML", Name: "a/b", UID: "x/y"}},
		{What: "a ref too long, without a uid", Kind: "ref", Refused: ErrInvalid, Value: TrainJobRef{Namespace: strings.Repeat("n", 64), Name: strings.Repeat("a", 254)}},
		{What: "a TrainJobRef", Kind: "ref", Value: TrainJobRef{Namespace: "ml-jobs", Name: "dj-01jd0q3j0y6q7j7z4w2x5v8k9m-s12", UID: "0b5b2c1e-1111-2222-3333-444455556666"}},
		{What: "a capabilities query (only what it reads)", Kind: "capabilities", Value: capabilitiesInput(full.Spec)},
	}
}

// withReasons fills each encoding's Reasons from the Go validation of its value.
func withReasons(encodings []encoding) []encoding {
	for i, e := range encodings {
		var err error
		switch value := e.Value.(type) {
		case StartRequest:
			err = value.Validate()
		case TrainJobRef:
			err = value.Validate()
		}
		if failure, ok := err.(*Error); ok {
			encodings[i].Reasons = failure.Reasons
		}
	}
	return encodings
}

func TestGoValidationRefusesWhatTheWorkerRefuses(t *testing.T) {
	for _, e := range withReasons(goEncodings()) {
		var got ErrorType
		switch value := e.Value.(type) {
		case StartRequest:
			if err := value.Validate(); err != nil {
				got = err.(*Error).Type
			}
		case TrainJobRef:
			if err := value.Validate(); err != nil {
				got = err.(*Error).Type
			}
		default:
			continue
		}
		if got != e.Refused {
			t.Errorf("%s: Validate answers %q, the worker %q", e.What, got, e.Refused)
		}
	}
}

func TestGoEncodingsAreCurrent(t *testing.T) {
	// Each value as the payload converter writes it, inside the file as JSON.
	var out bytes.Buffer
	out.WriteString("{\n  \"comment\": \"Written by go test -run GoEncodings -update (go/encodings_test.go); read by test/unit/contract/go-encodings.test.ts.\",\n  \"encodings\": [\n")
	encodings := withReasons(goEncodings())
	for i, e := range encodings {
		payload, err := json.Marshal(e.Value)
		if err != nil {
			t.Fatal(err)
		}
		head, err := json.Marshal(struct {
			What    string    `json:"what"`
			Kind    string    `json:"kind"`
			Refused ErrorType `json:"refused,omitempty"`
			Reasons []string  `json:"reasons,omitempty"`
		}{e.What, e.Kind, e.Refused, e.Reasons})
		if err != nil {
			t.Fatal(err)
		}
		separator := ",\n"
		if i == len(encodings)-1 {
			separator = "\n"
		}
		out.WriteString("    " + string(head[:len(head)-1]) + `,"json":` + string(payload) + "}" + separator)
	}
	out.WriteString("  ]\n}\n")
	if *update {
		if err := os.WriteFile(encodingsFile, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	onDisk, err := os.ReadFile(encodingsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, out.Bytes()) {
		t.Errorf("%s is stale: run go test -run GoEncodings -update\n%s", encodingsFile, out.Bytes())
	}
}
