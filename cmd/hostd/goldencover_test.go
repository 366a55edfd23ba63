package main

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// notInGoldens are the codes no golden exchange can show, and why: each
// needs calls racing on one daemon or a fault no request can cause, which
// a replay of one request at a time cannot produce deterministically. The
// rpc and tools packages' tests cover them. A code listed here that a
// golden starts to show fails the test, so the list stays true.
var notInGoldens = map[string]string{
	"SHUTTING_DOWN":                   "a request that arrives while the daemon drains: after host.shutdown the daemon may close the connection first (rpc/cancel_test.go)",
	"REQUEST_CANCELLED":               "needs a call still running when $/cancelRequest arrives (rpc/cancel_test.go)",
	"OVERLOADED":                      "needs other frames holding the memory budget at that moment (rpc/budget_test.go)",
	"INTERNAL_ERROR":                  "a bug, or a review store broken while running (rpc/methods_test.go)",
	"HOST_BUSY":                       "needs other calls holding the memory budget at that moment (tools/budget_test.go)",
	"MUTATION_RETRY_BUDGET_EXHAUSTED": "declared in tools/result.go but never returned by any tool",
}

// editOps are the edit language's op forms (tools/defs/edit.md), each
// matched against one op line of an edit's ops.
var editOps = map[string]*regexp.Regexp{
	"PUT N.=M: (replace)":         regexp.MustCompile(`^PUT \d+\.=\d+:$`),
	"PUT <N: (insert before)":     regexp.MustCompile(`^PUT <\d+:$`),
	"PUT >N: (insert after)":      regexp.MustCompile(`^PUT >\d+:$`),
	"PUT >$: (append)":            regexp.MustCompile(`^PUT >\$:$`),
	"PUT N*: (replace a block)":   regexp.MustCompile(`^PUT \d+\*:$`),
	"PUT >N*: (after a block)":    regexp.MustCompile(`^PUT >\d+\*:$`),
	"CUT N.=M":                    regexp.MustCompile(`^CUT \d+\.=\d+$`),
	"CUT N*":                      regexp.MustCompile(`^CUT \d+\*$`),
	"CUT N.=M @name":              regexp.MustCompile(`^CUT \d+\.=\d+ @\w+$`),
	"PUT <N / PUT >N (paste)":     regexp.MustCompile(`^PUT [<>]\d+$`),
	"PUT <N @name (paste a name)": regexp.MustCompile(`^PUT [<>]\d+ @\w+$`),
	"REM":                         regexp.MustCompile(`^REM$`),
	"MV DEST":                     regexp.MustCompile(`^MV \S+$`),
}

// TestGoldensCoverTheWire checks that the goldens show every method the
// daemon serves (rpc.discover's list, itself a golden replayed against
// the daemon), every wire error code, every tool error code and every op
// of the edit language.
func TestGoldensCoverTheWire(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	methods, codes, ops := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var served []string
	for _, path := range paths {
		a, err := loadArchive(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range a.exchanges {
			// A frame that is not JSON, on purpose, is a nil req.
			req, _ := parseJSON(x.request)
			method, _ := req.get("method").str()
			methods[method] = true
			if names := discovered(t, method, x.response); len(names) > 0 {
				served = names
			}
			if tool, _ := req.get("params").get("tool").str(); tool == "edit" {
				text, _ := req.get("params").get("args").get("ops").str()
				for _, line := range strings.Split(text, "\n") {
					for name, re := range editOps {
						if re.MatchString(line) {
							ops[name] = true
						}
					}
				}
			}
			if x.response == nil {
				continue
			}
			resp, err := parseJSON(x.response)
			if err != nil {
				t.Fatalf("%s: %d.response.json: %v", path, x.n, err)
			}
			if c, ok := resp.get("error").get("data").get("code").str(); ok {
				codes[c] = true
			}
			if c, ok := resp.get("result").get("error").get("code").str(); ok {
				codes[c] = true
			}
		}
	}
	if len(served) < 10 {
		t.Fatalf("the rpc.discover golden lists %d methods", len(served))
	}
	for _, m := range served {
		if !methods[m] {
			t.Errorf("no golden calls %s", m)
		}
	}
	want := []string{}
	for _, c := range []wire.Code{
		wire.CodeParseError, wire.CodeInvalidRequest, wire.CodeMethodNotFound, wire.CodeInvalidParams,
		wire.CodeInternal, wire.CodeShuttingDown, wire.CodeSessionNotFound, wire.CodeWorkspaceInvalid,
		wire.CodeRollbackConflict, wire.CodeReviewNotFound, wire.CodeUnknownTool, wire.CodeSessionLimit,
		wire.CodeOverloaded, wire.CodeResultTooLarge, wire.CodeRequestCancelled,
	} {
		want = append(want, c.Name)
	}
	want = append(want,
		wire.ToolInvalidArgument, wire.ToolDenied, wire.ToolOutsideWorkspace, wire.ToolFailed,
		wire.ToolNotFound, wire.ToolNotAFile, wire.ToolNotText, wire.ToolFileTooLarge,
		wire.ToolTagRequired, wire.ToolTagMismatch, wire.ToolTagUnknown, wire.ToolLinesUnseen,
		wire.ToolParseFailed, wire.ToolRangeInvalid, wire.ToolBlockUnresolved, wire.ToolRegisterEmpty,
		wire.ToolRegisterAmbiguous, wire.ToolRepairAmbiguous, wire.ToolNoChange, wire.ToolAmplificationLimit,
		wire.ToolRetryBudgetExhausted, wire.ToolHostBusy,
	)
	for _, c := range want {
		why, exempt := notInGoldens[c]
		switch {
		case exempt && codes[c]:
			t.Errorf("%s is shown by a golden now: take it off notInGoldens (%s)", c, why)
		case !exempt && !codes[c]:
			t.Errorf("no golden answers with %s", c)
		}
	}
	var missing []string
	for name := range editOps {
		if !ops[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		t.Errorf("no golden edit uses %s", name)
	}
}

// discovered is the method names of a successful rpc.discover answer.
func discovered(t *testing.T, method string, response []byte) []string {
	if method != "rpc.discover" || response == nil {
		return nil
	}
	v, err := parseJSON(response)
	if err != nil {
		t.Fatalf("the rpc.discover golden: %v", err)
	}
	list := v.get("result").get("methods")
	if list == nil {
		return nil // answered with an error
	}
	var names []string
	for _, m := range list.arr {
		if n, ok := m.get("name").str(); ok {
			names = append(names, n)
		}
	}
	return names
}
