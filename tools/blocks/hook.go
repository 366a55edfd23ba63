package blocks

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
)

// parseHook, when set, runs before every parse with the text about to be
// parsed. It stands for grammars that misbehave, which the real ones do
// not do on demand: only a parse worker of a test (this package's tests,
// or a hostd built with the hostdtesthooks tag and told by its
// environment, hook_tagged.go) ever sets it; the daemon never does.
var parseHook func(text string)

// TestHookEnv is the environment variable a test sets to make the parse
// workers it starts misbehave, in a binary that honours it (see
// parseHook). Its value is ACTION:MARKER, and a parse of a text holding
// MARKER then does ACTION:
//
//   - abort: the C library's abort(), as a grammar's failed assertion
//     does;
//   - spin: loops on the CPU and never returns, as a grammar whose error
//     recovery cannot be stopped does;
//   - alloc: allocates memory until the process's memory limit ends it
//     (at most maxHookAllocs chunks of 16 MiB; then it spins).
const TestHookEnv = "HOSTD_TEST_PARSE_HOOK"

// hookFromEnv is the hook TestHookEnv asks for, nil when it is unset or
// malformed (a malformed value is reported on stderr, which the daemon
// logs).
func hookFromEnv() func(text string) {
	spec := os.Getenv(TestHookEnv)
	if spec == "" {
		return nil
	}
	action, marker, ok := strings.Cut(spec, ":")
	if !ok || marker == "" {
		fmt.Fprintf(os.Stderr, "parse worker: %s=%q is not ACTION:MARKER; no hook\n", TestHookEnv, spec)
		return nil
	}
	var do func()
	switch action {
	case "abort":
		do = abortProcess
	case "spin":
		do = func() {
			for { // a memory limit above what it took: it spins instead
				hookSpins.Add(1)
			}
		}
	case "alloc":
		do = func() {
			var held [][]byte
			for len(held) < maxHookAllocs {
				b := make([]byte, 16<<20)
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1
				}
				held = append(held, b)
			}
			runtime.KeepAlive(held)
			for {
				hookSpins.Add(1)
			}
		}
	default:
		fmt.Fprintf(os.Stderr, "parse worker: %s action %q is not abort, spin or alloc; no hook\n", TestHookEnv, action)
		return nil
	}
	return func(text string) {
		if strings.Contains(text, marker) {
			do()
		}
	}
}

// maxHookAllocs bounds the alloc hook, so a test run without a memory
// limit fails by time instead of taking the machine's memory.
const maxHookAllocs = 64

// hookSpins counts the spin hook's turns, as a grammar's loop counts
// characters.
var hookSpins atomic.Uint64

// UseTestHook turns on the hook TestHookEnv asks for in this process: for
// the tests of the parse worker pool (tools/parsepool), whose test binary
// serves as its own workers. The daemon never calls it.
func UseTestHook() { parseHook = hookFromEnv() }
