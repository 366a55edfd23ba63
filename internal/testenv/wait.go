package testenv

import (
	"testing"
	"time"
)

// pollEvery is how often Poll checks a condition that nothing announces.
const pollEvery = 10 * time.Millisecond

// Poll checks cond until it holds or bound has passed, and reports
// whether it held. It is the one loop in the tests that waits by
// checking again: for a condition no event announces (a counter another
// goroutine moves, a file another process removes). A wait on a process
// under test (its log, its exit) is Daemon.Await, which wakes on the
// process's own events instead.
func Poll(bound time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollEvery)
	}
	return true
}

// Until is Poll that ends the test when cond has not held within bound,
// naming what it waited for.
func Until(tb testing.TB, bound time.Duration, what string, cond func() bool) {
	tb.Helper()
	if !Poll(bound, cond) {
		tb.Fatalf("waited %v for %s, in vain", bound, what)
	}
}
