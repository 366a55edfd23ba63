package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// The golden exchanges compare JSON as values, member order and
// whitespace aside, and are written back (-update) in the order the daemon
// sent, so a jval keeps an object's members in order.

// jval is one JSON value. Exactly one of the fields describes it: obj for
// an object (members in order), arr for an array, or scalar for the
// encoded text of a string, number, boolean or null.
type jval struct {
	obj    []member
	arr    []*jval
	isObj  bool
	isArr  bool
	scalar json.RawMessage
}

type member struct {
	key string
	val *jval
}

// parseJSON reads exactly one JSON value from data.
func parseJSON(data []byte) (*jval, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (*jval, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := &jval{isObj: true}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				v.obj = append(v.obj, member{k.(string), val})
			}
			_, err := dec.Token()
			return v, err
		case '[':
			v := &jval{isArr: true, arr: []*jval{}}
			for dec.More() {
				val, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, val)
			}
			_, err := dec.Token()
			return v, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		raw, err := json.Marshal(t)
		return &jval{scalar: raw}, err
	}
}

// str is the value of a JSON string, and whether v is one.
func (v *jval) str() (string, bool) {
	if v == nil || len(v.scalar) == 0 || v.scalar[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(v.scalar, &s) == nil
}

// get is the member key of an object, or nil.
func (v *jval) get(key string) *jval {
	if v == nil {
		return nil
	}
	for _, m := range v.obj {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// The placeholders an expected response may hold (testdata/README.md).
const (
	anyValue    = "$any"  // any value; the member must be there
	anyOrAbsent = "$any?" // any value, or no such member
)

// match compares an expected value with the one received; it returns ""
// when they agree, else where and how they differ.
func match(path string, want, got *jval) string {
	if s, ok := want.str(); ok && (s == anyValue || s == anyOrAbsent) {
		return ""
	}
	switch {
	case want.isObj:
		if !got.isObj {
			return fmt.Sprintf("%s: want an object, got %s", path, got.encode())
		}
		for _, m := range want.obj {
			g := got.get(m.key)
			if g == nil {
				if s, _ := m.val.str(); s == anyOrAbsent {
					continue
				}
				return fmt.Sprintf("%s.%s: missing", path, m.key)
			}
			if d := match(path+"."+m.key, m.val, g); d != "" {
				return d
			}
		}
		for _, m := range got.obj {
			if want.get(m.key) == nil {
				return fmt.Sprintf("%s.%s: not expected, got %s", path, m.key, m.val.encode())
			}
		}
		return ""
	case want.isArr:
		if !got.isArr {
			return fmt.Sprintf("%s: want an array, got %s", path, got.encode())
		}
		if len(want.arr) != len(got.arr) {
			return fmt.Sprintf("%s: want %d elements, got %d: %s", path, len(want.arr), len(got.arr), got.encode())
		}
		for i := range want.arr {
			if d := match(fmt.Sprintf("%s[%d]", path, i), want.arr[i], got.arr[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if got.isObj || got.isArr || !bytes.Equal(canonScalar(want.scalar), canonScalar(got.scalar)) {
		return fmt.Sprintf("%s: want %s, got %s", path, want.encode(), got.encode())
	}
	return ""
}

// canonScalar re-encodes a scalar, so "\u0041" and "A" compare equal.
func canonScalar(raw json.RawMessage) []byte {
	var x any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&x) != nil {
		return raw
	}
	out, err := json.Marshal(x)
	if err != nil {
		return raw
	}
	return out
}

// keepPlaceholders is got with want's placeholders kept where got still
// has a value (or none) there: what -update writes back.
func keepPlaceholders(want, got *jval) *jval {
	if want == nil || got == nil {
		return got
	}
	if s, ok := want.str(); ok && (s == anyValue || s == anyOrAbsent) {
		return want
	}
	switch {
	case want.isObj && got.isObj:
		out := &jval{isObj: true}
		for _, m := range got.obj {
			out.obj = append(out.obj, member{m.key, keepPlaceholders(want.get(m.key), m.val)})
		}
		for _, m := range want.obj {
			if s, _ := m.val.str(); s == anyOrAbsent && got.get(m.key) == nil {
				out.obj = append(out.obj, m)
			}
		}
		return out
	case want.isArr && got.isArr && len(want.arr) <= len(got.arr):
		// Elements appended (a new method at the end of the table) keep
		// the placeholders of those before them.
		out := &jval{isArr: true, arr: make([]*jval, len(got.arr))}
		for i := range got.arr {
			if i < len(want.arr) {
				out.arr[i] = keepPlaceholders(want.arr[i], got.arr[i])
			} else {
				out.arr[i] = got.arr[i]
			}
		}
		return out
	}
	return got
}

// mapStrings applies f to every string in v, keys aside.
func (v *jval) mapStrings(f func(string) string) *jval {
	switch {
	case v.isObj:
		out := &jval{isObj: true}
		for _, m := range v.obj {
			out.obj = append(out.obj, member{m.key, m.val.mapStrings(f)})
		}
		return out
	case v.isArr:
		out := &jval{isArr: true, arr: make([]*jval, len(v.arr))}
		for i, e := range v.arr {
			out.arr[i] = e.mapStrings(f)
		}
		return out
	}
	if s, ok := v.str(); ok {
		raw, _ := marshalNoEscape(f(s))
		return &jval{scalar: raw}
	}
	return v
}

// marshalNoEscape encodes a string without escaping <, > and &, so the
// goldens read as the text they hold.
func marshalNoEscape(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// encode writes v on one line; pretty, indented by two spaces a level.
func (v *jval) encode() string {
	var b strings.Builder
	v.write(&b, "", false)
	return b.String()
}

func (v *jval) pretty() string {
	var b strings.Builder
	v.write(&b, "", true)
	return b.String()
}

func (v *jval) write(b *strings.Builder, indent string, pretty bool) {
	open := func(c byte, n int) string {
		b.WriteByte(c)
		if pretty && n > 0 {
			return indent + "  "
		}
		return indent
	}
	sep := func(i int, inner string) {
		if i > 0 {
			b.WriteByte(',')
		}
		if pretty {
			b.WriteString("\n" + inner)
		}
	}
	closeWith := func(c byte, n int) {
		if pretty && n > 0 {
			b.WriteString("\n" + indent)
		}
		b.WriteByte(c)
	}
	switch {
	case v.isObj:
		inner := open('{', len(v.obj))
		for i, m := range v.obj {
			sep(i, inner)
			k, _ := marshalNoEscape(m.key)
			b.Write(k)
			b.WriteByte(':')
			if pretty {
				b.WriteByte(' ')
			}
			m.val.write(b, inner, pretty)
		}
		closeWith('}', len(v.obj))
	case v.isArr && pretty && scalars(v.arr):
		// [1, 3], ["a.go", "b.go"]: a list of scalars on one line.
		b.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b, indent, false)
		}
		b.WriteByte(']')
	case v.isArr:
		inner := open('[', len(v.arr))
		for i, e := range v.arr {
			sep(i, inner)
			e.write(b, inner, pretty)
		}
		closeWith(']', len(v.arr))
	default:
		if s, ok := v.str(); ok {
			raw, _ := marshalNoEscape(s)
			b.Write(raw)
			return
		}
		b.Write(v.scalar)
	}
}

func scalars(vs []*jval) bool {
	for _, v := range vs {
		if v.isObj || v.isArr {
			return false
		}
	}
	return true
}
