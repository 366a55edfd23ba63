package hashline

import (
	"errors"
	"strings"
	"testing"
)

// fakeDecline is a resolver refusal that names the enclosing range.
type fakeDecline struct{ start, end int }

func (d fakeDecline) Error() string                 { return "line opens no block; use the plain range instead" }
func (d fakeDecline) DeclineReason() string         { return "line opens no block" }
func (d fakeDecline) PlainRange() (int, int, bool)  { return d.start, d.end, d.start > 0 }
func (d fakeDecline) Resolve(int) (int, int, error) { return 0, 0, d }

// The alternative is phrased for the op the model wrote, over the range
// the resolver named.
func TestBlockDeclineNamesTheRangeForTheOp(t *testing.T) {
	lines := []string{"a", "b", "c", "d", "e"}
	cases := map[string]string{
		"PUT 3*:\n+x":  "use PUT 2.=4: with +TEXT rows",
		"CUT 3*":       "use CUT 2.=4",
		"PUT >3*:\n+x": "use PUT >4: with +TEXT rows",
	}
	for ops, want := range cases {
		_, err := Run(lines, ops, Env{Resolver: fakeDecline{2, 4}})
		var he *Error
		if !errors.As(err, &he) || he.Code != CodeBlockUnresolved || !strings.Contains(he.Message, want) || he.Reason != "line opens no block" {
			t.Errorf("%q: got %v, want a decline containing %q", ops, err, want)
		}
	}
	_, err := Run(lines, "CUT 3*", Env{Resolver: fakeDecline{}})
	if err == nil || !strings.Contains(err.Error(), "CUT 3.=M") {
		t.Errorf("without a range the generic alternative stays: %v", err)
	}
}
