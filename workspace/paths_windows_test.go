package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// winTree makes a workspace on Windows with one file, src\Foo.go, and a
// directory whose long name has an 8.3 short name.
func winTree(t *testing.T) (*Workspace, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(tempDir(t))
	must(t, err)
	must(t, os.MkdirAll(filepath.Join(root, "src", "a long directory name"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "src", "Foo.go"), []byte("old\n"), 0o644))
	w, err := New(root, "", nil)
	must(t, err)
	return w, root
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	must(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// NTFS folds case: every spelling resolves to the stored name, and a
// write through another spelling keeps it.
func TestWindowsSpellingsResolveToTheStoredName(t *testing.T) {
	w, root := winTree(t)
	want := filepath.Join(root, "src", "Foo.go")
	for _, spelling := range []string{`src\Foo.go`, `SRC\FOO.GO`, `src/foo.go`, strings.ToUpper(root) + `\src\foo.go`} {
		p, err := w.Resolve(spelling, Write)
		must(t, err)
		if p.Abs != want || p.Display != "src/Foo.go" {
			t.Errorf("Resolve(%s) = %s shown as %s, want %s shown as src/Foo.go", spelling, p.Abs, p.Display, want)
		}
	}
	p, err := w.Resolve(`SRC\FOO.GO`, Write)
	must(t, err)
	must(t, p.WriteFile([]byte("new\n"), 0o644, Want(true, []byte("old\n"))))
	if got := dirNames(t, filepath.Join(root, "src")); !slices.Contains(got, "Foo.go") {
		t.Fatalf("src holds %q: the write renamed Foo.go", got)
	}
}

// An 8.3 short name is resolved to the long name before the root check:
// one key, and a root given by its short name is the long one.
func TestWindowsShortNamesResolveToLongNames(t *testing.T) {
	w, root := winTree(t)
	long := filepath.Join(root, "src", "a long directory name")
	short := shortName(t, long)
	if short == long {
		t.Skip("this volume makes no 8.3 short names")
	}
	p, err := w.Resolve(filepath.Join(short, "new.txt"), Write)
	must(t, err)
	if p.Abs != filepath.Join(long, "new.txt") {
		t.Errorf("Resolve(%s) = %s, want the long name %s", short, p.Abs, filepath.Join(long, "new.txt"))
	}
	sw, err := New(shortName(t, root), "", nil)
	must(t, err)
	if sw.Root() != root {
		t.Errorf("a root given as %s is %s, want the long %s", shortName(t, root), sw.Root(), root)
	}
}

func shortName(t *testing.T, long string) string {
	t.Helper()
	p, err := windows.UTF16PtrFromString(long)
	must(t, err)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetShortPathName(p, &buf[0], uint32(len(buf)))
	must(t, err)
	return windows.UTF16ToString(buf[:n])
}

// Reserved names, streams, device paths, drive-relative paths and other
// volumes are refused before anything is opened; trailing dots and
// spaces are dropped, so a write lands on the name Windows means.
func TestWindowsPathRulesInResolve(t *testing.T) {
	w, root := winTree(t)
	for p, want := range map[string]error{
		`nul.txt`:                              ErrBadPath,
		`src\CON .c`:                           ErrBadPath,
		`src\Foo.go:hidden`:                    ErrBadPath,
		`src\Foo.go::$DATA`:                    ErrBadPath,
		`\\?\` + root + `\src\Foo.go`:          ErrBadPath,
		`\\.\` + root + `\src\Foo.go`:          ErrBadPath,
		root[:2] + `src\Foo.go`:                ErrBadPath, // drive-relative
		`\src\Foo.go`:                          ErrBadPath,
		`\\no-such-server.invalid\share\a.txt`: ErrOutside,
	} {
		if _, err := w.Resolve(p, Write); !errors.Is(err, want) {
			t.Errorf("Resolve(%s) error = %v, want %v", p, err, want)
		}
	}
	p, err := w.Resolve(`src\Foo.go. `, Write)
	must(t, err)
	if p.Abs != filepath.Join(root, "src", "Foo.go") {
		t.Fatalf("Resolve(Foo.go. ) = %s, want Foo.go", p.Abs)
	}
	must(t, p.WriteFile([]byte("dots\n"), 0o644, Want(true, []byte("old\n"))))
	if got := dirNames(t, filepath.Join(root, "src")); !slices.Equal(got, []string{"Foo.go", "a long directory name"}) {
		t.Fatalf("src holds %q, want Foo.go and the directory", got)
	}
}

// A junction (a directory mount point) leading out of the root is
// followed before the root check and refused, as a symbolic link is.
func TestWindowsJunctionOutIsOutside(t *testing.T) {
	outside := tempDir(t)
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644))
	if err := junction(filepath.Join(tempDir(t), "j"), outside); err != nil {
		t.Skipf("cannot make a junction here (wine 8 has no reparse points): %v", err)
	}
	w, root := winTree(t)
	must(t, junction(filepath.Join(root, "j"), outside))
	for _, p := range []string{`j\secret.txt`, `j\new.txt`, `j`} {
		if _, err := w.Resolve(p, Write); !errors.Is(err, ErrOutside) {
			t.Errorf("Resolve(%s) error = %v, want ErrOutside", p, err)
		}
	}
	// Made after the resolution: the open root refuses it.
	p, err := w.Resolve(`k\secret.txt`, Read)
	must(t, err)
	must(t, junction(filepath.Join(root, "k"), outside))
	if _, err := p.Open(); !errors.Is(err, ErrOutside) {
		t.Errorf("open through a junction made after Resolve: %v, want ErrOutside", err)
	}
}

// junction makes link a directory junction to target.
func junction(link, target string) error {
	if err := os.Mkdir(link, 0o755); err != nil {
		return err
	}
	p, err := windows.UTF16PtrFromString(link)
	if err != nil {
		return err
	}
	h, err := windows.CreateFile(p, windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	sub, _ := windows.UTF16FromString(`\??\` + target)
	print, _ := windows.UTF16FromString(target)
	// REPARSE_DATA_BUFFER for a mount point: tag, data length, reserved,
	// then the substitute and print names, each NUL-terminated.
	names := append(sub, print...)
	data := make([]uint16, 4+len(names))
	data[0] = 0 // SubstituteNameOffset
	data[1] = uint16(2 * (len(sub) - 1))
	data[2] = uint16(2 * len(sub)) // PrintNameOffset
	data[3] = uint16(2 * (len(print) - 1))
	copy(data[4:], names)
	buf := make([]byte, 8+2*len(data))
	*(*uint32)(unsafe.Pointer(&buf[0])) = windows.IO_REPARSE_TAG_MOUNT_POINT
	*(*uint16)(unsafe.Pointer(&buf[4])) = uint16(2 * len(data))
	copy(buf[8:], unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), 2*len(data)))
	var n uint32
	return windows.DeviceIoControl(h, windows.FSCTL_SET_REPARSE_POINT, &buf[0], uint32(len(buf)), nil, 0, &n, nil)
}

// holdOpen opens path as another program would, sharing only share, and
// closes it when the test ends.
func holdOpen(t *testing.T, path string, share uint32) func() {
	t.Helper()
	p, err := windows.UTF16PtrFromString(path)
	must(t, err)
	h, err := windows.CreateFile(p, windows.GENERIC_READ, share, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	must(t, err)
	closed := false
	release := func() {
		if !closed {
			closed = true
			windows.CloseHandle(h)
		}
	}
	t.Cleanup(release)
	return release
}

// A file another program holds open without sharing delete access cannot
// be replaced or removed on Windows: the write is ErrBusy, leaves no
// temporary file and the old bytes whole, and goes through once the
// other program lets go.
func TestWindowsWriteOverAFileHeldOpenIsBusy(t *testing.T) {
	for name, share := range map[string]uint32{
		"no sharing":             0,
		"read and write sharing": windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE,
	} {
		t.Run(name, func(t *testing.T) {
			w, root := winTree(t)
			file := filepath.Join(root, "src", "Foo.go")
			p, err := w.Resolve(`src\Foo.go`, Write)
			must(t, err)
			release := holdOpen(t, file, share)

			err = p.WriteFile([]byte("new\n"), 0o644, Want(true, []byte("old\n")))
			if !errors.Is(err, ErrBusy) {
				t.Fatalf("write over a file held open: %v, want ErrBusy", err)
			}
			ds, err := p.Prepare([]byte("new\n"), 0o644).Place(Want(true, []byte("old\n")))
			if !errors.Is(err, ErrBusy) || ds != nil {
				t.Fatalf("prepared write over a file held open: %v, want ErrBusy", err)
			}
			if err := p.RemoveFile(Want(true, []byte("old\n"))); !errors.Is(err, ErrBusy) {
				t.Fatalf("remove of a file held open: %v, want ErrBusy", err)
			}
			assertNoTemp(t, filepath.Dir(file))
			release()
			if got, _ := os.ReadFile(file); string(got) != "old\n" {
				t.Fatalf("the held file holds %q, want the old bytes", got)
			}
			must(t, p.WriteFile([]byte("new\n"), 0o644, Want(true, []byte("old\n"))))
			if got, _ := os.ReadFile(file); string(got) != "new\n" {
				t.Fatalf("after the other program let go: %q", got)
			}
		})
	}
}

// A file held open without any sharing cannot even be read: ErrBusy too.
func TestWindowsReadOfAFileHeldOpenIsBusy(t *testing.T) {
	w, root := winTree(t)
	p, err := w.Resolve(`src\Foo.go`, Read)
	must(t, err)
	holdOpen(t, filepath.Join(root, "src", "Foo.go"), 0)
	if _, err := p.Open(); !errors.Is(err, ErrBusy) {
		t.Fatalf("open of a file held without sharing: %v, want ErrBusy", err)
	}
}
