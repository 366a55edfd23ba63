package rpc

import (
	"reflect"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/tools"
)

// schema is a JSON Schema object as OpenRPC embeds it.
type schema = wire.Schema

// override describes the types whose JSON is not their Go structure:
// custom marshallers and open-ended shapes.
func override(t reflect.Type) (schema, bool) {
	switch t {
	case reflect.TypeFor[wire.LineSet]():
		return schema{
			"description": "null when no provenance was recorded; otherwise inclusive [from, to] line ranges, ascending and merged ([] is the empty set)",
			"oneOf": []any{
				schema{"type": "null"},
				schema{"type": "array", "items": rangeSchema()},
			},
		}, true
	case reflect.TypeFor[wire.LineRange]():
		return rangeSchema(), true
	case reflect.TypeFor[wire.ResultForm]():
		return schema{"type": "string", "enum": []any{string(wire.ResultFull), string(wire.ResultCompact)}}, true
	case reflect.TypeFor[tools.Outcome]():
		// Every tool result shares wire.ToolResult and adds its own fields
		// (wire-contract §4), so the shared part is described and the rest open.
		s := schemaOf(reflect.TypeFor[wire.ToolResult]())
		s["additionalProperties"] = true
		return s, true
	case reflect.TypeFor[wire.LineText]():
		// Named in components.schemas (toolErrors), as the client's
		// types name it.
		return wire.SchemaRef("LineText"), true
	case reflect.TypeFor[wire.OpenRPCErrors]():
		return schema{"type": "object", "additionalProperties": schemaOf(reflect.TypeFor[wire.OpenRPCErrorDef]())}, true
	case rawMessageType:
		return schema{}, true
	case timeType:
		return schema{"type": "string", "format": "date-time"}, true
	}
	return nil, false
}

func rangeSchema() schema {
	return schema{"type": "array", "items": schema{"type": "integer"}, "minItems": 2, "maxItems": 2}
}

// schemaOf describes the JSON form of t, reading the same struct tags the
// params check reads (params.go).
func schemaOf(t reflect.Type) schema {
	if s, ok := override(t); ok {
		return s
	}
	switch t.Kind() {
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Slice {
			// A pointer to a slice tells three states apart: absent (nil,
			// with omitempty), null (a nil slice) and a list.
			s := schemaOf(t.Elem())
			s["type"] = []any{"array", "null"}
			return s
		}
		return schemaOf(t.Elem())
	case reflect.String:
		return schema{"type": "string"}
	case reflect.Bool:
		return schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return schema{"type": "number"}
	case reflect.Slice, reflect.Array:
		return schema{"type": "array", "items": schemaOf(t.Elem())}
	case reflect.Map:
		return schema{"type": "object", "additionalProperties": schemaOf(t.Elem())}
	case reflect.Struct:
		return objectSchema(t)
	}
	return schema{}
}

// objectSchema describes a struct's JSON object, field by field.
func objectSchema(t reflect.Type) schema {
	props := schema{}
	required := []string{}
	for _, f := range jsonFields(t) {
		fs := schemaOf(f.typ)
		if f.doc != "" {
			fs["description"] = f.doc
		}
		if f.enum != nil {
			fs["enum"] = f.enum
		}
		props[f.name] = fs
		if f.required {
			required = append(required, f.name)
		}
	}
	return schema{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// jsonFields is structFields with embedded structs flattened, as
// encoding/json writes them (the tool results embed wire.ToolResult).
func jsonFields(t reflect.Type) []field {
	var out []field
	for _, f := range structFields(t) {
		sf := t.Field(f.index)
		if sf.Anonymous && sf.Tag.Get("json") == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, jsonFields(et)...)
				continue
			}
		}
		out = append(out, f)
	}
	return out
}
