package dispatchkubeflow

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/contract"
	"github.com/phpboyscout/dispatch-kubeflow/go/internal/faketemporal"
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
			if !errors.As(callError(t.Context(), err), &asError) || !errors.Is(callError(t.Context(), err), want.Type) {
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
		t      ErrorType
		advice RetryAdvice
		words  string
	}{{ErrInvalid, GiveUp, "no"}, {ErrUnsupported, GiveUp, "no"}, {ErrRejected, GiveUp, "no"}, {ErrUnreachable, Retry, "yes"}, {ErrReadOnly, RetryLater, "later"}, {ErrOutcomeUnknown, ResolveFirst, "with care"}} {
		if c.t.CallerRetry() != c.advice || c.advice.String() != c.words || IsRetryable(&Error{Type: c.t}) != (c.advice == Retry) {
			t.Errorf("%s: caller retry %v (%q), want %v (%q)", c.t, int(c.t.CallerRetry()), c.t.CallerRetry(), int(c.advice), c.words)
		}
	}
	if IsRetryable(errors.New("plain")) || IsRetryable(nil) {
		t.Error("an untyped error is retryable")
	}
	other := temporal.NewApplicationError("boom", "KubeUnanswered")
	if _, ok := FromError(fmt.Errorf("x: %w", other)); ok || callError(t.Context(), other) != other {
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
		if _, got := contract.ParseDetails([]byte(raw)); got != want {
			t.Errorf("%s: FailureDetails %v, want %v", raw, got, want)
		}
	}
}

func TestTheClientRefusesAMalformedIdentityOrRefBeforeStarting(t *testing.T) {
	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs"})
	_, err := dk.SubmitStart(t.Context(), StartRequest{Job: "not-a-ulid", Submission: 0, Attempt: -1})
	var failure *Error
	if !errors.As(err, &failure) || failure.Type != ErrInvalid || failure.Step != 4 || len(failure.Reasons) != 7 {
		t.Errorf("got %#v", err)
	}
	_, err = dk.Open(t.Context(), TrainJobRef{Namespace: "ML", Name: "a/b", UID: "x/y"})
	if !errors.As(err, &failure) || failure.Type != ErrInvalid || failure.Ref != nil || len(failure.Reasons) != 3 || !strings.Contains(failure.Error(), `uid: must not contain "/"`) {
		t.Errorf("got %#v", err)
	}
	if len(fake.Started) != 0 {
		t.Errorf("started %d workflows", len(fake.Started))
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

// A wait whose context ends answers an error errors.Is finds context.Canceled or
// context.DeadlineExceeded in, keeping the SDK's error beside it.
func TestAWaitWhoseContextEndsIsTheContextsError(t *testing.T) {
	fake := faketemporal.New()
	dk := mustNew(t, fake, Options{Namespace: "ml-jobs"})
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := dk.Watch(cancelled, testRef)
	var sdk *serviceerror.Canceled
	if !errors.Is(err, context.Canceled) || !errors.As(err, &sdk) {
		t.Errorf("a cancelled Watch: %v (%T)", err, err)
	}
	expired, stop := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer stop()
	_, err = dk.Start(expired, testRequest(1))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("a Start past its deadline: %v", err)
	}
	// The SDK's answer alone (the server's deadline, not the caller's context) is matched too.
	if err := callError(t.Context(), fmt.Errorf("polling: %w", serviceerror.NewDeadlineExceeded("deadline"))); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("serviceerror.DeadlineExceeded: %v", err)
	}
	if err := callError(t.Context(), errors.New("other")); errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an unrelated error taken for the context's: %v", err)
	}
}

// A typed failure is found in every shape an error takes: wrapped, joined, joined and wrapped, and
// matched by errors.Is (its type), errors.As (*Error, ErrorType, the ApplicationError it came from).
func TestTypedFailuresMatchInEveryShape(t *testing.T) {
	received := workerFailure(ErrUnreachable, FailureDetails{Reasons: []string{"no answer"}, Step: 1})
	typed := callError(t.Context(), received)
	for what, err := range map[string]error{
		"as received":        received,
		"typed":              typed,
		"wrapped":            fmt.Errorf("starting: %w", typed),
		"joined":             errors.Join(errors.New("first"), typed),
		"joined and wrapped": fmt.Errorf("batch: %w", errors.Join(errors.New("first"), fmt.Errorf("second: %w", typed))),
		"two %w":             fmt.Errorf("%w and %w", errors.New("first"), typed),
		// The SDK's error as received, joined: FromError reads it (errors.Is cannot: no call of
		// this client answers it untyped).
		"received, joined": errors.Join(errors.New("first"), received),
	} {
		failure, ok := FromError(err)
		if !ok || failure.Type != ErrUnreachable || failure.Step != 1 || !IsRetryable(err) {
			t.Errorf("%s: FromError %+v %v", what, failure, ok)
		}
		if strings.HasPrefix(what, "received") || what == "as received" {
			continue
		}
		var errorType ErrorType
		var appErr *temporal.ApplicationError
		if !errors.Is(err, ErrUnreachable) || errors.Is(err, ErrRejected) || !errors.As(err, &errorType) || errorType != ErrUnreachable || !errors.As(err, &appErr) {
			t.Errorf("%s: errors.Is / errors.As do not match %v", what, err)
		}
	}
}

// A Temporal client given the codec through client.Options.DataConverter alone reads a sealed
// failure's details not at all: FromError says so (ErrSealedDetails), rather than silently
// answering step 0 and no ref; Dial's options (and WithDataConverter's) read them.
func TestSealedDetailsWithoutTheFailureConverterAreReportedAndDialSetsIt(t *testing.T) {
	keys, err := ParseCodecKeys(loadVectors(t).Keys[CodecKeysEnv], "k1")
	if err != nil {
		t.Fatal(err)
	}
	dc := NewCodecDataConverter(keys)
	sealing := temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{DataConverter: dc})
	thrown := temporal.NewNonRetryableApplicationError("outcome unknown (TrainJob ns/n): no answer", string(ErrOutcomeUnknown), nil,
		FailureDetails{Reasons: []string{"no answer"}, Step: 6, Ref: &TrainJobRef{Namespace: "ns", Name: "n"}})
	failure := sealing.ErrorToFailure(thrown)

	usual := client.Options{DataConverter: dc} // the usual field alone: the SDK's default failure converter
	read := func(options client.Options) *Error {
		converter := options.FailureConverter
		if converter == nil {
			converter = temporal.GetDefaultFailureConverter()
		}
		got, ok := FromError(converter.FailureToError(failure))
		if !ok {
			t.Fatal("not a typed failure")
		}
		return got
	}
	if got := read(usual); !errors.Is(got, ErrSealedDetails) || got.Step != 0 || !strings.Contains(got.Error(), "Dial") {
		t.Errorf("sealed details not reported: %v (step %d)", got, got.Step)
	}
	for what, options := range map[string]client.Options{"Dial": dialOptions(usual), "WithDataConverter": WithDataConverter(client.Options{}, dc)} {
		if got := read(options); errors.Is(got, ErrSealedDetails) || got.Step != 6 || got.Ref == nil || got.Ref.Name != "n" {
			t.Errorf("%s: %v (step %d, ref %v)", what, got, got.Step, got.Ref)
		}
	}
	own := temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{})
	if kept := dialOptions(client.Options{DataConverter: dc, FailureConverter: own}); kept.FailureConverter != own {
		t.Error("Dial replaced a failure converter of the caller's")
	}
	if plain := dialOptions(client.Options{HostPort: "x"}); plain.FailureConverter != nil || plain.DataConverter != nil {
		t.Errorf("Dial without a codec changed the options: %+v", plain)
	}
}
