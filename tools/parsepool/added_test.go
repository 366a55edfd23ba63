package parsepool

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/tools/blocks"
	"github.com/hostd-dev/hostd/tools/syntax"
	"github.com/hostd-dev/hostd/workspace"
)

// TestWorkersAddedErrors: the workers answer as in-process, for a text
// sent whole and one sent as a delta, and a worker that ends during the
// check is an error, never "no errors".
func TestWorkersAddedErrors(t *testing.T) {
	w := newTestWorkers(t, 1, "spin:SPINME")
	lim := config.DefaultLimits().MaxBlockParseBytes
	clean := "const a = 1;\nfunction f(x: number) {\n  return x;\n}\n"
	broken := strings.Replace(clean, "return x;", "return (x;", 1)
	big := strings.Repeat("// padding the text past the delta size\n", 200)
	for _, tc := range []struct{ name, before, after string }{
		{"small", clean, broken},
		{"delta", big + clean, big + broken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := blocks.CountLines(tc.before)
			copies := []workspace.Copy{{New: 1, Old: 1, N: n - 2}, {New: n, Old: n, N: 1}}
			got, _, err := w.AddedErrors(withBudget(t, 5*time.Second), "a.ts", tc.before, true, tc.after, copies, nil, lim)
			if err != nil {
				t.Fatal(err)
			}
			in, _ := blocks.NewTrees(1 << 30)
			want, _, err := in.AddedErrors(context.Background(), "a.ts", tc.before, true, tc.after, copies, nil, lim)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("workers %+v, in-process %+v", got, want)
			}
		})
	}
	// Known regions reach the worker and old ones come back: an error
	// the before had is returned as old, and the same error known to the
	// chain explains it after the before lost it.
	gotAdded, gotOld, err := w.AddedErrors(withBudget(t, 5*time.Second), "k.ts", broken, true, broken+"const b = 2;\n", []workspace.Copy{{New: 1, Old: 1, N: 5}}, nil, lim)
	if err != nil || len(gotAdded) != 0 || len(gotOld) != 1 || gotOld[0].Start != 3 {
		t.Errorf("an old error: added %+v, old %+v, %v", gotAdded, gotOld, err)
	}
	gotAdded, gotOld, err = w.AddedErrors(withBudget(t, 5*time.Second), "k.ts", clean, true, broken, []workspace.Copy{{New: 1, Old: 1, N: 2}, {New: 4, Old: 4, N: 2}}, []syntax.ErrorRegion{{Start: 3, End: 3}}, lim)
	if err != nil || len(gotAdded) != 0 || len(gotOld) != 0 {
		t.Errorf("an error the chain knew: added %+v, old %+v, %v", gotAdded, gotOld, err)
	}
	_, _, err = w.AddedErrors(withBudget(t, 300*time.Millisecond), "a.ts", clean, true, clean+"// SPINME\n", []workspace.Copy{{New: 1, Old: 1, N: 4}}, nil, lim)
	if !errors.Is(err, blocks.ErrParseTime) {
		t.Errorf("a worker that spins past the parse time: %v, want ErrParseTime", err)
	}
}

// TestWorkersMarkdownHasNoSyntaxErrors: a markdown change is answered
// without a worker, as in-process.
func TestWorkersMarkdownHasNoSyntaxErrors(t *testing.T) {
	lim := config.DefaultLimits().MaxBlockParseBytes
	w := newTestWorkers(t, 2, "")
	if got, _, err := w.AddedErrors(withBudget(t, 5*time.Second), "a.md", "a\n", false, "[(\n", nil, nil, lim); err != nil || got != nil {
		t.Errorf("through the workers: added %+v, %v; want none", got, err)
	}
	if st := w.Stats(); st.Starts != 0 {
		t.Errorf("a markdown check started %d workers", st.Starts)
	}
}
