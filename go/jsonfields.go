package dispatchkubeflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

type jsonField struct {
	name      string
	omitempty bool
	typ       reflect.Type
	index     int
}

// jsonFields are a struct's fields as encoding/json names them.
func jsonFields(t reflect.Type) []jsonField {
	var fields []jsonField
	for i := range t.NumField() {
		field := t.Field(i)
		tag := field.Tag.Get("json")
		if !field.IsExported() || tag == "-" {
			continue
		}
		name, options, _ := strings.Cut(tag, ",")
		if name == "" {
			name = field.Name
		}
		fields = append(fields, jsonField{name: name, omitempty: strings.Contains(options, "omitempty"), typ: field.Type, index: i})
	}
	return fields
}

// decodeStrict decodes JSON into a struct refusing unknown fields and requiring every field whose
// tag has no omitempty, at any depth.
func decodeStrict(raw []byte, into any) error {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(into); err != nil {
		return err
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return err
	}
	return requireFields(generic, reflect.TypeOf(into).Elem(), "")
}

func requireFields(value any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	object, isObject := value.(map[string]any)
	if t.Kind() != reflect.Struct || !isObject || t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	for _, field := range jsonFields(t) {
		got, present := object[field.name]
		if !present || (got == nil && !field.omitempty) {
			if field.omitempty {
				continue
			}
			return fmt.Errorf("%s%s: is required", path, field.name)
		}
		if err := requireFields(got, field.typ, path+field.name+"."); err != nil {
			return err
		}
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
