package session

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hostd-dev/hostd/workspace"
)

// A chain goes on only from the text its last change left, and a session
// remembers the chains of at most maxErrorChains paths, the least
// recently used forgotten first.
func TestErrorChains(t *testing.T) {
	c := NewErrorChains()
	if _, ok := c.Of("/a", workspace.Sum("x\n")); ok {
		t.Fatal("a chain before any change")
	}
	regions := []LineSpan{{Start: 2, End: 4}}
	c.Continue("/a", workspace.Sum("x\n"), regions)
	if got, ok := c.Of("/a", workspace.Sum("x\n")); !ok || !reflect.DeepEqual(got, regions) {
		t.Fatalf("the text the chain left: %v %v", got, ok)
	}
	if _, ok := c.Of("/a", workspace.Sum("y\n")); ok {
		t.Fatal("another text went on with the chain")
	}
	if _, ok := c.Of("/b", workspace.Sum("x\n")); ok {
		t.Fatal("another path went on with the chain")
	}
	for i := range maxErrorChains {
		c.Continue(fmt.Sprintf("/p%d", i), workspace.Sum("x\n"), nil)
	}
	if c.Len() != maxErrorChains {
		t.Fatalf("%d chains, want %d", c.Len(), maxErrorChains)
	}
	if _, ok := c.Of("/a", workspace.Sum("x\n")); ok {
		t.Fatal("the least recently used chain was kept past the bound")
	}
}
