package dispatchkubeflow

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/wire"
)

// The worker's limits (docs/start.md, the request and JobSpec tables).
const (
	generationMax = 18_000_000
	submissionMax = 999_999
	// Trainer allows 128 items in a container's command and env; the prologue takes 4 of the
	// command and dispatch adds 6 variables (7 with WorkDir).
	commandMax        = 124
	envMax            = 122
	envMaxWithWorkDir = 121
	trainerListMax    = 128
	prologueItems     = 4
	imageMaxLength    = 500
	reservedEnvPrefix = "DISPATCH_"
)

var (
	envKeyRegexp     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	checkpointRegexp = regexp.MustCompile(`^s3://[^/]+`)
)

// validateStep is the step of Start that validates the request.
const validateStep = 4

// Validate checks the request as the worker's Start does (src/core/start/validate.ts), every
// problem at once, with the worker's reasons in the worker's order: nil, or an *Error of type
// ErrInvalid (every invalid field, then any unsupported extension) or ErrUnsupported (only
// extensions the worker does not know, Extensions.Other), at step 4. A request that passes here is
// accepted by the worker's validation; the worker still checks the runtime and the cluster.
func (r StartRequest) Validate() error {
	invalid := r.identityReasons()
	invalid = append(invalid, r.Spec.reasons()...)
	unsupported := r.Spec.Extensions.unsupported()
	switch {
	case len(invalid) > 0:
		return &Error{Type: ErrInvalid, Reasons: append(invalid, unsupported...), Step: validateStep}
	case len(unsupported) > 0:
		return &Error{Type: ErrUnsupported, Reasons: unsupported, Step: validateStep}
	}
	return nil
}

// identityReasons are the problems of the fields a Start's workflow id is built from.
func (r StartRequest) identityReasons() []string {
	var reasons []string
	if !jobIDRegexp.MatchString(r.Job) {
		reasons = append(reasons, "job: not a valid JobID")
	}
	if r.Generation < 0 {
		reasons = append(reasons, "generation: negative generation")
	} else if r.Generation > generationMax {
		reasons = append(reasons, "generation: generation above 18,000,000")
	}
	if r.Submission < 1 || r.Submission > submissionMax {
		reasons = append(reasons, "submission: submission outside 1 to 999,999")
	}
	if r.Attempt < 0 {
		reasons = append(reasons, "attempt: negative attempt")
	}
	return reasons
}

// identityInvalid is whether Validate's err names a field of the workflow id, which no Start can
// then be begun with.
func identityInvalid(err error) bool {
	failure, ok := err.(*Error)
	return ok && slices.ContainsFunc(failure.Reasons, func(reason string) bool {
		return slices.ContainsFunc([]string{"job:", "generation:", "submission:", "attempt:"}, func(field string) bool {
			return strings.HasPrefix(reason, field)
		})
	})
}

// reasons are the spec's problems in the worker's order: its fields as the schema lists them, then
// the limits of command and env, then the two required extensions.
func (s JobSpec) reasons() []string {
	var reasons []string
	if len(s.Command) == 0 {
		reasons = append(reasons, "spec.command: no command")
	}
	for i, item := range s.Command {
		if strings.ContainsRune(item, 0) {
			reasons = append(reasons, fmt.Sprintf("spec.command[%d]: NUL in command", i))
		}
	}
	keys := sortedKeys(s.Env)
	for _, key := range keys {
		at := "spec.env" + pathKey(key)
		switch {
		case strings.ContainsRune(key, 0) || strings.ContainsRune(s.Env[key], 0):
			reasons = append(reasons, at+": NUL in env")
		case !envKeyRegexp.MatchString(key):
			reasons = append(reasons, at+": malformed env key (must match "+envKeyRegexp.String()+")")
		case strings.HasPrefix(key, reservedEnvPrefix):
			reasons = append(reasons, at+": reserved env key (keys beginning "+reservedEnvPrefix+" are dispatch's)")
		}
	}
	if strings.ContainsRune(s.WorkDir, 0) {
		reasons = append(reasons, "spec.workDir: NUL in env")
	}
	if s.Nodes < 1 {
		reasons = append(reasons, "spec.nodes: fewer than one node")
	}
	if s.GPUsPerNode < 0 {
		reasons = append(reasons, "spec.gpusPerNode: negative GPU count")
	}
	if s.ProcsPerNode < 0 {
		reasons = append(reasons, "spec.procsPerNode: negative process count")
	}
	if s.TimeLimit < 0 {
		reasons = append(reasons, "spec.timeLimit: negative time limit")
	}
	if s.Checkpoint != "" && !strings.HasPrefix(s.Checkpoint, "/") && !checkpointRegexp.MatchString(s.Checkpoint) {
		reasons = append(reasons, "spec.checkpoint: checkpoint is neither an absolute path nor an s3:// URL")
	}
	if len(s.Command) > commandMax {
		reasons = append(reasons, fmt.Sprintf("spec.command: %d items; at most %d are allowed (Trainer allows %d, the prologue takes %d)",
			len(s.Command), commandMax, trainerListMax, prologueItems))
	}
	if _, proto := s.Env["__proto__"]; proto {
		reasons = append(reasons, "spec.env.__proto__: cannot be carried (JavaScript objects reserve this key), so it would be dropped")
	}
	limit, with := envMax, ""
	if s.WorkDir != "" {
		limit, with = envMaxWithWorkDir, " with workDir set"
	}
	if len(s.Env) > limit {
		reasons = append(reasons, fmt.Sprintf("spec.env: %d entries; at most %d are allowed%s (Trainer allows %d, dispatch adds %d variables)",
			len(s.Env), limit, with, trainerListMax, trainerListMax-limit))
	}
	return append(reasons, s.Extensions.reasons()...)
}

// reasons are the problems of the two required extensions (RuntimeRef first, as the worker reads them).
func (e *Extensions) reasons() []string {
	var runtimeRef *RuntimeRefExtension
	var image *ImageExtension
	if e != nil {
		runtimeRef, image = e.RuntimeRef, e.Image
	}
	var reasons []string
	const runtimeAt, imageAt = "spec.extensions." + ExtensionRuntimeRef, "spec.extensions." + ExtensionImage
	if runtimeRef == nil {
		reasons = append(reasons, runtimeAt+": is required")
	} else {
		if !slices.Contains(RuntimeKinds(), runtimeRef.Kind) {
			reasons = append(reasons, runtimeAt+`.kind: must be one of "TrainingRuntime", "ClusterTrainingRuntime"`)
		}
		switch name := runtimeRef.Name; {
		case name == "":
			reasons = append(reasons, runtimeAt+".name: empty name")
		default:
			if len(name) > 253 {
				reasons = append(reasons, runtimeAt+".name: longer than 253 characters")
			}
			if !nameRegexp.MatchString(name) {
				reasons = append(reasons, runtimeAt+".name: not a valid runtime name (DNS-1123 subdomain)")
			}
		}
	}
	if image == nil {
		reasons = append(reasons, imageAt+": is required")
	} else if image.Ref == "" {
		reasons = append(reasons, imageAt+".ref: empty Ref")
	} else if utf8.RuneCountInString(image.Ref) > imageMaxLength {
		reasons = append(reasons, fmt.Sprintf("%s.ref: longer than %d characters (the TrainJob CRD's maxLength of spec.trainer.image)", imageAt, imageMaxLength))
	}
	return reasons
}

// unsupported are the extensions the worker does not know, in the order they are sent.
func (e *Extensions) unsupported() []string {
	if e == nil {
		return nil
	}
	var reasons []string
	for _, key := range sortedKeys(e.Other) {
		if key != ExtensionImage && key != ExtensionRuntimeRef && key != ExtensionSharedCheckpoint {
			reasons = append(reasons, "extension "+key+" is not supported on Kubeflow")
		}
	}
	return reasons
}

// pathKey is a key as the worker's reasons write it after a path: ".KEY", or `["a.b"]` for a key
// that is empty or holds a dot, bracket, quote, space or control character.
func pathKey(key string) string {
	plain := key != "" && !strings.ContainsFunc(key, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`.[]"\`, r) || unicode.In(r, unicode.C) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
	})
	if plain {
		return "." + key
	}
	return "[" + wire.String(key) + "]"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

// Validate checks a ref as the worker does (TrainJobRefSchema), with the worker's reasons:
// ErrInvalid naming every problem, at step 0 and without the ref.
func (r TrainJobRef) Validate() error {
	var reasons []string
	if !namespaceRegexp.MatchString(r.Namespace) {
		reasons = append(reasons, "namespace: not a valid namespace name (DNS-1123 label)")
	}
	if utf8.RuneCountInString(r.Namespace) > 63 {
		reasons = append(reasons, "namespace: longer than 63 characters")
	}
	if !nameRegexp.MatchString(r.Name) {
		reasons = append(reasons, "name: not a valid TrainJob name (DNS-1123 subdomain)")
	}
	if utf8.RuneCountInString(r.Name) > 253 {
		reasons = append(reasons, "name: longer than 253 characters")
	}
	if r.UID == "" {
		reasons = append(reasons, "uid: must not be empty")
	} else if strings.Contains(r.UID, "/") {
		reasons = append(reasons, `uid: must not contain "/"`)
	}
	if len(reasons) > 0 {
		// As the worker's: a malformed ref is not echoed as the failure's ref.
		return &Error{Type: ErrInvalid, Reasons: reasons}
	}
	return nil
}
