package dispatchkubeflow

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/faketemporal"
	"github.com/phpboyscout/dispatch-kubeflow/go/internal/wire"
)

// testdata/contract.json is recorded from the TypeScript client and model
// (scripts/generate-go-testdata.ts): what it starts for each call, and the names and tokens.

type recordedStart struct {
	Type                     string            `json:"type"`
	TaskQueue                string            `json:"taskQueue"`
	WorkflowID               string            `json:"workflowId"`
	WorkflowIDConflictPolicy *string           `json:"workflowIdConflictPolicy"`
	WorkflowIDReusePolicy    *string           `json:"workflowIdReusePolicy"`
	StaticSummary            *string           `json:"staticSummary"`
	SearchAttributes         []recordedSA      `json:"searchAttributes"`
	Args                     []json.RawMessage `json:"args"`
}

type recordedSA struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

type contractData struct {
	WorkflowTypes map[string]string `json:"workflowTypes"`
	Names         []struct {
		Namespace    string `json:"namespace"`
		Job          string `json:"job"`
		Submission   int64  `json:"submission"`
		Attempt      int64  `json:"attempt"`
		Name         string `json:"name"`
		AttemptToken string `json:"attemptToken"`
	} `json:"names"`
	Starts []struct {
		Namespace string        `json:"namespace"`
		Name      string        `json:"name"`
		Started   recordedStart `json:"started"`
	} `json:"starts"`
	Operations []struct {
		Op      Operation     `json:"op"`
		Ref     TrainJobRef   `json:"ref"`
		Started recordedStart `json:"started"`
	} `json:"operations"`
	Probes []struct {
		Namespace string        `json:"namespace"`
		TaskQueue string        `json:"taskQueue"`
		Started   recordedStart `json:"started"`
	} `json:"probes"`
	Capabilities []struct {
		Namespace string        `json:"namespace"`
		TaskQueue string        `json:"taskQueue"`
		Started   recordedStart `json:"started"`
	} `json:"capabilities"`
	Find struct {
		Namespace   string     `json:"namespace"`
		Job         string     `json:"job"`
		Submission  int64      `json:"submission"`
		Now         time.Time  `json:"now"`
		CallBoundMs int64      `json:"callBoundMs"`
		Queries     []string   `json:"queries"`
		Answer      FindResult `json:"answer"`
	} `json:"find"`
	Failures []recordedFailure `json:"failures"`
}

func loadContract(t *testing.T) contractData {
	t.Helper()
	raw, err := os.ReadFile("../testdata/contract.json")
	if err != nil {
		t.Fatal(err)
	}
	var data contractData
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	return data
}

// policyName is the TypeScript SDK's name of a protobuf enum value: its proto name less the prefix
// ("USE_EXISTING", "KEYWORD"), UNSPECIFIED for none.
func policyName(value protoreflect.Enum, prefix string) string {
	return strings.TrimPrefix(string(value.Descriptor().Values().ByNumber(value.Number()).Name()), prefix)
}

func orUnspecified(s *string) string {
	if s == nil {
		return "UNSPECIFIED"
	}
	return *s
}

// compareStart checks what the Go client started against what the TypeScript client started.
func compareStart(t *testing.T, got faketemporal.Call, want recordedStart) {
	t.Helper()
	o := got.Options
	if got.WorkflowType != want.Type {
		t.Errorf("type %q, TypeScript %q", got.WorkflowType, want.Type)
	}
	if o.TaskQueue != want.TaskQueue {
		t.Errorf("task queue %q, TypeScript %q", o.TaskQueue, want.TaskQueue)
	}
	if !strings.Contains(want.WorkflowID, "<uuid>") && o.ID != want.WorkflowID {
		t.Errorf("id %q, TypeScript %q", o.ID, want.WorkflowID)
	}
	if p := policyName(o.WorkflowIDConflictPolicy, "WORKFLOW_ID_CONFLICT_POLICY_"); p != orUnspecified(want.WorkflowIDConflictPolicy) {
		t.Errorf("%s: conflict policy %s, TypeScript %s", o.ID, p, orUnspecified(want.WorkflowIDConflictPolicy))
	}
	if p := policyName(o.WorkflowIDReusePolicy, "WORKFLOW_ID_REUSE_POLICY_"); p != orUnspecified(want.WorkflowIDReusePolicy) {
		t.Errorf("%s: reuse policy %s, TypeScript %s", o.ID, p, orUnspecified(want.WorkflowIDReusePolicy))
	}
	wantSummary := ""
	if want.StaticSummary != nil {
		wantSummary = *want.StaticSummary
	}
	if o.StaticSummary != wantSummary {
		t.Errorf("summary %q, TypeScript %q", o.StaticSummary, wantSummary)
	}
	gotSA := []recordedSA{}
	for key, value := range o.TypedSearchAttributes.GetUntypedValues() {
		gotSA = append(gotSA, recordedSA{Name: key.GetName(), Type: policyName(key.GetValueType(), "INDEXED_VALUE_TYPE_"), Value: value.(string)})
	}
	if !sameSearchAttributes(gotSA, want.SearchAttributes) {
		t.Errorf("%s: search attributes %v, TypeScript %v", o.ID, gotSA, want.SearchAttributes)
	}
	if len(got.Args) != len(want.Args) {
		t.Fatalf("%s: %d arguments, TypeScript %d", o.ID, len(got.Args), len(want.Args))
	}
	for i, arg := range got.Args {
		encoded, err := json.Marshal(arg)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, encoded, want.Args[i]) {
			t.Errorf("%s: argument %d is %s, TypeScript %s", o.ID, i, encoded, want.Args[i])
		}
	}
}

func sameSearchAttributes(a, b []recordedSA) bool {
	index := func(list []recordedSA) map[string]recordedSA {
		out := map[string]recordedSA{}
		for _, sa := range list {
			out[sa.Name] = sa
		}
		return out
	}
	return len(a) == len(b) && reflect.DeepEqual(index(a), index(b))
}

func TestWorkflowTypesAreTheTypeScriptOnes(t *testing.T) {
	data := loadContract(t)
	want := map[string]string{"start": WorkflowStart, "capabilities": WorkflowCapabilities, "probe": WorkflowProbe}
	for _, op := range Operations() {
		want[string(op)] = op.WorkflowType()
	}
	if !reflect.DeepEqual(data.WorkflowTypes, want) {
		t.Errorf("Go %v, TypeScript %v", want, data.WorkflowTypes)
	}
}

func TestNamesAndAttemptTokensAreTheTypeScriptOnes(t *testing.T) {
	for _, c := range loadContract(t).Names {
		if got := TrainJobName(c.Job, c.Submission); got != c.Name {
			t.Errorf("TrainJobName(%s, %d) = %s, TypeScript %s", c.Job, c.Submission, got, c.Name)
		}
		if got := AttemptToken(c.Namespace, c.Name, c.Attempt); got != c.AttemptToken {
			t.Errorf("AttemptToken(%s, %s, %d) = %s, TypeScript %s", c.Namespace, c.Name, c.Attempt, got, c.AttemptToken)
		}
	}
}

func TestStartIsStartedAsTheTypeScriptClientStartsIt(t *testing.T) {
	data := loadContract(t)
	if len(data.Starts) == 0 {
		t.Fatal("no recorded Starts")
	}
	for _, c := range data.Starts {
		var request StartRequest
		if err := wire.DecodeStrict(c.Started.Args[0], &request); err != nil {
			t.Fatal(err)
		}
		fake := faketemporal.New()
		if _, err := mustNew(t, fake, Options{Namespace: c.Namespace}).SubmitStart(context.Background(), request); err != nil {
			t.Fatal(err)
		}
		compareStart(t, fake.Started[0], c.Started)
	}
}

func TestOperationsAreStartedAsTheTypeScriptClientStartsThem(t *testing.T) {
	data := loadContract(t)
	if len(data.Operations) < 2*len(Operations()) || len(data.Operations)%len(Operations()) != 0 {
		t.Fatalf("%d recorded operations", len(data.Operations))
	}
	for _, c := range data.Operations {
		fake := faketemporal.New()
		dk := mustNew(t, fake, Options{Namespace: c.Ref.Namespace})
		var err error
		if c.Op == OpWatch {
			_, err = dk.SubmitWatch(context.Background(), c.Ref)
		} else {
			_, err = dk.SubmitOperation(context.Background(), c.Op, c.Ref)
		}
		if err != nil {
			t.Fatal(err)
		}
		compareStart(t, fake.Started[0], c.Started)
	}
}

func TestProbeAndCapabilitiesAreStartedAsTheTypeScriptClientStartsThem(t *testing.T) {
	data := loadContract(t)
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for i, c := range data.Probes {
		fake := faketemporal.New()
		dk := mustNew(t, fake, Options{Namespace: c.Namespace, TaskQueue: c.TaskQueue})
		_, _ = dk.Probe(context.Background())
		compareStart(t, fake.Started[0], c.Started)

		capabilities := data.Capabilities[i]
		_, _ = dk.Capabilities(context.Background(), JobSpec{ProcsPerNode: 4, Command: []string{"ignored"}, Nodes: 3})
		compareStart(t, fake.Started[1], capabilities.Started)
		prefix := strings.TrimSuffix(capabilities.Started.WorkflowID, "<uuid>")
		id := fake.Started[1].Options.ID
		if !strings.HasPrefix(id, prefix) || !uuid.MatchString(strings.TrimPrefix(id, prefix)) {
			t.Errorf("capabilities id %q is not %s<random UUID>", id, prefix)
		}
	}
}

func TestFindAsksTheTypeScriptClientsQueries(t *testing.T) {
	f := loadContract(t).Find
	running, failed := findQueries(f.Namespace, TrainJobName(f.Job, f.Submission), f.Now.Add(-time.Duration(f.CallBoundMs)*time.Millisecond))
	if running != f.Queries[0] || failed != f.Queries[1] {
		t.Errorf("Go queries\n%s\n%s\nTypeScript\n%s\n%s", running, failed, f.Queries[0], f.Queries[1])
	}
	fake := faketemporal.New()
	answer, err := mustNew(t, fake, Options{Namespace: f.Namespace, TrainJobs: fakeTrainJobs{}}).Find(context.Background(), f.Job, f.Submission)
	if err != nil || !reflect.DeepEqual(answer, f.Answer) {
		t.Errorf("Find answered %+v, %v; TypeScript %+v", answer, err, f.Answer)
	}
	if len(fake.Queries) != 2 || !strings.HasPrefix(fake.Queries[1], strings.Split(f.Queries[1], "CloseTime")[0]) {
		t.Errorf("Find asked %v", fake.Queries)
	}
}

func TestRandomJobIDsAreCanonicalULIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := RandomJobID()
		if !jobIDRegexp.MatchString(id) || seen[id] {
			t.Fatalf("%q is not a fresh canonical ULID", id)
		}
		seen[id] = true
	}
}
