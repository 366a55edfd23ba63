package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func loadFile(t *testing.T, text string) (string, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Default()
	return p, c.Load(p)
}

// Every error in the file says where: "config FILE:LINE:COL: what".
func TestLoadErrorsNameLineAndColumn(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"limit at the top level", "{\n  \"logLevel\": \"info\",\n  \"maxSessions\": 3\n}\n",
			`:3:3: unknown field "maxSessions": it is a limit, and limits belong under "limits": {"limits": {"maxSessions": ...}}`},
		{"unknown top-level field", `{"sock": "/x.sock"}`,
			`:1:2: unknown field "sock"; the fields at the top level are socket, stateDir, logFile, logLevel, limits, encodings, languageServers (docs/config.md)`},
		{"unknown limit", "{\"limits\": {\n\t\"maxSesions\": 3}}",
			`:2:2: unknown field "limits.maxSesions"; the fields in limits are maxPathsPerSession, `},
		{"wrong case", `{"limits": {"MaxSessions": 3}}`,
			`:1:13: unknown field "limits.MaxSessions"; did you mean "maxSessions"? (names are case-sensitive)`},
		{"a second object", "{\"limits\": {\"maxSessions\": 3}}\n{\"logLevel\": \"debug\"}\n",
			`:2:1: more data after the config object; the file holds exactly one JSON object`},
		{"trailing garbage", `{"logLevel": "debug"} x`,
			`:1:23: more data after the config object`},
		{"wrong type", "{\n  \"limits\": {\n    \"maxSessions\": \"lots\"\n  }\n}",
			`:3:5: limits.maxSessions must be an integer, not string`},
		{"a fraction", `{"limits": {"maxSessions": 1.5}}`,
			`:1:13: limits.maxSessions must be an integer, not number 1.5`},
		{"wrong type at the top", `{"logLevel": 3}`,
			`:1:2: logLevel must be a string, not number`},
		{"trailing comma", "{\n  \"logLevel\": \"info\",\n}",
			`:3:1: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"cut short", "{\"limits\": {\"maxSessions\": 3",
			`:1:29: the file ends before the JSON object does`},
		{"not an object", `["limits"]`,
			`:1:1: the file must hold one JSON object, {...}`},
		{"limits not an object", `{"limits": 3}`,
			`:1:12: "limits" must be an object`},
		{"empty", "\n",
			`:2:1: the file is empty; it must hold one JSON object`},
		{"a zero limit", "{\"limits\": {\n  \"maxRevealLines\": 0}}",
			`:2:3: limits.maxRevealLines must be positive, got 0`},
		{"negative grep threads", "{\"limits\": {\"grepThreads\": -1}}",
			`:1:13: limits.grepThreads must be 0 (one per CPU) or positive, got -1`},
		{"columns count characters", "{\"logFile\": \"é\", \"x\": 1}",
			`:1:18: unknown field "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := loadFile(t, tt.text)
			want := "config " + p + tt.want
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
}

func TestLoadKeepsDefaultsForEmptyPaths(t *testing.T) {
	c := Default()
	p := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(p, []byte(`{"socket": "", "stateDir": "", "logLevel": "", "limits": null}`), 0o600)
	if err := c.Load(p); err != nil {
		t.Fatal(err)
	}
	if d := Default(); !reflect.DeepEqual(c, d) {
		t.Errorf("empty strings and a null limits changed the config:\n%+v\n%+v", c, d)
	}
}

// The example file in the repository lists every setting and every limit,
// each with its default, and loads.
func TestTheExampleFileIsCompleteAndTheDefaults(t *testing.T) {
	const example = "hostd.example.json"
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	var limits map[string]json.RawMessage
	if err := json.Unmarshal(raw["limits"], &limits); err != nil {
		t.Fatal(err)
	}
	for _, f := range topFields {
		if _, ok := raw[f]; !ok {
			t.Errorf("%s lacks %q", example, f)
		}
	}
	for _, f := range limitFields {
		if _, ok := limits[f]; !ok {
			t.Errorf("%s lacks limits.%s", example, f)
		}
	}
	if len(limitFields) != 39 {
		t.Errorf("Limits has %d fields; this test and docs/config.md name 39", len(limitFields))
	}
	c := Default()
	if err := c.Load(example); err != nil {
		t.Fatal(err)
	}
	if d := Default(); !reflect.DeepEqual(c, d) {
		t.Errorf("%s is not the defaults:\n got %+v\nwant %+v", example, c, d)
	}
}

// docs/config.md names every limit.
func TestTheConfigDocNamesEveryLimit(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range slices.Concat(topFields, limitFields) {
		if !strings.Contains(string(doc), "`"+f+"`") {
			t.Errorf("docs/config.md does not name `%s`", f)
		}
	}
}

// FuzzLoad: no file makes Load panic, every position it reports is inside
// the file, and what it accepts is one valid JSON object.
func FuzzLoad(f *testing.F) {
	seed, _ := os.ReadFile("hostd.example.json")
	f.Add(seed)
	f.Add([]byte(`{"limits": {"maxSessions": 3}} {}`))
	f.Add([]byte("{\"maxSessions\": 3,\n\"limits\": {\"MaxSessions\": \"x\"}}"))
	f.Add([]byte(`{"socket": {"a": [1, {"b": null}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := Default()
		err := c.load(data)
		var pe *posError
		if errors.As(err, &pe) {
			if pe.off < 0 || pe.off > int64(len(data)) {
				t.Fatalf("offset %d outside a %d-byte file", pe.off, len(data))
			}
			line, col := position(data, pe.off)
			if line < 1 || col < 1 || col > utf8.RuneCount(data)+1 {
				t.Fatalf("position %d:%d", line, col)
			}
		}
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
	})
}

func TestEncodingsAreCheckedWhereTheyStand(t *testing.T) {
	ok := `{"encodings": [{"glob": "*.txt", "encoding": "windows-1252"}, {"root": "` + filepath.ToSlash(os.TempDir()) + `", "glob": "legacy/**", "encoding": "shift_jis"}]}`
	if !filepath.IsAbs(filepath.ToSlash(os.TempDir())) {
		ok = `{"encodings": [{"glob": "*.txt", "encoding": "windows-1252"}]}`
	}
	if _, err := loadFile(t, ok); err != nil {
		t.Fatalf("valid rules refused: %v", err)
	}
	for _, c := range []struct{ text, want string }{
		{`{"encodings": [{"glob": "*.txt", "encoding": "klingon"}]}`, `:1:2: encodings[0]: unknown encoding "klingon"`},
		{`{"encodings": [{"glob": "*.txt", "encoding": "utf-16"}]}`, `name the byte order`},
		{`{"encodings": [{"glob": "*.txt", "encoding": "iso-2022-jp"}]}`, `keeps a shift state`},
		{"{\n \"encodings\": [{\"glob\": \"\", \"encoding\": \"latin1\"}]}", `:2:2: encodings[0]: glob is empty`},
		{`{"encodings": [{"glob": "[", "encoding": "latin1"}]}`, `glob "[" is malformed`},
		{`{"encodings": [{"root": "rel/dir", "glob": "*", "encoding": "latin1"}]}`, `root "rel/dir" must be an absolute directory`},
		{`{"encodings": [{"glob": "*", "charset": "latin1"}]}`, `unknown field "charset"`},
	} {
		_, err := loadFile(t, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.text, err, c.want)
		}
	}
}

func TestLanguageServersSettings(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{`{"languageServers": {"maxServers": 0}}`, "1:2: languageServers.maxServers (0) must be positive"},
		{`{"languageServers": {"off": ["rel/dir"]}}`, `languageServers.off[0] ("rel/dir") must be an absolute directory`},
		{`{"languageServers": {"maxRestarts": -1}}`, "languageServers.maxRestarts (-1) must be 0 or more"},
	} {
		p := filepath.Join(t.TempDir(), "c.json")
		os.WriteFile(p, []byte(tc.file), 0o644)
		c := Default()
		if err := c.Load(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.file, err, tc.want)
		}
	}
	p := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(p, []byte(`{"languageServers": {"enabled": false, "servers": {"go": []}, "maxRestarts": 0}}`), 0o644)
	c := Default()
	if err := c.Load(p); err != nil {
		t.Fatal(err)
	}
	ls := c.LanguageServers
	if ls.Enabled || ls.Servers["go"] == nil || len(ls.Servers["go"]) != 0 || ls.MaxRestarts != 0 || ls.MaxServers != 4 {
		t.Fatalf("%+v", ls)
	}
}
