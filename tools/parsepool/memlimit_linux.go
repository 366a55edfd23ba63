package parsepool

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// limitMemory bounds the worker's memory on Linux with RLIMIT_DATA: the
// private writable memory it maps (the Go heap, C malloc's arenas, thread
// stacks) may grow by n bytes past what it maps now. A mapping past that
// fails; the Go runtime then ends the process ("out of memory") and
// tree-sitter's allocator aborts it, either of which the daemon answers
// as a decline. The limit is counted from what is mapped at start so that
// a runtime which maps much up front (the race detector's shadow memory)
// still gets n to grow by.
func limitMemory(n int64) (string, error) {
	base, err := dataMapped()
	if err != nil {
		return "", err
	}
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_DATA, &old); err != nil {
		return "", fmt.Errorf("getrlimit(RLIMIT_DATA): %w", err)
	}
	lim := uint64(base) + uint64(n)
	if lim < base || lim > old.Max {
		lim = old.Max
	}
	if err := unix.Setrlimit(unix.RLIMIT_DATA, &unix.Rlimit{Cur: lim, Max: old.Max}); err != nil {
		return "", fmt.Errorf("setrlimit(RLIMIT_DATA, %d): %w", lim, err)
	}
	return fmt.Sprintf("RLIMIT_DATA %d MiB (%d MiB mapped at start)", lim>>20, base>>20), nil
}

// dataMapped is the process's data mappings now (VmData), in bytes.
func dataMapped() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmData:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/self/status VmData %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmData in /proc/self/status")
}
