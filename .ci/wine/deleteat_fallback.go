// Added to the standard library's internal/syscall/windows by go's
// -overlay when .ci/cross builds test binaries to run under wine, and
// never otherwise: wine 8.0 answers the POSIX-semantics delete Go tries
// first (FileDispositionInformationEx) with STATUS_NOT_IMPLEMENTED, which
// Go does not take as "unsupported", so every os.Remove and t.TempDir
// cleanup would fail. This turns on the fallback Go already has for older
// Windows versions and file systems (its own test hook).

package windows

func init() { TestDeleteatFallback = true }
