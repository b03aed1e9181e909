package dispatchkubeflow

import (
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

// The failures of testdata/contract.json are toApplicationFailure's (src/model/error-failures.ts) through
// the TypeScript SDK's failure converter: the Failure protobuf as it crosses Temporal, and what the
// TypeScript client's fromFailure reads from it.
type recordedFailure struct {
	What    string `json:"what"`
	Failure string `json:"failure"`
	Typed   *struct {
		Type              ErrorType    `json:"type"`
		Message           string       `json:"message"`
		Reasons           []string     `json:"reasons"`
		Step              int64        `json:"step"`
		Ref               *TrainJobRef `json:"ref"`
		RetryableByCaller bool         `json:"retryableByCaller"`
	} `json:"typed"`
}

// asReceived is the error a Go caller gets for the failure: the SDK's conversion of the protobuf,
// wrapped as a failed workflow's error wraps its cause.
func asReceived(t *testing.T, encoded string) error {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatal(err)
	}
	failure := &failurepb.Failure{}
	if err := proto.Unmarshal(raw, failure); err != nil {
		t.Fatal(err)
	}
	return fmt.Errorf("workflow execution error (type: StartTrainJob): %w", temporal.GetDefaultFailureConverter().FailureToError(failure))
}

func TestFailuresDecodeAsTheTypeScriptClientDecodesThem(t *testing.T) {
	failures := loadContract(t).Failures
	if len(failures) < 8 {
		t.Fatalf("only %d recorded failures", len(failures))
	}
	for _, c := range failures {
		t.Run(c.What, func(t *testing.T) {
			err := asReceived(t, c.Failure)
			got, ok := FromError(err)
			if c.Typed == nil {
				if ok {
					t.Errorf("not a typed failure, but decoded as %+v", got)
				}
				return
			}
			if !ok {
				t.Fatalf("not decoded: %v", err)
			}
			want := c.Typed
			if got.Type != want.Type || got.Step != want.Step || !reflect.DeepEqual(got.Ref, want.Ref) {
				t.Errorf("got type %s step %d ref %+v; TypeScript %s %d %+v", got.Type, got.Step, got.Ref, want.Type, want.Step, want.Ref)
			}
			if !reflect.DeepEqual(append([]string{}, got.Reasons...), append([]string{}, want.Reasons...)) {
				t.Errorf("reasons %q; TypeScript %q", got.Reasons, want.Reasons)
			}
			if got.Error() != want.Message {
				t.Errorf("message %q; TypeScript %q", got.Error(), want.Message)
			}
			if got.Retryable() != want.RetryableByCaller || IsRetryable(err) != want.RetryableByCaller {
				t.Errorf("retryable %v; TypeScript %v", got.Retryable(), want.RetryableByCaller)
			}
			var asError *Error
			if !errors.As(Typed(err), &asError) || !errors.Is(Typed(err), want.Type) {
				t.Errorf("errors.As / errors.Is do not find the %s", want.Type)
			}
			var appErr *temporal.ApplicationError
			if !errors.As(got, &appErr) || appErr.Type() != string(want.Type) {
				t.Errorf("the typed error does not unwrap to the ApplicationError it came from")
			}
		})
	}
}

func TestErrorsIsAsAndRetryable(t *testing.T) {
	base := &Error{Type: ErrOutcomeUnknown, Reasons: []string{"no answer"}, Step: 6, Ref: &TrainJobRef{Namespace: "ns", Name: "n"}}
	wrapped := fmt.Errorf("starting: %w", base)
	if !errors.Is(wrapped, ErrOutcomeUnknown) || errors.Is(wrapped, ErrRejected) {
		t.Error("errors.Is does not tell the type")
	}
	var got *Error
	if !errors.As(wrapped, &got) || got.Step != 6 {
		t.Error("errors.As does not find the *Error")
	}
	if got.Error() != "outcome unknown (TrainJob ns/n): no answer" {
		t.Errorf("message %q", got.Error())
	}
	for _, c := range []struct {
		t     ErrorType
		retry string
	}{{ErrInvalid, "no"}, {ErrUnsupported, "no"}, {ErrRejected, "no"}, {ErrUnreachable, "yes"}, {ErrReadOnly, "later"}, {ErrOutcomeUnknown, "with care"}} {
		if c.t.CallerRetry() != c.retry || IsRetryable(&Error{Type: c.t}) != (c.retry == "yes") {
			t.Errorf("%s: caller retry %q, want %q", c.t, c.t.CallerRetry(), c.retry)
		}
	}
	if IsRetryable(errors.New("plain")) || IsRetryable(nil) {
		t.Error("an untyped error is retryable")
	}
	other := temporal.NewApplicationError("boom", "KubeUnanswered")
	if _, ok := FromError(fmt.Errorf("x: %w", other)); ok || Typed(other) != other {
		t.Error("a failure of another type was taken as typed")
	}
}

func TestFailureDetailsAreCheckedAsTheWorkerChecksThem(t *testing.T) {
	cases := map[string]bool{
		`{"reasons":["a"],"step":4}`: true,
		`{"reasons":[],"step":0,"ref":{"namespace":"n","name":"m","uid":""},"extra":1}`: true,
		`{"reasons":["a"],"step":4.5}`:                                       false,
		`{"reasons":["a"],"step":null}`:                                      false,
		`{"reasons":["a"]}`:                                                  false,
		`{"reasons":[null],"step":1}`:                                        false,
		`{"reasons":"a","step":1}`:                                           false,
		`{"reasons":[],"step":1,"ref":null}`:                                 false,
		`{"reasons":[],"step":1,"ref":{"namespace":"n","name":"m"}}`:         false,
		`{"reasons":[],"step":1,"ref":{"namespace":"n","name":"m","uid":1}}`: false,
		`["a"]`:  false,
		`null`:   false,
		`"text"`: false,
	}
	for raw, want := range cases {
		if _, got := parseFailureDetails([]byte(raw)); got != want {
			t.Errorf("%s: FailureDetails %v, want %v", raw, got, want)
		}
	}
}

func TestTheClientRefusesAMalformedIdentityOrRefBeforeStarting(t *testing.T) {
	fake := newFake()
	dk := New(fake, Options{Namespace: "ml-jobs"})
	_, err := dk.SubmitStart(t.Context(), StartRequest{Job: "not-a-ulid", Submission: 0, Attempt: -1})
	var failure *Error
	if !errors.As(err, &failure) || failure.Type != ErrInvalid || failure.Step != 4 || len(failure.Reasons) != 3 {
		t.Errorf("got %#v", err)
	}
	_, err = dk.Open(t.Context(), TrainJobRef{Namespace: "ML", Name: "a/b", UID: "x/y"})
	if !errors.As(err, &failure) || failure.Type != ErrInvalid || failure.Ref != nil || len(failure.Reasons) != 3 || !strings.Contains(failure.Error(), `uid: must not contain "/"`) {
		t.Errorf("got %#v", err)
	}
	if len(fake.started) != 0 {
		t.Errorf("started %d workflows", len(fake.started))
	}
}

// The worker's codec seals a failure's details as it seals every payload. A Temporal client given
// the codec through WithDataConverter reads them: each recorded failure, its details sealed, decodes
// to what the TypeScript client reads from it.
func TestSealedFailureDetailsDecodeThroughWithDataConverter(t *testing.T) {
	keys, err := ParseCodecKeys(loadVectors(t).Keys[CodecKeysEnv], "k1")
	if err != nil {
		t.Fatal(err)
	}
	dc := NewCodecDataConverter(keys)
	options := WithDataConverter(client.Options{HostPort: "temporal:7233"}, dc)
	if options.HostPort != "temporal:7233" || options.DataConverter != dc || options.FailureConverter == nil {
		t.Fatalf("options %+v", options)
	}
	if off := WithDataConverter(client.Options{HostPort: "temporal:7233"}, nil); off.DataConverter != nil || off.FailureConverter != nil {
		t.Errorf("the codec off changed the options: %+v", off)
	}
	codec := NewEncryptionCodec(keys)
	checked := 0
	for _, c := range loadContract(t).Failures {
		if c.Typed == nil {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(c.Failure)
		if err != nil {
			t.Fatal(err)
		}
		failure := &failurepb.Failure{}
		if err := proto.Unmarshal(raw, failure); err != nil {
			t.Fatal(err)
		}
		details := failure.GetApplicationFailureInfo().GetDetails()
		if len(details.GetPayloads()) == 0 {
			continue // nothing to seal: read from the message alone, with or without the codec
		}
		sealed, err := codec.Encode(details.GetPayloads())
		if err != nil || !IsEncrypted(sealed[0]) {
			t.Fatalf("%s: details not sealed: %v", c.What, err)
		}
		details.Payloads = sealed
		got, ok := FromError(options.FailureConverter.FailureToError(failure))
		if !ok || got.Type != c.Typed.Type || got.Step != c.Typed.Step || !reflect.DeepEqual(got.Ref, c.Typed.Ref) || !reflect.DeepEqual(got.Reasons, c.Typed.Reasons) {
			t.Errorf("%s: decoded %+v; TypeScript %+v", c.What, got, c.Typed)
		}
		checked++
	}
	if checked < 6 {
		t.Errorf("only %d typed failures checked", checked)
	}
}
