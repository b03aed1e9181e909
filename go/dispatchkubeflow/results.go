package dispatchkubeflow

import (
	"encoding/json"
	"time"
)

// Mode is how a Start ran: plain, or through Kueue.
type Mode string

const (
	ModePlain Mode = "plain"
	ModeKueue Mode = "kueue"
)

// Modes lists every Mode (a new slice each call).
func Modes() []Mode { return []Mode{ModePlain, ModeKueue} }

// StartResult is what a successful StartTrainJob answers (docs/schema/start-result.schema.json).
type StartResult struct {
	// Ref is the TrainJob the Start made: what the operations after Start take.
	Ref TrainJobRef
	// RuntimeCopy is the runtime copy's name (the TrainJob's).
	RuntimeCopy string
	Mode        Mode
	// Weakened is the identity warning, set only when allowRankRestart waived a rule.
	Weakened string
}

// startResultJSON is StartResult on the wire: the ref as "<namespace>/<name>", and the ref's three
// fields beside it.
type startResultJSON struct {
	Ref         string `json:"ref"`
	UID         string `json:"uid"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	RuntimeCopy string `json:"runtimeCopy"`
	Mode        Mode   `json:"mode"`
	Weakened    string `json:"weakened,omitempty"`
}

// MarshalJSON writes the result as the worker does.
func (r StartResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(startResultJSON{
		Ref: r.Ref.Namespace + "/" + r.Ref.Name, UID: r.Ref.UID, Namespace: r.Ref.Namespace, Name: r.Ref.Name,
		RuntimeCopy: r.RuntimeCopy, Mode: r.Mode, Weakened: r.Weakened,
	})
}

// wireShape is what the result is read through, so that its required fields are checked.
func (StartResult) wireShape() any { return &startResultJSON{} }

// UnmarshalJSON reads the worker's result (Handle.Get checks its required fields first).
func (r *StartResult) UnmarshalJSON(data []byte) error {
	var result startResultJSON
	if err := json.Unmarshal(data, &result); err != nil {
		return err
	}
	*r = StartResult{
		Ref:         TrainJobRef{Namespace: result.Namespace, Name: result.Name, UID: result.UID},
		RuntimeCopy: result.RuntimeCopy, Mode: result.Mode, Weakened: result.Weakened,
	}
	return nil
}

// Capabilities is what TrainJobCapabilities answers (docs/schema/capabilities.schema.json).
type Capabilities struct {
	// Runtime is "<Kind>/<name>" of the runtime checked.
	Runtime string `json:"runtime"`
	// ProcsPerNode is true only for a runtime with mlPolicy.torch.
	ProcsPerNode bool   `json:"procsPerNode"`
	Weakened     string `json:"weakened,omitempty"`
}

// BackendGates is what ProbeBackend answers (docs/contract.md §8; docs/schema/backend-gates.schema.json).
type BackendGates struct {
	Reach bool `json:"reach"`
	Write bool `json:"write"`
	Start bool `json:"start"`
	// Reasons says why each unproven gate is unproven.
	Reasons []string `json:"reasons"`
	// CheckedAt is when the probe ran (workflow time).
	CheckedAt time.Time `json:"checkedAt"`
	// StartUnknown is true when Start is false for want of an answer, not refused: Starts are then
	// refused with the retryable ErrUnreachable.
	StartUnknown bool `json:"startUnknown,omitempty"`
	// WriteUnknown is true when Write is false for want of an answer (the access review went
	// unanswered), not refused: Starts are then refused with the retryable ErrUnreachable, not ErrReadOnly.
	WriteUnknown bool `json:"writeUnknown,omitempty"`
}

// TrainJobRef names a TrainJob: what the operations after Start take (docs/schema/trainjob-ref.schema.json).
type TrainJobRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid"`
}

// Phase is a TrainJobState's phase.
type Phase string

const (
	PhaseGated     Phase = "Gated"
	PhaseQueued    Phase = "Queued"
	PhaseHeld      Phase = "Held"
	PhaseRunning   Phase = "Running"
	PhaseSucceeded Phase = "Succeeded"
	PhaseFailed    Phase = "Failed"
	PhaseAbsent    Phase = "Absent"
)

// Phases lists every Phase (a new slice each call).
func Phases() []Phase {
	return []Phase{PhaseGated, PhaseQueued, PhaseHeld, PhaseRunning, PhaseSucceeded, PhaseFailed, PhaseAbsent}
}

// OutcomePhases lists the phases an Outcome may have (a new slice each call).
func OutcomePhases() []Phase { return []Phase{PhaseSucceeded, PhaseFailed, PhaseAbsent} }

// TrainJobState is what Open, Hold, Release and Stop answer (docs/schema/trainjob-state.schema.json).
type TrainJobState struct {
	Ref   TrainJobRef `json:"ref"`
	Phase Phase       `json:"phase"`
	// Held is whether the TrainJob carries dispatch's held annotation.
	Held bool `json:"held"`
	// Reasons says what the phase was read from, and anything observed that is not as it should be.
	Reasons []string `json:"reasons"`
	// Cluster is, with Kueue's MultiKueue, the worker cluster Kueue chose for the job (its
	// Workload's status.clusterName) once known; empty otherwise, and from workers before it.
	Cluster string `json:"cluster,omitempty"`
}

// Outcome is what Watch answers once the TrainJob has completed, failed or gone (docs/schema/outcome.schema.json).
type Outcome struct {
	Ref TrainJobRef `json:"ref"`
	// Phase is one of OutcomePhases.
	Phase Phase `json:"phase"`
	// Reason is the deciding condition's reason (AllJobsCompleted, DeadlineExceeded, ...) or dispatch's.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// ExitCode is the exit code of the first node container that terminated non-zero (Failed only).
	ExitCode *int64 `json:"exitCode,omitempty"`
	// FinishedAt is when the deciding condition last changed; for Absent, when the TrainJob was seen gone.
	FinishedAt time.Time `json:"finishedAt"`
	// Cluster is, with Kueue's MultiKueue, the worker cluster the job ran on, when known; empty otherwise.
	Cluster string `json:"cluster,omitempty"`
}

// FailureDetails are the details of every typed failure (docs/schema/failure-details.schema.json).
type FailureDetails struct {
	Reasons []string `json:"reasons"`
	// Step is the step of Start (1 to 9; validation reports 4); 0 for the operations after Start
	// and for the failed rollback of a cancelled Start.
	Step int64 `json:"step"`
	// Ref names the TrainJob, on every failure after it was created; its UID is empty when the
	// create went unanswered.
	Ref *TrainJobRef `json:"ref,omitempty"`
}

// FindState is what Find answers about a job's submission.
type FindState string

const (
	// FindInFlight: a Start of the submission runs, or one ended ErrOutcomeUnknown within CallBound.
	FindInFlight FindState = "InFlight"
	// FindPresent: the TrainJob exists (its ref and attempt token are given).
	FindPresent FindState = "Present"
	// FindAbsent: no TrainJob of the submission exists and no Start of it runs.
	FindAbsent FindState = "Absent"
)

// FindStates lists every FindState (a new slice each call).
func FindStates() []FindState { return []FindState{FindInFlight, FindPresent, FindAbsent} }

// FindResult is what Find answers (docs/contract.md §7; docs/schema/find-result.schema.json): one
// of three shapes, told apart by State.
type FindResult struct {
	State FindState `json:"state"`
	// WorkflowID is the running (or recently unknown) Start's id: InFlight only.
	WorkflowID string `json:"workflowId,omitempty"`
	// Ref and AttemptToken are the TrainJob's: Present only.
	Ref          *TrainJobRef `json:"ref,omitempty"`
	AttemptToken string       `json:"attemptToken,omitempty"`
}
