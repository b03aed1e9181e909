// Package wire reads and writes the JSON of the contract's shapes: results tolerantly (a field a
// newer worker added is ignored, every field the contract requires must be there), requests
// strictly (an unknown field is an error, as the worker refuses it).
package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Field is a struct field as encoding/json names it.
type Field struct {
	Name      string
	OmitEmpty bool
	Type      reflect.Type
	Index     int
}

// Fields are a struct's fields as encoding/json names them.
func Fields(t reflect.Type) []Field {
	var fields []Field
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
		fields = append(fields, Field{Name: name, OmitEmpty: strings.Contains(options, "omitempty"), Type: field.Type, Index: i})
	}
	return fields
}

// DecodeResult decodes a worker's answer: a field this client does not know is ignored (a newer
// worker may add one, docs/contract.md §10), and every field whose tag has no omitempty must be
// present and not null, at any depth.
func DecodeResult(raw []byte, into any) error { return decode(raw, into, json.Unmarshal) }

// DecodeStrict decodes a request as the worker reads it: an unknown field is an error, and every
// field whose tag has no omitempty must be present, at any depth.
func DecodeStrict(raw []byte, into any) error { return decode(raw, into, Unmarshal) }

func decode(raw []byte, into any, unmarshal func([]byte, any) error) error {
	if err := unmarshal(raw, into); err != nil {
		return err
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return err
	}
	return requireFields(generic, reflect.TypeOf(into).Elem(), "")
}

// Unmarshal is json.Unmarshal refusing unknown fields.
func Unmarshal(raw []byte, into any) error {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.DisallowUnknownFields()
	return decoder.Decode(into)
}

func requireFields(value any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	object, isObject := value.(map[string]any)
	if t.Kind() != reflect.Struct || !isObject || t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	for _, field := range Fields(t) {
		got, present := object[field.Name]
		if !present || (got == nil && !field.OmitEmpty) {
			if field.OmitEmpty {
				continue
			}
			return fmt.Errorf("%s%s: is required", path, field.Name)
		}
		if err := requireFields(got, field.Type, path+field.Name+"."); err != nil {
			return err
		}
	}
	return nil
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// String is JSON.stringify of a string: quoted, HTML characters left as they are.
func String(s string) string {
	var out bytes.Buffer
	encoder := json.NewEncoder(&out)
	encoder.SetEscapeHTML(false)
	_ = encoder.Encode(s)
	return strings.TrimSuffix(out.String(), "\n")
}
