package rpc

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/internal/quote"
)

// Params are decoded strictly so a client learns exactly which field is
// wrong: the raw JSON is first checked against the params type, field by
// field, and only then unmarshalled. The check and the OpenRPC schema
// (schema.go) both read the same Go type and the same struct tags, so what
// the document promises is what the server accepts:
//
//   - a field is named by its json tag, matched exactly (encoding/json alone
//     would accept "Workspace" for "workspace");
//   - a field without omitempty is required and may not be null or "";
//   - a key the type does not name is an unknown field.

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	timeType       = reflect.TypeFor[time.Time]()
)

// decodeParams checks raw against the type of *p and decodes it into p.
// Absent or null params are an empty object.
func decodeParams[P any](raw json.RawMessage, p *P) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return paramError("params", "must be an object of named parameters")
	}
	if string(raw) == "{}" {
		// The common call without params: only requiredness can fail,
		// and the zero value is the decoding.
		return checkFields("params", nil, structFields(reflect.TypeFor[P]()))
	}
	if err := check("params", raw, reflect.TypeFor[P]()); err != nil {
		return err
	}
	return decodeFields(raw, reflect.ValueOf(p).Elem())
}

// decodeFields decodes the object raw, already checked against v's type,
// into the struct v field by field. A json.RawMessage field aliases raw
// rather than copying it: a tool's arguments can be most of a large frame.
func decodeFields(raw json.RawMessage, v reflect.Value) error {
	fields := members(raw)
	for _, f := range structFields(v.Type()) {
		value, ok := fields[f.name]
		if !ok {
			continue
		}
		fv := v.Field(f.index)
		if fv.Type() == rawMessageType {
			fv.SetBytes(value)
			continue
		}
		if err := json.Unmarshal(value, fv.Addr().Interface()); err != nil {
			return paramError("params."+f.name, err.Error())
		}
	}
	return nil
}

// members maps an object's keys to their values, which alias raw; a
// repeated key keeps its last value, as encoding/json does.
func members(raw json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage)
	objectMembers(bytes.TrimSpace(raw), func(k string, v []byte) { out[k] = v })
	return out
}

// check reports the first place raw does not fit t. raw is valid JSON.
func check(path string, raw json.RawMessage, t reflect.Type) error {
	raw = bytes.TrimSpace(raw)
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return nil
	}
	if string(raw) == "null" {
		// encoding/json leaves the zero value; a required field's
		// null is caught by its struct.
		return nil
	}
	if t == timeType {
		return expect(path, raw, '"', t)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return check(path, raw, t.Elem())
	case reflect.String:
		return expect(path, raw, '"', t)
	case reflect.Bool:
		if string(raw) != "true" && string(raw) != "false" {
			return paramError(path, "must be "+jsonTypeName(t))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if _, err := strconv.ParseInt(string(raw), 10, t.Bits()); err != nil {
			return paramError(path, "must be "+jsonTypeName(t))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if _, err := strconv.ParseUint(string(raw), 10, t.Bits()); err != nil {
			return paramError(path, "must be "+jsonTypeName(t))
		}
	case reflect.Float32, reflect.Float64:
		if _, err := strconv.ParseFloat(string(raw), t.Bits()); err != nil {
			return paramError(path, "must be "+jsonTypeName(t))
		}
	case reflect.Slice:
		if err := expect(path, raw, '[', t); err != nil {
			return err
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return paramError(path, err.Error())
		}
		for i, item := range items {
			if err := check(path+"["+strconv.Itoa(i)+"]", item, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.Map:
		if err := expect(path, raw, '{', t); err != nil {
			return err
		}
		fields := members(raw)
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			if err := check(member(path, k), fields[k], t.Elem()); err != nil {
				return err
			}
		}
	case reflect.Struct:
		return checkStruct(path, raw, t)
	}
	return nil
}

func checkStruct(path string, raw json.RawMessage, t reflect.Type) error {
	if err := expect(path, raw, '{', t); err != nil {
		return err
	}
	return checkFields(path, members(raw), structFields(t))
}

// checkFields checks an object's members against a struct's fields.
func checkFields(path string, fields map[string]json.RawMessage, known []field) error {
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !slices.ContainsFunc(known, func(f field) bool { return f.name == k }) {
			return paramError(member(path, k), "unknown field (this method takes "+fieldList(known)+")")
		}
	}
	for _, f := range known {
		v, ok := fields[f.name]
		v = bytes.TrimSpace(v)
		if f.required && (!ok || string(v) == "null" || string(v) == `""`) {
			return paramError(path+"."+f.name, "is required: "+jsonTypeName(f.typ))
		}
		if ok {
			if err := check(path+"."+f.name, v, f.typ); err != nil {
				return err
			}
		}
	}
	return nil
}

// member is the path of an object's member k. A key is a client string:
// one longer than quote.Max is quoted short.
func member(path, k string) string {
	if len(k) > quote.Max {
		return path + "." + quote.Short(k)
	}
	return path + "." + k
}

func expect(path string, raw json.RawMessage, first byte, t reflect.Type) error {
	if len(raw) == 0 || raw[0] != first {
		return paramError(path, "must be "+jsonTypeName(t))
	}
	return nil
}

// field is one JSON-visible struct field.
type field struct {
	index    int // in the struct
	name     string
	typ      reflect.Type
	required bool
	doc      string
	enum     []string // the tag enum:"a,b": the only values the field takes
}

// structFields lists t's JSON fields in declaration order. Embedded
// structs are not flattened: params and results do not use them.
func structFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		out = append(out, field{
			index:    i,
			name:     name,
			typ:      sf.Type,
			required: !slices.Contains(strings.Split(opts, ","), "omitempty"),
			doc:      sf.Tag.Get("doc"),
			enum:     enumTag(sf.Tag.Get("enum")),
		})
	}
	return out
}

func enumTag(tag string) []string {
	if tag == "" {
		return nil
	}
	return strings.Split(tag, ",")
}

func fieldList(fs []field) string {
	if len(fs) == 0 {
		return "no parameters"
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// jsonTypeName names t as a client thinks of it: "a string", "an array".
func jsonTypeName(t reflect.Type) string {
	if t == timeType {
		return "a string (RFC 3339 time)"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t == rawMessageType {
			return "any JSON value"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "any JSON value"
}
