package dispatchkubeflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"go.temporal.io/sdk/temporal"
)

// ErrorType is one of the six failure types of docs/errors.md. It is an error itself, so that
// errors.Is(err, ErrOutcomeUnknown) asks whether err is a typed failure of that type.
type ErrorType string

const (
	ErrInvalid        ErrorType = "ErrInvalid"
	ErrUnsupported    ErrorType = "ErrUnsupported"
	ErrRejected       ErrorType = "ErrRejected"
	ErrUnreachable    ErrorType = "ErrUnreachable"
	ErrReadOnly       ErrorType = "ErrReadOnly"
	ErrOutcomeUnknown ErrorType = "ErrOutcomeUnknown"
)

// ErrorTypes lists the six types.
var ErrorTypes = []ErrorType{ErrInvalid, ErrUnsupported, ErrRejected, ErrUnreachable, ErrReadOnly, ErrOutcomeUnknown}

func (t ErrorType) Error() string { return string(t) }

// Known is whether t is one of the six types.
func (t ErrorType) Known() bool {
	for _, known := range ErrorTypes {
		if t == known {
			return true
		}
	}
	return false
}

// CallerRetry says whether a caller may retry a failure of this type (docs/contract.md §6): "no",
// "yes", "later" or "with care".
func (t ErrorType) CallerRetry() string {
	switch t {
	case ErrUnreachable:
		return "yes"
	case ErrReadOnly:
		return "later"
	case ErrOutcomeUnknown:
		return "with care"
	default:
		return "no"
	}
}

var summaries = map[ErrorType]string{
	ErrInvalid:        "invalid start request",
	ErrUnsupported:    "not supported on Kubeflow",
	ErrRejected:       "rejected",
	ErrUnreachable:    "Kubernetes API unreachable",
	ErrReadOnly:       "backend is read-only",
	ErrOutcomeUnknown: "outcome unknown",
}

// Error is a typed failure of a dispatch-kubeflow workflow (or of this client's own check of a
// request, before anything is started): its type, every reason, the step of Start (0 for the
// operations after Start) and the TrainJob's ref when the failure names one.
//
//	var failure *dispatchkubeflow.Error
//	if errors.As(err, &failure) && failure.Type == dispatchkubeflow.ErrRejected { ... }
type Error struct {
	Type    ErrorType
	Reasons []string
	Step    int64
	Ref     *TrainJobRef
	// Cause is the Temporal error it was decoded from, if any.
	Cause error
}

// Error is the worker's message: "<summary>[ (TrainJob <ns>/<name>)]: <reason>; ...".
func (e *Error) Error() string { return FormatMessage(e.Type, e.Reasons, e.Ref) }

// Unwrap gives the Temporal error the failure was decoded from.
func (e *Error) Unwrap() error { return e.Cause }

// Is makes errors.Is(err, ErrOutcomeUnknown) (and each other type) true for a failure of that type.
func (e *Error) Is(target error) bool {
	t, ok := target.(ErrorType)
	return ok && t == e.Type
}

// Retryable is whether the caller may simply retry: ErrUnreachable only (docs/contract.md §6).
func (e *Error) Retryable() bool { return e.Type.CallerRetry() == "yes" }

// Details are the failure's details as the worker sends them.
func (e *Error) Details() FailureDetails {
	return FailureDetails{Reasons: append([]string{}, e.Reasons...), Step: e.Step, Ref: e.Ref}
}

// FormatMessage is the worker's message for a failure: the type's summary, the TrainJob when the
// failure names one, then every reason.
func FormatMessage(t ErrorType, reasons []string, ref *TrainJobRef) string {
	head := summaries[t]
	if ref != nil {
		head = fmt.Sprintf("%s (TrainJob %s/%s)", head, ref.Namespace, ref.Name)
	}
	if len(reasons) == 0 {
		return head
	}
	return head + ": " + strings.Join(reasons, "; ")
}

// IsRetryable is whether err is a typed failure the caller may simply retry (ErrUnreachable).
func IsRetryable(err error) bool {
	failure, ok := FromError(err)
	return ok && failure.Retryable()
}

// FromError finds the typed failure behind err: an *Error already, or the first Temporal
// ApplicationError in err's chain whose type is one of the six (a WorkflowExecutionError's cause,
// for a workflow that failed). Its details are read as the worker writes them (FailureDetails);
// details of another shape give the message as the one reason and step 0, as the TypeScript client does.
func FromError(err error) (*Error, bool) {
	for current := err; current != nil; current = errors.Unwrap(current) {
		if failure, ok := current.(*Error); ok {
			return failure, true
		}
		appErr, ok := current.(*temporal.ApplicationError)
		if !ok || !ErrorType(appErr.Type()).Known() {
			continue
		}
		failure := &Error{Type: ErrorType(appErr.Type()), Cause: err}
		var raw json.RawMessage
		if details, ok := decodeDetails(appErr, &raw); ok {
			failure.Reasons, failure.Step, failure.Ref = details.Reasons, details.Step, details.Ref
		} else {
			failure.Reasons = []string{appErr.Message()}
		}
		return failure, true
	}
	return nil, false
}

// Typed gives the typed failure behind err when there is one, err itself otherwise.
func Typed(err error) error {
	if failure, ok := FromError(err); ok {
		return failure
	}
	return err
}

func decodeDetails(appErr *temporal.ApplicationError, raw *json.RawMessage) (FailureDetails, bool) {
	if !appErr.HasDetails() || appErr.Details(raw) != nil {
		return FailureDetails{}, false
	}
	return parseFailureDetails(*raw)
}

// parseFailureDetails is isFailureDetails of src/model/errors.ts: reasons all strings, step a safe
// integer, ref absent or exactly {namespace, name, uid} of strings; other keys are let through.
func parseFailureDetails(raw []byte) (FailureDetails, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return FailureDetails{}, false
	}
	var details FailureDetails
	var reasons []json.RawMessage
	if !isArray(fields["reasons"]) || json.Unmarshal(fields["reasons"], &reasons) != nil {
		return FailureDetails{}, false
	}
	details.Reasons = make([]string, len(reasons))
	for i, reason := range reasons {
		if !isString(reason) || json.Unmarshal(reason, &details.Reasons[i]) != nil {
			return FailureDetails{}, false
		}
	}
	var step float64
	if !isNumber(fields["step"]) || json.Unmarshal(fields["step"], &step) != nil || step != math.Trunc(step) || math.Abs(step) > 1<<53-1 {
		return FailureDetails{}, false
	}
	details.Step = int64(step)
	if rawRef, present := fields["ref"]; present {
		var ref map[string]json.RawMessage
		if json.Unmarshal(rawRef, &ref) != nil || ref == nil || len(ref) != 3 {
			return FailureDetails{}, false
		}
		details.Ref = &TrainJobRef{}
		for key, into := range map[string]*string{"namespace": &details.Ref.Namespace, "name": &details.Ref.Name, "uid": &details.Ref.UID} {
			if json.Unmarshal(ref[key], into) != nil || !isString(ref[key]) {
				return FailureDetails{}, false
			}
		}
	}
	return details, true
}

func isArray(raw json.RawMessage) bool  { return bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) }
func isString(raw json.RawMessage) bool { return bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) }

func isNumber(raw json.RawMessage) bool {
	trimmed := bytes.TrimSpace(raw)
	return len(trimmed) > 0 && (trimmed[0] == '-' || (trimmed[0] >= '0' && trimmed[0] <= '9'))
}
