package blocks

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/workspace"
	"golang.org/x/tools/txtar"
)

// fuzzPaths picks the grammar for FuzzResolve.
var fuzzPaths = []string{"a.rs", "a.ts", "a.tsx", "a.js", "a.json", "a.md", "a.css", "a.py", "a.toml", "a.yaml", "a.html", "a.sh", "a.txt",
	"a.go", "a.java", "a.c", "a.cpp", "a.cs", "a.rb", "a.php", "a.kt", "a.swift", "a.scala", "a.lua", "a.ex", "a.tf", "Dockerfile", "a.proto", "a.sql"}

// seedTestdata calls add with every file of testdata/*.txtar and the
// index in fuzzPaths of a path of its language, for a fuzz target's seeds.
func seedTestdata(f *testing.F, add func(text string, lang uint8)) {
	archives, _ := filepath.Glob("testdata/*.txtar")
	for _, path := range archives {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			for i, p := range fuzzPaths {
				if LanguageFor(p, "") == LanguageFor(file.Name, string(file.Data)) {
					add(string(file.Data), uint8(i))
				}
			}
		}
	}
}

// FuzzResolve: any text in any language, any line: no panic, and every
// answer satisfies checkLine.
func FuzzResolve(f *testing.F) {
	seedTestdata(f, func(text string, lang uint8) { f.Add(text, lang, uint16(3)) })
	f.Fuzz(func(t *testing.T, text string, lang uint8, line uint16) {
		if len(text) > 16<<10 {
			return
		}
		path := fuzzPaths[int(lang)%len(fuzzPaths)]
		r, err := NewResolver(path, text, defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		lines := workspace.Lines(text)
		checkLine(t, r, lines, int(line)%(len(lines)+2))
	})
}

// jsonValue builds a JSON value from fuzz bytes: objects and arrays nest,
// scalars fill the leaves.
func jsonValue(data []byte, depth int) (any, []byte) {
	if len(data) == 0 || depth > 5 {
		return 1, data
	}
	b, data := data[0], data[1:]
	n := int(b>>4) % 4
	switch b % 4 {
	case 0:
		obj := map[string]any{}
		for i := 0; i < n; i++ {
			var v any
			v, data = jsonValue(data, depth+1)
			obj[fmt.Sprintf("k%d", i)] = v
		}
		return obj, data
	case 1:
		arr := []any{}
		for i := 0; i < n; i++ {
			var v any
			v, data = jsonValue(data, depth+1)
			arr = append(arr, v)
		}
		return arr, data
	case 2:
		return fmt.Sprintf("s%d", b), data
	}
	return int(b), data
}

// jsonOracle: in indented JSON a line ending in "{" or "[" opens a block
// that ends at the next line with the same indentation; no other line
// opens one.
func jsonOracle(lines []string) map[int]int {
	spans := map[int]int{}
	for i, l := range lines {
		if !strings.HasSuffix(l, "{") && !strings.HasSuffix(l, "[") {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		for j := i + 1; j < len(lines); j++ {
			if len(lines[j])-len(strings.TrimLeft(lines[j], " ")) == indent {
				spans[i+1] = j + 1
				break
			}
		}
	}
	return spans
}

func FuzzJSONOracle(f *testing.F) {
	f.Add([]byte{0x30, 0x21, 0x10, 0x32, 0x02, 0x03})
	f.Add([]byte{0x31, 0x30, 0x30, 0x22})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, _ := jsonValue(data, 0)
		raw, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw) + "\n"
		lines := workspace.Lines(text)
		want := jsonOracle(lines)
		r, err := NewResolver("gen.json", text, defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for line := 1; line <= len(lines); line++ {
			s, e, err := r.Resolve(line)
			end, opens := want[line]
			switch {
			case opens && (err != nil || s != line || e != end):
				t.Fatalf("line %d of\n%s\ngot %d-%d, %v; want %d-%d", line, text, s, e, err, line, end)
			case !opens && err == nil:
				t.Fatalf("line %d of\n%s\nresolved to %d-%d; the oracle has no block there", line, text, s, e)
			}
		}
	})
}

// markdownDoc builds a document of ATX headings, paragraph lines and
// blank lines from fuzz bytes.
func markdownDoc(data []byte) []string {
	var lines []string
	for i, b := range data {
		switch {
		case b%3 == 0:
			lines = append(lines, strings.Repeat("#", int(b>>2)%6+1)+fmt.Sprintf(" Heading %d", i))
		case b%3 == 1:
			lines = append(lines, fmt.Sprintf("Text %d.", i))
		default:
			lines = append(lines, "")
		}
	}
	return lines
}

// markdownOracle: a heading's section runs to the line before the next
// heading of the same or a higher level, less trailing blank lines.
func markdownOracle(lines []string, i int) (end int, ok bool) {
	level := func(l string) int {
		if !strings.HasPrefix(l, "#") {
			return 0
		}
		return len(l) - len(strings.TrimLeft(l, "#"))
	}
	end = len(lines) - 1
	for j := i + 1; j < len(lines); j++ {
		if lv := level(lines[j]); lv > 0 && lv <= level(lines[i]) {
			end = j - 1
			break
		}
	}
	for end > i && lines[end] == "" {
		end--
	}
	return end + 1, end > i
}

func FuzzMarkdownOracle(f *testing.F) {
	f.Add([]byte{0, 1, 2, 4, 1, 8, 1, 0, 1})
	f.Add([]byte{12, 1, 4, 2, 1, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 400 {
			return
		}
		lines := markdownDoc(data)
		text := workspace.Join(lines, true)
		r, err := NewResolver("gen.md", text, defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for i, l := range lines {
			if !strings.HasPrefix(l, "#") {
				continue
			}
			s, e, err := r.Resolve(i + 1)
			end, ok := markdownOracle(lines, i)
			switch {
			case ok && (err != nil || s != i+1 || e != end):
				t.Fatalf("line %d of\n%s\ngot %d-%d, %v; want %d-%d", i+1, text, s, e, err, i+1, end)
			case !ok && err == nil:
				t.Fatalf("line %d of\n%s\nresolved to %d-%d; the section is the heading alone", i+1, text, s, e)
			}
		}
	})
}

// FuzzLineBounds: the sparse line index finds the same lines as
// workspace.Lines.
func FuzzLineBounds(f *testing.F) {
	f.Add(strings.Repeat("a\n", 200), uint16(130))
	f.Add(strings.Repeat("\n", 129)+"x", uint16(129))
	f.Add("no newline", uint16(0))
	f.Fuzz(func(t *testing.T, text string, row uint16) {
		lines := workspace.Lines(text)
		if len(lines) == 0 {
			return
		}
		r, err := NewResolver("a.txt", text, defaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{int(row) % len(lines), 0, len(lines) - 1} {
			s, e := r.lineBounds(i)
			if text[s:e] != lines[i] {
				t.Fatalf("row %d: %q, want %q", i, text[s:e], lines[i])
			}
		}
	})
}
