//go:build darwin && cgo

package endpoint

/*
#include <stdlib.h>
#include <unistd.h>
*/
import "C"

import "unsafe"

// userTempDir asks the system for the user's temporary directory
// (/var/folders/.../T/), the one launchd gives a login session as
// $TMPDIR; it does not read the environment.
func userTempDir() string {
	n := C.confstr(C._CS_DARWIN_USER_TEMP_DIR, nil, 0)
	if n == 0 {
		return ""
	}
	buf := (*C.char)(C.malloc(n))
	defer C.free(unsafe.Pointer(buf))
	if C.confstr(C._CS_DARWIN_USER_TEMP_DIR, buf, n) == 0 {
		return ""
	}
	return C.GoString(buf)
}
