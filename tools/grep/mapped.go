package grep

import (
	"errors"
	"runtime/debug"
)

// mapMin is the size from which a file is searched mapped into memory
// (workspace.File.Map, where the platform maps) rather than read: the search then scans the page cache where it is, and
// the bytes are not copied first, which for large files costs more than
// mapping and unmapping them. Smaller files are cheaper to read.
const mapMin = 256 << 10

// errChanged is what a search reports of a mapped file that shrank while
// it was searched.
var errChanged = errors.New("the file was truncated while it was being searched")

// guardFaults runs fn, which reads a mapped file, with memory faults made
// panics (debug.SetPanicOnFault) and recovered: a file that another
// process truncates while fn reads it faults (SIGBUS) past its new end,
// which would otherwise end the daemon. *faulted says whether fn faulted;
// its result is then the zero result. Any other panic goes on.
func guardFaults(fn func() fileResult, faulted *bool) (r fileResult) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			if _, ok := e.(interface{ Addr() uintptr }); !ok {
				panic(e)
			}
			*faulted = true
		}
	}()
	return fn()
}
