package docs

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// tableAfter returns the rows of the first table after heading in text,
// split into trimmed cells.
func tableAfter(t *testing.T, text, heading string) [][]string {
	t.Helper()
	start := strings.Index(text, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("no heading %q", heading)
	}
	var rows [][]string
	inTable := false
	for line := range strings.SplitSeq(text[start:], "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(line, "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells[1:len(cells)-1])
	}
	if len(rows) < 3 {
		t.Fatalf("no table under %q", heading)
	}
	return rows[2:] // the header row and its rule
}

// codeName is a table cell's code without its note, "OVERLOADED" of
// "OVERLOADED (hostd's addition)".
func codeName(cell string) string {
	name, _, _ := strings.Cut(cell, " (")
	return name
}

// wire-contract §2's table is rpc/wire's codes, in order, with their
// retriable flags: the codes the OpenRPC document's components.errors is
// made from.
func TestWireContractErrorTableIsTheWireCodes(t *testing.T) {
	root := mustRoot(t)
	rows := tableAfter(t, mustRead(t, root, "docs/wire-contract.md"), "## 2. Errors")
	var got, want []string
	for _, r := range rows {
		got = append(got, r[0]+" "+codeName(r[1])+" retriable "+r[2])
	}
	for _, c := range wire.Codes {
		want = append(want, fmtCode(c))
	}
	if !slices.Equal(got, want) {
		t.Errorf("wire-contract §2's table:\n%s\nrpc/wire's codes:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func fmtCode(c wire.Code) string {
	yes := "no"
	if c.Retriable {
		yes = "yes"
	}
	return strings.Join([]string{strconv.FormatInt(c.Num, 10), c.Name, "retriable", yes}, " ")
}

// detailsNamed finds the `details: {…}` shapes a table cell names.
var detailsNamed = regexp.MustCompile("`details: \\{([^`]*)\\}`")

// wire-contract §4's tool error table is the tools' error table, in
// order, with its retriable column, and the details members each row
// names are the JSON fields of the type the tools set details with.
func TestWireContractToolErrorTableIsTheToolsTable(t *testing.T) {
	root := mustRoot(t)
	rows := tableAfter(t, mustRead(t, root, "docs/wire-contract.md"), "### Tool error codes")
	table := wire.ToolCodes
	var got, want []string
	for _, r := range rows {
		got = append(got, codeName(r[0]))
	}
	for _, c := range table {
		want = append(want, c.Code)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("wire-contract §4's tool error codes %v, the tools' table %v", got, want)
	}
	for i, c := range table {
		r := rows[i]
		if yes := strings.HasPrefix(r[1], "yes"); yes != c.Retriable {
			t.Errorf("%s: retriable %q in the table, %v in tools", c.Code, r[1], c.Retriable)
		}
		var members []string
		for _, m := range detailsNamed.FindAllStringSubmatch(strings.Join(r, " | "), -1) {
			for _, name := range topMembers(m[1]) {
				if !slices.Contains(members, name) {
					members = append(members, name)
				}
			}
		}
		slices.Sort(members)
		var fields []string
		if c.Details != nil {
			for i := range c.Details.NumField() {
				name, _, _ := strings.Cut(c.Details.Field(i).Tag.Get("json"), ",")
				fields = append(fields, name)
			}
			slices.Sort(fields)
		}
		if !slices.Equal(members, fields) {
			t.Errorf("%s: the table names details %v, tools sets %v", c.Code, members, fields)
		}
	}
}

// topMembers lists the top-level member names of a shape such as
// "liveTag, context: [{line, text}]".
func topMembers(shape string) []string {
	nested := regexp.MustCompile(`\[[^\[\]]*\]|\{[^{}]*\}`)
	for prev := ""; prev != shape; {
		prev, shape = shape, nested.ReplaceAllString(shape, "")
	}
	var out []string
	for m := range strings.SplitSeq(shape, ",") {
		name, _, _ := strings.Cut(m, ":")
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}
