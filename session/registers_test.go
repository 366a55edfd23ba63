package session

import (
	"fmt"
	"testing"
)

func TestRegistersEvictColdest(t *testing.T) {
	r := NewRegisters(16)
	for i := 1; i <= 16; i++ {
		r.Set(fmt.Sprintf("r%d", i), []string{fmt.Sprint(i)})
	}
	r.Get("r1") // r1 is now warm; r2 is the coldest
	r.Set("r17", []string{"17"})
	if _, ok := r.Get("r2"); ok {
		t.Fatal("the coldest register survived the 17th capture")
	}
	for _, name := range []string{"r1", "r3", "r16", "r17"} {
		if _, ok := r.Get(name); !ok {
			t.Fatalf("register %s was evicted", name)
		}
	}
	if r.Len() != 16 {
		t.Fatalf("holds %d registers, want 16", r.Len())
	}
}

func TestRegistersHoldCopies(t *testing.T) {
	r := NewRegisters(4)
	src := []string{"a", "b"}
	r.Set("x", src)
	src[0] = "changed"
	got, _ := r.Get("x")
	if got[0] != "a" {
		t.Fatal("a register aliases the captured slice")
	}
	got[1] = "changed"
	again, _ := r.Get("x")
	if again[1] != "b" {
		t.Fatal("Get hands out the register's own slice")
	}
	if l := r.List(); len(l) != 1 || l[0].Lines != 2 || l[0].Bytes != 4 {
		t.Fatalf("List = %+v", l)
	}
}
