package dispatchkubeflow

import (
	"fmt"
	"strings"
)

// checkIdentity checks the fields a Start's workflow id and name are built from, so that a request
// whose id would be malformed fails with ErrInvalid before anything is started. The worker
// validates the whole request (every problem at once, docs/start.md); a request that passes here
// may still be refused there, with the same ErrInvalid.
func checkIdentity(request StartRequest) error {
	var reasons []string
	if !jobIDRegexp.MatchString(request.Job) {
		reasons = append(reasons, "job: not a valid JobID")
	}
	if request.Generation < 0 || request.Generation > 18_000_000 {
		reasons = append(reasons, "generation: outside 0 to 18,000,000")
	}
	if request.Submission < 1 || request.Submission > 999_999 {
		reasons = append(reasons, "submission: submission outside 1 to 999,999")
	}
	if request.Attempt < 0 {
		reasons = append(reasons, "attempt: negative attempt")
	}
	if len(reasons) > 0 {
		return &Error{Type: ErrInvalid, Reasons: reasons, Step: 4}
	}
	return nil
}

// Validate checks a ref as the worker does (TrainJobRefSchema): ErrInvalid naming every problem.
func (r TrainJobRef) Validate() error {
	var reasons []string
	if !namespaceRegexp.MatchString(r.Namespace) || len(r.Namespace) > 63 {
		reasons = append(reasons, fmt.Sprintf("namespace: not a valid namespace name (DNS-1123 label, at most 63 characters): %q", r.Namespace))
	}
	if !nameRegexp.MatchString(r.Name) || len(r.Name) > 253 {
		reasons = append(reasons, fmt.Sprintf("name: not a valid TrainJob name (DNS-1123 subdomain, at most 253 characters): %q", r.Name))
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
