package dispatchkubeflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/contract"
)

// ErrorType is one of the six failure types of docs/errors.md. It is an error itself, so that
// errors.Is(err, ErrOutcomeUnknown) asks whether err is a typed failure of that type, and
// errors.As(err, &errorType) reads the type of the typed failure in err.
type ErrorType string

const (
	ErrInvalid        ErrorType = "ErrInvalid"
	ErrUnsupported    ErrorType = "ErrUnsupported"
	ErrRejected       ErrorType = "ErrRejected"
	ErrUnreachable    ErrorType = "ErrUnreachable"
	ErrReadOnly       ErrorType = "ErrReadOnly"
	ErrOutcomeUnknown ErrorType = "ErrOutcomeUnknown"
)

// ErrorTypes lists the six types (a new slice each call).
func ErrorTypes() []ErrorType {
	return []ErrorType{ErrInvalid, ErrUnsupported, ErrRejected, ErrUnreachable, ErrReadOnly, ErrOutcomeUnknown}
}

func (t ErrorType) Error() string { return string(t) }

// Known is whether t is one of the six types.
func (t ErrorType) Known() bool { return slices.Contains(ErrorTypes(), t) }

// RetryAdvice is what a caller may do after a failure of a type (docs/contract.md §6, the "may
// the caller retry?" column); its String is that column's word.
type RetryAdvice int

const (
	// GiveUp: do not retry the same request (ErrInvalid, ErrUnsupported, ErrRejected); "no".
	GiveUp RetryAdvice = iota
	// Retry: retry the same request (ErrUnreachable: nothing was created); "yes".
	Retry
	// RetryLater: retry once writing is allowed (ErrReadOnly: the write gate or RBAC); "later".
	RetryLater
	// ResolveFirst: find out whether the TrainJob exists before retrying the same attempt
	// (ErrOutcomeUnknown: Client.ResolveOutcomeUnknown, Client.RestartAfterOutcomeUnknown); "with care".
	ResolveFirst
)

func (a RetryAdvice) String() string {
	switch a {
	case Retry:
		return "yes"
	case RetryLater:
		return "later"
	case ResolveFirst:
		return "with care"
	case GiveUp:
		return "no"
	default:
		return fmt.Sprintf("RetryAdvice(%d)", int(a))
	}
}

// CallerRetry is what a caller may do after a failure of this type (docs/contract.md §6).
func (t ErrorType) CallerRetry() RetryAdvice {
	switch t {
	case ErrUnreachable:
		return Retry
	case ErrReadOnly:
		return RetryLater
	case ErrOutcomeUnknown:
		return ResolveFirst
	default:
		return GiveUp
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
	// sealed: the details could not be opened (ErrSealedDetails).
	sealed bool
}

// Error is the worker's message: "<summary>[ (TrainJob <ns>/<name>)]: <reason>; ...".
func (e *Error) Error() string {
	var ref *[2]string
	if e.Ref != nil {
		ref = &[2]string{e.Ref.Namespace, e.Ref.Name}
	}
	message := contract.Message(summaries[e.Type], ref, e.Reasons)
	if e.sealed {
		message += " [" + ErrSealedDetails.Error() + "]"
	}
	return message
}

// Unwrap gives the Temporal error the failure was decoded from.
func (e *Error) Unwrap() error { return e.Cause }

// Is makes errors.Is(err, ErrOutcomeUnknown) (and each other type) true for a failure of that type.
func (e *Error) Is(target error) bool {
	t, ok := target.(ErrorType)
	return ok && t == e.Type
}

// As makes errors.As(err, &errorType) set an ErrorType to the failure's type.
func (e *Error) As(target any) bool {
	t, ok := target.(*ErrorType)
	if ok {
		*t = e.Type
	}
	return ok
}

// Retryable is whether the caller may simply retry: ErrUnreachable only (docs/contract.md §6).
func (e *Error) Retryable() bool { return e.Type.CallerRetry() == Retry }

// Details are the failure's details as the worker sends them.
func (e *Error) Details() FailureDetails {
	return FailureDetails{Reasons: append([]string{}, e.Reasons...), Step: e.Step, Ref: e.Ref}
}

// IsRetryable is whether err holds a typed failure the caller may simply retry (ErrUnreachable).
func IsRetryable(err error) bool {
	failure, ok := FromError(err)
	return ok && failure.Retryable()
}

// FromError finds the typed failure in err's tree, as errors.As searches it (through wrapping,
// errors.Join and every Unwrap): an *Error already, or the first Temporal ApplicationError whose
// type is one of the six (a WorkflowExecutionError's cause, for a workflow that failed). Its
// details are read as the worker writes them (FailureDetails); details of another shape give the
// message as the one reason and step 0, as the TypeScript client does.
func FromError(err error) (*Error, bool) {
	var found *Error
	walk(err, func(current error) bool {
		if failure, ok := current.(*Error); ok {
			found = failure
			return true
		}
		appErr, ok := current.(*temporal.ApplicationError)
		if !ok || !ErrorType(appErr.Type()).Known() {
			return false
		}
		found = &Error{Type: ErrorType(appErr.Type()), Cause: err}
		details, ok, sealed := decodeDetails(appErr)
		if sealed {
			found.sealed = true
			found.Cause = errors.Join(err, ErrSealedDetails)
		}
		if ok {
			found.Reasons, found.Step = details.Reasons, details.Step
			if details.Ref != nil {
				found.Ref = &TrainJobRef{Namespace: details.Ref[0], Name: details.Ref[1], UID: details.Ref[2]}
			}
		} else {
			found.Reasons = []string{appErr.Message()}
		}
		return true
	})
	return found, found != nil
}

// walk visits err's tree in errors.As's order (pre-order, depth first) until visit says stop.
func walk(err error, visit func(error) bool) bool {
	for err != nil {
		if visit(err) {
			return true
		}
		switch unwrap := err.(type) {
		case interface{ Unwrap() []error }:
			for _, inner := range unwrap.Unwrap() {
				if walk(inner, visit) {
					return true
				}
			}
			return false
		case interface{ Unwrap() error }:
			err = unwrap.Unwrap()
		default:
			return false
		}
	}
	return false
}

// callError is what a call made under ctx answers for err: the typed failure behind it when there
// is one; for a call cut short because ctx ended (the SDK answers serviceerror.Canceled or
// DeadlineExceeded), an error that errors.Is also finds context.Canceled or
// context.DeadlineExceeded in; err itself otherwise.
func callError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if failure, ok := FromError(err); ok {
		return failure
	}
	var canceled *serviceerror.Canceled
	var deadline *serviceerror.DeadlineExceeded
	cause := ctx.Err()
	switch {
	case cause == nil && errors.As(err, &canceled):
		cause = context.Canceled
	case cause == nil && errors.As(err, &deadline):
		cause = context.DeadlineExceeded
	}
	if cause == nil || errors.Is(err, cause) {
		return err
	}
	return fmt.Errorf("%w: %w", cause, err)
}

// decodeDetails reads a failure's details; sealed is whether they are encrypted payloads the
// Temporal client's failure converter could not open.
func decodeDetails(appErr *temporal.ApplicationError) (details contract.Details, ok, sealed bool) {
	var raw json.RawMessage
	if !appErr.HasDetails() {
		return contract.Details{}, false, false
	}
	if err := appErr.Details(&raw); err != nil {
		return contract.Details{}, false, errors.Is(err, converter.ErrEncodingIsNotSupported)
	}
	details, ok = contract.ParseDetails(raw)
	return details, ok, false
}

// ErrSealedDetails is in the error tree of a typed failure whose details came encrypted and could
// not be opened: the Temporal client was given the codec as its DataConverter but not as its
// failure converter's (client.Dial with client.Options.DataConverter alone). Such a failure has
// the message as its one reason, step 0 and no ref. Dial, or WithDataConverter, sets both.
var ErrSealedDetails = errors.New("dispatchkubeflow: the failure's details are encrypted and this Temporal client's failure converter cannot open them; dial with dispatchkubeflow.Dial or dispatchkubeflow.WithDataConverter, which give the codec to the failure converter too")
