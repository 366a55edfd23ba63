package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A citation is one section number cited in a file, at a 1-based line.
type citation struct {
	doc     string // "edit-contract" or "wire-contract"
	section string // "8.4"
	line    int
}

// A section reference is § and a dotted number. Comment markers and blanks
// may sit between a document's name and its §, or between the items of a
// list, because citations wrap across comment lines.
const (
	sectionNum = `§\s*([0-9]+(?:\.[0-9]+)*)`
	wrap       = `\s*(?://\s*)?`
	listSep    = wrap + `(?:,|and|or|-|–|to)?` + wrap
)

var (
	// citeRE finds a document's name and the first section it cites.
	citeRE = regexp.MustCompile(`\b(edit-contract|wire-contract)` + wrap + sectionNum)
	// moreRE continues a list: ", §12", " and §12", "-§5.4".
	moreRE = regexp.MustCompile(`^` + listSep + sectionNum)
	// seedRE is a citation of the seed's wire document, which the
	// repository no longer carries.
	seedRE = regexp.MustCompile(`rpc\.md` + wrap + `§`)
	// bareRE is a section number cited without a document's name.
	bareRE = regexp.MustCompile(sectionNum)
	// headingRE is a Markdown heading that opens with a section number:
	// "## 8. Lowering and application", "### 8.4 Replacement-boundary repair".
	headingRE = regexp.MustCompile(`^#{1,6}\s+([0-9]+(?:\.[0-9]+)*)\.?\s`)
	// linkRE is an inline Markdown link or image: [text](target "title").
	linkRE = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// schemeRE marks an absolute URL (https:, mailto:), which is not
	// checked: it needs the network.
	schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	// codeSpanRE is inline code, whose text is never a link.
	codeSpanRE = regexp.MustCompile("`[^`]*`")
)

// citations returns every section the text cites by document name,
// lists and ranges included ("edit-contract §5.3-§5.4", "§4.4 and §12").
func citations(text string) []citation {
	var out []citation
	for _, m := range citeRE.FindAllStringSubmatchIndex(text, -1) {
		doc := text[m[2]:m[3]]
		out = append(out, citation{doc, text[m[4]:m[5]], lineAt(text, m[4])})
		for rest := m[1]; ; {
			n := moreRE.FindStringSubmatchIndex(text[rest:])
			if n == nil {
				break
			}
			out = append(out, citation{doc, text[rest+n[2] : rest+n[3]], lineAt(text, rest+n[2])})
			rest += n[1]
		}
	}
	return out
}

// bareSections returns the sections text cites without a document's name,
// with their lines: in a contract document these are its own sections.
func bareSections(text string) []citation {
	var out []citation
	cited := citeSpans(text)
	for _, m := range bareRE.FindAllStringSubmatchIndex(text, -1) {
		if cited[m[0]] {
			continue
		}
		out = append(out, citation{"", text[m[2]:m[3]], lineAt(text, m[0])})
	}
	return out
}

// citeSpans marks the offsets of every § that belongs to a named citation.
func citeSpans(text string) map[int]bool {
	marked := map[int]bool{}
	for _, m := range citeRE.FindAllStringSubmatchIndex(text, -1) {
		marked[strings.LastIndex(text[:m[4]], "§")] = true
		for rest := m[1]; ; {
			n := moreRE.FindStringSubmatchIndex(text[rest:])
			if n == nil {
				break
			}
			marked[strings.LastIndex(text[:rest+n[2]], "§")] = true
			rest += n[1]
		}
	}
	return marked
}

// seedCitations returns the lines that cite rpc.md by section.
func seedCitations(text string) []int {
	var out []int
	for _, m := range seedRE.FindAllStringIndex(text, -1) {
		out = append(out, lineAt(text, m[0]))
	}
	return out
}

// headings returns the section numbers a Markdown text's headings open
// with, outside fenced code.
func headings(text string) map[string]bool {
	out := map[string]bool{}
	forEachProseLine(text, func(_ int, line string) {
		if m := headingRE.FindStringSubmatch(line); m != nil {
			out[m[1]] = true
		}
	})
	return out
}

// A link is a relative link target of a Markdown file, at a line.
type link struct {
	target string // without its #fragment
	line   int
}

// relativeLinks returns the targets of a Markdown text's inline links that
// name a file of the repository: no URL scheme, no bare #fragment. Links in
// fenced code or inline code are not links.
func relativeLinks(text string) []link {
	var out []link
	forEachProseLine(text, func(n int, line string) {
		line = codeSpanRE.ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			t := m[1]
			if schemeRE.MatchString(t) || strings.HasPrefix(t, "#") {
				continue
			}
			if i := strings.IndexByte(t, '#'); i >= 0 {
				t = t[:i]
			}
			out = append(out, link{t, n})
		}
	})
	return out
}

// forEachProseLine calls f with every line outside ``` or ~~~ fences.
func forEachProseLine(text string, f func(n int, line string)) {
	fence := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```"):
			fence = "```"
		case strings.HasPrefix(trimmed, "~~~"):
			fence = "~~~"
		default:
			f(n, line)
		}
	}
}

func lineAt(text string, off int) int { return strings.Count(text[:off], "\n") + 1 }

// repoRoot is the directory holding go.mod, above the test's directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// skipDir reports the directories never scanned: dependencies, fixtures
// (whose text is data, often quoting other documents' numbering), and the
// pending contract refinements, which cite sections that do not exist yet.
func skipDir(rel, name string) bool {
	switch name {
	case ".git", "node_modules", "testdata":
		return true
	}
	return filepath.ToSlash(rel) == "docs/pending"
}

// sourceFiles lists the repository's .go and .md files, relative to root,
// in walk order.
func sourceFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && skipDir(rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		// This package's own tests quote every citation form, broken
		// ones included, as data.
		if filepath.ToSlash(filepath.Dir(rel)) == "docs" && strings.HasSuffix(p, "_test.go") {
			return nil
		}
		if strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md") {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}
