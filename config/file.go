package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// The config file's shape is checked by walking its tokens before it is
// decoded: encoding/json reports an unknown field without saying where,
// matches field names case-insensitively, and stops after the first value
// without looking at what follows. The walk records where every field
// starts, so each error can name a line and column.

// posError is a problem at a byte offset of the file.
type posError struct {
	off int64
	msg string
}

func (e *posError) Error() string { return e.msg }

// limitError is a limit Validate refuses, by its JSON name.
type limitError struct {
	field string
	msg   string
}

func (e *limitError) Error() string { return "limits." + e.field + " " + e.msg }

// topFields and limitFields are the JSON names the file may use.
var (
	topFields   = jsonNames(reflect.TypeFor[Config]())
	limitFields = jsonNames(reflect.TypeFor[Limits]())
)

func jsonNames(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// load applies data, a config file's bytes, over c.
func (c *Config) load(data []byte) error {
	fields, err := scan(data)
	if err != nil {
		return err
	}
	prev := *c
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			off, ok := fields[te.Field]
			if !ok {
				off = te.Offset
			}
			return &posError{off: off, msg: fmt.Sprintf("%s must be %s, not %s", te.Field, typeName(te.Type), te.Value)}
		}
		return err
	}
	// An empty string keeps what was there (the default): the example
	// file lists every field without fixing this machine's paths.
	if c.Socket == "" {
		c.Socket = prev.Socket
	}
	if c.StateDir == "" {
		c.StateDir = prev.StateDir
	}
	if c.LogLevel == "" {
		c.LogLevel = prev.LogLevel
	}
	if len(c.Encodings) == 0 {
		c.Encodings = nil // [] is the default, as the example file writes it
	}
	if err := checkEncodings(c.Encodings); err != nil {
		if off, ok := fields["encodings"]; ok {
			return &posError{off: off, msg: err.Error()}
		}
		return err
	}
	if err := c.LanguageServers.check(); err != nil {
		if off, ok := fields["languageServers"]; ok {
			return &posError{off: off, msg: err.Error()}
		}
		return err
	}
	if err := c.Limits.Validate(); err != nil {
		var le *limitError
		if errors.As(err, &le) {
			if off, ok := fields["limits."+le.field]; ok {
				return &posError{off: off, msg: err.Error()}
			}
		}
		return err
	}
	return nil
}

// scan checks that data is exactly one JSON object whose fields are
// known, and returns where each field's name starts ("socket",
// "limits.maxSessions").
func scan(data []byte) (map[string]int64, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fields := map[string]int64{}
	start := skipSpace(data, 0)
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, &posError{off: start, msg: "the file is empty; it must hold one JSON object, {...}"}
	}
	if err != nil {
		return nil, syntaxError(data, err)
	}
	if tok != json.Delim('{') {
		return nil, &posError{off: start, msg: "the file must hold one JSON object, {...}"}
	}
	for dec.More() {
		off := skipSpace(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(data, err)
		}
		key, _ := tok.(string)
		switch {
		case key == "limits":
			fields[key] = off
			if err := scanLimits(data, dec, fields); err != nil {
				return nil, err
			}
			continue
		case slices.Contains(topFields, key):
			fields[key] = off
		case slices.Contains(limitFields, key):
			return nil, &posError{off: off, msg: fmt.Sprintf(`unknown field %q: it is a limit, and limits belong under "limits": {"limits": {%q: ...}}`, key, key)}
		default:
			return nil, &posError{off: off, msg: unknown(key, "", topFields)}
		}
		if err := skipValue(data, dec); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, syntaxError(data, err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &posError{off: skipSpace(data, end), msg: "more data after the config object; the file holds exactly one JSON object"}
	}
	return fields, nil
}

// scanLimits walks the value of "limits", recording its fields.
func scanLimits(data []byte, dec *json.Decoder, fields map[string]int64) error {
	start := skipSpace(data, dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return syntaxError(data, err)
	}
	if tok == nil {
		return nil // null leaves every limit as it is
	}
	if tok != json.Delim('{') {
		return &posError{off: start, msg: `"limits" must be an object, {"maxSessions": 64, ...}`}
	}
	for dec.More() {
		off := skipSpace(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return syntaxError(data, err)
		}
		key, _ := tok.(string)
		if !slices.Contains(limitFields, key) {
			return &posError{off: off, msg: unknown(key, "limits.", limitFields)}
		}
		fields["limits."+key] = off
		if err := skipValue(data, dec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return syntaxError(data, err)
	}
	return nil
}

// skipValue reads past one value token by token: the decoder's Token
// places a syntax error where it is, which its Decode does not mid-stream.
func skipValue(data []byte, dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return syntaxError(data, err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// unknown names an unknown field, with the field it most likely meant.
func unknown(key, prefix string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return fmt.Sprintf("unknown field %q; did you mean %q? (names are case-sensitive)", prefix+key, k)
		}
	}
	where := "at the top level"
	if prefix != "" {
		where = "in " + strings.TrimSuffix(prefix, ".")
	}
	return fmt.Sprintf("unknown field %q; the fields %s are %s (docs/config.md)", prefix+key, where, strings.Join(known, ", "))
}

// syntaxError places an error of dec.Token: a JSON syntax error at the
// character it names, a file that stops early at its end.
func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &posError{off: se.Offset, msg: "invalid JSON: " + se.Error()}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &posError{off: int64(len(data)), msg: "the file ends before the JSON object does (a missing } or \")"}
	}
	return err
}

func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

// position turns a byte offset into a 1-based line and column, the
// column counted in characters.
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[lineStart:])
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct:
		return "an object"
	}
	return t.String()
}
