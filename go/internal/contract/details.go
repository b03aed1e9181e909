package contract

import (
	"bytes"
	"encoding/json"
	"math"
)

// Details are a typed failure's details as the worker writes them.
type Details struct {
	Reasons []string
	Step    int64
	// Ref is namespace, name, uid; nil when the failure names no TrainJob.
	Ref *[3]string
}

// ParseDetails is isFailureDetails of src/model/errors.ts: reasons all strings, step a safe
// integer, ref absent or exactly {namespace, name, uid} of strings; other keys are let through.
func ParseDetails(raw []byte) (Details, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return Details{}, false
	}
	var details Details
	var reasons []json.RawMessage
	if !isArray(fields["reasons"]) || json.Unmarshal(fields["reasons"], &reasons) != nil {
		return Details{}, false
	}
	details.Reasons = make([]string, len(reasons))
	for i, reason := range reasons {
		if !isString(reason) || json.Unmarshal(reason, &details.Reasons[i]) != nil {
			return Details{}, false
		}
	}
	var step float64
	if !isNumber(fields["step"]) || json.Unmarshal(fields["step"], &step) != nil || step != math.Trunc(step) || math.Abs(step) > 1<<53-1 {
		return Details{}, false
	}
	details.Step = int64(step)
	if rawRef, present := fields["ref"]; present {
		var ref map[string]json.RawMessage
		if json.Unmarshal(rawRef, &ref) != nil || ref == nil || len(ref) != 3 {
			return Details{}, false
		}
		details.Ref = &[3]string{}
		for i, key := range []string{"namespace", "name", "uid"} {
			if !isString(ref[key]) || json.Unmarshal(ref[key], &details.Ref[i]) != nil {
				return Details{}, false
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
