package dispatchkubeflow

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/wire"
)

// StartRequest is what StartTrainJob takes (docs/contract.md §2; docs/schema/start-request.schema.json).
type StartRequest struct {
	// Job is the JobID: a canonical ULID (JobIDPattern).
	Job string `json:"job"`
	// Generation is 0 to 18,000,000.
	Generation int64 `json:"generation"`
	// Submission is 1 to 999,999; it names the TrainJob (TrainJobName).
	Submission int64 `json:"submission"`
	// Attempt is 0 or more; it names the Start's workflow (StartWorkflowID).
	Attempt int64   `json:"attempt"`
	Spec    JobSpec `json:"spec"`
	// Native is accepted and ignored: the adapter declares neither native requeue nor restart.
	Native *Native `json:"native,omitempty"`
}

// JobSpec is dispatch's JobSpec. An empty string, a zero count or duration and a nil map or
// pointer are unset, as the worker reads them.
type JobSpec struct {
	Name string
	// Command is the program and its arguments (at least one item; nil is sent as []).
	Command []string
	Env     map[string]string
	WorkDir string
	// Nodes is 1 or more; it is always sent, so that the worker names a missing one.
	Nodes int64
	// GPUsPerNode and ProcsPerNode: 0 is unset.
	GPUsPerNode  int64
	ProcsPerNode int64
	// TimeLimit: 0 is no limit; the worker rounds it up to a whole second.
	TimeLimit time.Duration
	// Checkpoint is an absolute path or an s3:// URL.
	Checkpoint string
	Recovery   *Recovery
	Extensions *Extensions
}

// jobSpecJSON is JobSpec on the wire (docs/schema/start-request.schema.json#spec).
type jobSpecJSON struct {
	Name         string            `json:"name,omitempty"`
	Command      []string          `json:"command"`
	Env          map[string]string `json:"env,omitempty"`
	WorkDir      string            `json:"workDir,omitempty"`
	Nodes        int64             `json:"nodes"`
	GPUsPerNode  int64             `json:"gpusPerNode,omitempty"`
	ProcsPerNode int64             `json:"procsPerNode,omitempty"`
	TimeLimit    string            `json:"timeLimit,omitempty"`
	Checkpoint   string            `json:"checkpoint,omitempty"`
	Recovery     *Recovery         `json:"recovery,omitempty"`
	Extensions   *Extensions       `json:"extensions,omitempty"`
}

// MarshalJSON writes the spec as the worker reads it: TimeLimit as a Go duration string in its
// shortest form ("2h30m", "90m", "1.5s"), omitted when 0.
func (s JobSpec) MarshalJSON() ([]byte, error) {
	command := s.Command
	if command == nil {
		command = []string{}
	}
	return json.Marshal(jobSpecJSON{
		Name: s.Name, Command: command, Env: s.Env, WorkDir: s.WorkDir, Nodes: s.Nodes,
		GPUsPerNode: s.GPUsPerNode, ProcsPerNode: s.ProcsPerNode, TimeLimit: formatDuration(s.TimeLimit),
		Checkpoint: s.Checkpoint, Recovery: s.Recovery, Extensions: s.Extensions,
	})
}

// UnmarshalJSON reads a spec strictly, as the worker does: an unknown field is an error.
func (s *JobSpec) UnmarshalJSON(data []byte) error {
	var spec jobSpecJSON
	if err := wire.Unmarshal(data, &spec); err != nil {
		return err
	}
	var limit time.Duration
	if spec.TimeLimit != "" {
		parsed, err := time.ParseDuration(spec.TimeLimit)
		if err != nil {
			return fmt.Errorf("spec.timeLimit: %w", err)
		}
		limit = parsed
	}
	*s = JobSpec{
		Name: spec.Name, Command: spec.Command, Env: spec.Env, WorkDir: spec.WorkDir, Nodes: spec.Nodes,
		GPUsPerNode: spec.GPUsPerNode, ProcsPerNode: spec.ProcsPerNode, TimeLimit: limit,
		Checkpoint: spec.Checkpoint, Recovery: spec.Recovery, Extensions: spec.Extensions,
	}
	return nil
}

// formatDuration is d's String less its zero tail ("2h30m0s" is "2h30m", "1h0m0s" "1h"), "" for 0.
func formatDuration(d time.Duration) string {
	if d == 0 {
		return ""
	}
	text := d.String()
	if strings.HasSuffix(text, "m0s") {
		text = strings.TrimSuffix(text, "0s")
	}
	if strings.HasSuffix(text, "h0m") {
		text = strings.TrimSuffix(text, "0m")
	}
	return text
}

// Recovery is accepted and put into nothing in the TrainJob.
type Recovery struct {
	Policy string `json:"policy,omitempty"`
}

// Native is accepted and ignored.
type Native struct {
	Requeue *bool `json:"requeue,omitempty"`
	Restart *bool `json:"restart,omitempty"`
}

// The extension keys the worker knows (docs/contract.md §2); any other key is ErrUnsupported.
const (
	ExtensionImage            = "dispatch/Image"
	ExtensionRuntimeRef       = "kubeflow/RuntimeRef"
	ExtensionSharedCheckpoint = "dispatch/SharedCheckpoint"
)

// ImageExtension is dispatch/Image: the container image of the job (required).
type ImageExtension struct {
	Ref string `json:"ref"`
}

// RuntimeKind is the kind of a Trainer runtime.
type RuntimeKind string

const (
	TrainingRuntime        RuntimeKind = "TrainingRuntime"
	ClusterTrainingRuntime RuntimeKind = "ClusterTrainingRuntime"
)

// RuntimeKinds lists every RuntimeKind (a new slice each call).
func RuntimeKinds() []RuntimeKind { return []RuntimeKind{TrainingRuntime, ClusterTrainingRuntime} }

// RuntimeRefExtension is kubeflow/RuntimeRef: the runtime the job's TrainJob runs on (required).
type RuntimeRefExtension struct {
	Kind RuntimeKind `json:"kind"`
	Name string      `json:"name"`
}

// SharedCheckpointExtension is dispatch/SharedCheckpoint: accepted, changes nothing in the TrainJob.
type SharedCheckpointExtension struct{}

// Extensions is spec.extensions, a JSON object keyed "<namespace>/<name>": the three known
// extensions typed, any other key carried as raw JSON in Other (which the worker refuses with
// ErrUnsupported, so that a caller can see that refusal rather than lose the key).
type Extensions struct {
	Image            *ImageExtension
	RuntimeRef       *RuntimeRefExtension
	SharedCheckpoint *SharedCheckpointExtension
	Other            map[string]json.RawMessage
}

// MarshalJSON writes the extensions as one object, keys sorted (as encoding/json writes maps).
func (e Extensions) MarshalJSON() ([]byte, error) {
	fields := map[string]any{}
	for key, raw := range e.Other {
		fields[key] = raw
	}
	if e.Image != nil {
		fields[ExtensionImage] = e.Image
	}
	if e.RuntimeRef != nil {
		fields[ExtensionRuntimeRef] = e.RuntimeRef
	}
	if e.SharedCheckpoint != nil {
		fields[ExtensionSharedCheckpoint] = e.SharedCheckpoint
	}
	return json.Marshal(fields)
}

// UnmarshalJSON reads the known keys into their types (refusing unknown fields inside them, as the
// worker does) and keeps every other key in Other.
func (e *Extensions) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	*e = Extensions{}
	keys := make([]string, 0, len(fields))
	for key := range fields {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		raw := fields[key]
		var err error
		switch key {
		case ExtensionImage:
			e.Image = new(ImageExtension)
			err = wire.Unmarshal(raw, e.Image)
		case ExtensionRuntimeRef:
			e.RuntimeRef = new(RuntimeRefExtension)
			err = wire.Unmarshal(raw, e.RuntimeRef)
		case ExtensionSharedCheckpoint:
			e.SharedCheckpoint = new(SharedCheckpointExtension)
			err = wire.Unmarshal(raw, e.SharedCheckpoint)
		default:
			if e.Other == nil {
				e.Other = map[string]json.RawMessage{}
			}
			e.Other[key] = raw
		}
		if err != nil {
			return fmt.Errorf("spec.extensions.%s: %w", key, err)
		}
	}
	return nil
}
