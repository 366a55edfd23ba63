package parsepool

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// limitStep is the precision to which limitMemory finds the address
// space a worker maps at start.
const limitStep = 16 << 20

// limitMemory bounds the worker's memory on macOS with RLIMIT_AS, which
// the kernel (XNU, since macOS 12) enforces on the size of the process's
// address space: a mapping past it fails, and the Go runtime or
// tree-sitter's allocator then ends the process, which the daemon answers
// as a decline. The address space counts reservations that hold no
// memory, so the limit is what the worker maps at start plus n. The
// kernel refuses a limit below what is mapped (EINVAL) and offers no
// other way to read that size here, so it is found by trying limits:
// doubling until one is accepted, then halving the gap to limitStep.
func limitMemory(n int64) (string, error) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &old); err != nil {
		return "", fmt.Errorf("getrlimit(RLIMIT_AS): %w", err)
	}
	try := func(v uint64) (bool, error) {
		err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: v, Max: old.Max})
		if errors.Is(err, unix.EINVAL) {
			return false, nil
		}
		return err == nil, err
	}
	lo, hi := uint64(0), uint64(limitStep) // lo refused (or 0), hi to try
	for {
		ok, err := try(hi)
		if err != nil {
			return "", fmt.Errorf("setrlimit(RLIMIT_AS, %d): %w", hi, err)
		}
		if ok {
			break
		}
		if hi >= old.Max/2 {
			return "", fmt.Errorf("setrlimit(RLIMIT_AS): no limit under %d bytes is accepted", old.Max)
		}
		lo, hi = hi, hi*2
	}
	for hi-lo > limitStep {
		mid := lo + (hi-lo)/2
		ok, err := try(mid)
		if err != nil {
			return "", fmt.Errorf("setrlimit(RLIMIT_AS, %d): %w", mid, err)
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	lim := min(hi+uint64(n), old.Max)
	if ok, err := try(lim); !ok {
		return "", fmt.Errorf("setrlimit(RLIMIT_AS, %d): %v", lim, err)
	}
	return fmt.Sprintf("RLIMIT_AS %d MiB (about %d MiB mapped at start)", lim>>20, hi>>20), nil
}
