package dispatchkubeflow

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phpboyscout/dispatch-kubeflow/go/internal/wire"
)

// The Go types are written by hand; this test holds them to the JSON Schemas exported from the
// TypeScript zod schemas (docs/schema, `npm run schema`), field by field: every property has a Go
// field of that JSON name and a compatible type, every Go field is a property, a required property
// is never omitted by the Go encoding (no omitempty, no pointer) and an optional one may be, and
// every enum and pattern equals the Go constants.

const schemaDir = "../../docs/schema"

// The Go type of each published schema; config.schema.json is the worker's, not a caller's.
var schemaTypes = map[string]reflect.Type{
	"start-request.schema.json":               reflect.TypeFor[StartRequest](),
	"trainjob-ref.schema.json":                reflect.TypeFor[TrainJobRef](),
	"trainjob-state.schema.json":              reflect.TypeFor[TrainJobState](),
	"outcome.schema.json":                     reflect.TypeFor[Outcome](),
	"image-extension.schema.json":             reflect.TypeFor[ImageExtension](),
	"runtime-ref-extension.schema.json":       reflect.TypeFor[RuntimeRefExtension](),
	"shared-checkpoint-extension.schema.json": reflect.TypeFor[SharedCheckpointExtension](),
	"start-result.schema.json":                reflect.TypeFor[startResultJSON](),
	"capabilities.schema.json":                reflect.TypeFor[Capabilities](),
	"backend-gates.schema.json":               reflect.TypeFor[BackendGates](),
	"find-result.schema.json":                 reflect.TypeFor[FindResult](),
	"failure-details.schema.json":             reflect.TypeFor[FailureDetails](),
}

var notForCallers = []string{"config.schema.json"}

func strs[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// The Go side of every enum and pattern, by "<file>#<path>".
var schemaEnums = map[string][]string{
	"trainjob-state.schema.json#phase":       strs(Phases()),
	"outcome.schema.json#phase":              strs(OutcomePhases()),
	"runtime-ref-extension.schema.json#kind": strs(RuntimeKinds()),
	"start-result.schema.json#mode":          strs(Modes()),
	"find-result.schema.json#state":          strs(FindStates()),
}

var schemaPatterns = map[string]string{
	"start-request.schema.json#job":            JobIDPattern,
	"trainjob-ref.schema.json#namespace":       NamespacePattern,
	"trainjob-ref.schema.json#name":            NamePattern,
	"trainjob-state.schema.json#ref.namespace": NamespacePattern,
	"trainjob-state.schema.json#ref.name":      NamePattern,
	"outcome.schema.json#ref.namespace":        NamespacePattern,
	"outcome.schema.json#ref.name":             NamePattern,
	"runtime-ref-extension.schema.json#name":   NamePattern,
}

type schema = map[string]any

type walker struct {
	t       *testing.T
	file    string
	visited map[string]bool
}

func TestEveryPublishedSchemaHasAGoType(t *testing.T) {
	entries, err := os.ReadDir(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range entries {
		name := entry.Name()
		if _, ok := schemaTypes[name]; !ok && !slices.Contains(notForCallers, name) {
			t.Errorf("docs/schema/%s has no Go type in schemaTypes", name)
		}
	}
	for name := range schemaTypes {
		if _, err := os.Stat(filepath.Join(schemaDir, name)); err != nil {
			t.Errorf("schemaTypes names %s, which docs/schema does not hold", name)
		}
	}
}

func TestGoTypesMatchTheSchemas(t *testing.T) {
	visited := map[string]bool{}
	for file, typ := range schemaTypes {
		t.Run(file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(schemaDir, file))
			if err != nil {
				t.Fatal(err)
			}
			var root schema
			if err := json.Unmarshal(raw, &root); err != nil {
				t.Fatal(err)
			}
			w := walker{t: t, file: file, visited: visited}
			w.check("", root, typ)
		})
	}
	for key := range schemaEnums {
		if !visited[key] {
			t.Errorf("schemaEnums has %s, which no schema has", key)
		}
	}
	for key := range schemaPatterns {
		if !visited[key] {
			t.Errorf("schemaPatterns has %s, which no schema has", key)
		}
	}
}

// resolve takes the non-null alternative of a nullable schema (`anyOf [X, null]`, `type [T, "null"]`).
func resolve(s schema) schema {
	if alternatives, ok := s["anyOf"].([]any); ok {
		var kept []any
		for _, alternative := range alternatives {
			if alternative.(schema)["type"] != "null" {
				kept = append(kept, alternative)
			}
		}
		if len(kept) == 1 {
			return kept[0].(schema)
		}
	}
	if types, ok := s["type"].([]any); ok {
		copied := schema{}
		for k, v := range s {
			copied[k] = v
		}
		for _, typ := range types {
			if typ != "null" {
				copied["type"] = typ
			}
		}
		return copied
	}
	return s
}

// union merges a oneOf of objects into one object schema: every property of any alternative,
// required only where all require it, a `const` of each alternative gathered into an enum.
func union(s schema) schema {
	alternatives, ok := s["oneOf"].([]any)
	if !ok {
		return s
	}
	properties := schema{}
	requiredCount := map[string]int{}
	consts := map[string][]any{}
	for _, alternative := range alternatives {
		a := alternative.(schema)
		for name, property := range a["properties"].(schema) {
			p := property.(schema)
			if c, ok := p["const"]; ok {
				consts[name] = append(consts[name], c)
				continue
			}
			properties[name] = p
		}
		names, _ := a["required"].([]any)
		for _, name := range names {
			requiredCount[name.(string)]++
		}
	}
	for name, values := range consts {
		properties[name] = schema{"type": "string", "enum": values}
	}
	var required []any
	for name, count := range requiredCount {
		if count == len(alternatives) {
			required = append(required, name)
		}
	}
	return schema{"type": "object", "properties": properties, "required": required, "additionalProperties": false}
}

func (w walker) where(path string) string { return w.file + "#" + path }

// onTheWire are the types that write their JSON through another: that one is checked.
var onTheWire = map[reflect.Type]reflect.Type{
	reflect.TypeFor[JobSpec]():     reflect.TypeFor[jobSpecJSON](),
	reflect.TypeFor[StartResult](): reflect.TypeFor[startResultJSON](),
}

func (w walker) check(path string, s schema, typ reflect.Type) {
	s = resolve(union(s))
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if shape, ok := onTheWire[typ]; ok {
		typ = shape
	}
	if enum, ok := s["enum"].([]any); ok {
		w.checkEnum(path, enum, typ)
	}
	if pattern, ok := s["pattern"].(string); ok && typ != reflect.TypeFor[time.Time]() {
		w.visited[w.where(path)] = true
		if want, ok := schemaPatterns[w.where(path)]; !ok || want != pattern {
			w.t.Errorf("%s: the schema's pattern %q is not the Go constant's (%q)", path, pattern, want)
		}
	}
	switch s["type"] {
	case "object":
		w.checkObject(path, s, typ)
	case "string":
		if typ.Kind() != reflect.String && typ != reflect.TypeFor[time.Time]() {
			w.t.Errorf("%s: a string in the schema, %s in Go", path, typ)
		}
	case "integer":
		if !slices.Contains([]reflect.Kind{reflect.Int, reflect.Int32, reflect.Int64}, typ.Kind()) {
			w.t.Errorf("%s: an integer in the schema, %s in Go", path, typ)
		}
	case "boolean":
		if typ.Kind() != reflect.Bool {
			w.t.Errorf("%s: a boolean in the schema, %s in Go", path, typ)
		}
	case "array":
		if typ.Kind() != reflect.Slice {
			w.t.Errorf("%s: an array in the schema, %s in Go", path, typ)
			return
		}
		w.check(path+"[]", s["items"].(schema), typ.Elem())
	default:
		w.t.Errorf("%s: a schema of type %v, which this test does not know", path, s["type"])
	}
}

func (w walker) checkEnum(path string, enum []any, typ reflect.Type) {
	w.visited[w.where(path)] = true
	if typ.Kind() != reflect.String || typ.Name() == "string" {
		w.t.Errorf("%s: an enum in the schema, the plain %s in Go (give it a named string type)", path, typ)
	}
	want, ok := schemaEnums[w.where(path)]
	var got []string
	for _, value := range enum {
		got = append(got, value.(string))
	}
	if !ok || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		w.t.Errorf("%s: the schema's enum %v is not the Go list %v", path, got, want)
	}
}

func (w walker) checkObject(path string, s schema, typ reflect.Type) {
	properties, hasProperties := s["properties"].(schema)
	if !hasProperties {
		// A record: a Go map of its values, or a type that writes its own JSON (Extensions, whose
		// known values are checked against their own schemas).
		if typ.Implements(reflect.TypeFor[json.Marshaler]()) && reflect.PointerTo(typ).Implements(reflect.TypeFor[json.Unmarshaler]()) {
			return
		}
		if typ.Kind() != reflect.Map || typ.Key().Kind() != reflect.String {
			w.t.Errorf("%s: a record in the schema, %s in Go", path, typ)
			return
		}
		if values, ok := s["additionalProperties"].(schema); ok && len(values) > 0 {
			w.check(path+"{}", values, typ.Elem())
		}
		return
	}
	if typ.Kind() != reflect.Struct {
		w.t.Errorf("%s: an object in the schema, %s in Go", path, typ)
		return
	}
	required := map[string]bool{}
	names, _ := s["required"].([]any)
	for _, name := range names {
		required[name.(string)] = true
	}
	fields := map[string]wire.Field{}
	for _, field := range wire.Fields(typ) {
		fields[field.Name] = field
		if _, ok := properties[field.Name]; !ok {
			w.t.Errorf("%s: Go has field %q, which the schema does not", path, field.Name)
		}
	}
	for name, property := range properties {
		at := strings.TrimPrefix(path+"."+name, ".")
		field, ok := fields[name]
		if !ok {
			w.t.Errorf("%s: the schema's property has no Go field", at)
			continue
		}
		omittable := field.OmitEmpty || field.Type.Kind() == reflect.Pointer
		if required[name] && omittable {
			w.t.Errorf("%s: required by the schema, but Go may omit it (omitempty or a pointer)", at)
		}
		if !required[name] && !omittable {
			w.t.Errorf("%s: optional in the schema, but Go always sends it (add omitempty)", at)
		}
		w.check(at, property.(schema), field.Type)
	}
}
