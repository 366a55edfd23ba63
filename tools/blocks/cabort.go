package blocks

// #include <stdlib.h>
import "C"

// abortProcess ends the process the way a grammar's failed assertion
// does: the C library's abort() (SIGABRT; exit status 3 on Windows). Only
// a test hook calls it (hook.go).
func abortProcess() { C.abort() }
