package review

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/hostd-dev/hostd/config"
)

// A damaged file is moved aside under a name that says so, a fresh store
// starts, and the store says so: Recovered, Stats, and an error log line.
func TestOpenMovesDamagedFileAsideAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("not a database"), 0o600); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.ErrorLevel)
	s, err := Open(dir, config.DefaultLimits(), zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := s.Recovered()
	if rec == nil {
		t.Fatal("Recovered() = nil after opening a damaged file")
	}
	if filepath.Dir(rec.From) != dir || !strings.HasPrefix(filepath.Base(rec.From), FileName+".corrupt-") || rec.Reason == "" || rec.At.IsZero() {
		t.Errorf("Recovered() = %+v", rec)
	}
	if got, _ := os.ReadFile(rec.From); string(got) != "not a database" {
		t.Errorf("the moved file holds %q, want the damaged bytes kept as they were", got)
	}
	if st := s.Stats(); st.Recovered != rec {
		t.Errorf("Stats().Recovered = %+v, want %+v", st.Recovered, rec)
	}
	if logs.FilterMessageSnippet("moved aside").Len() != 1 {
		t.Errorf("want one error log line about the move, got %v", logs.All())
	}
	// The fresh store works and, reopened, is not reported as recovered.
	s2 := reopen(t, s, dir, config.DefaultLimits())
	if s2.Recovered() != nil {
		t.Errorf("a healthy store reports Recovered() = %+v", s2.Recovered())
	}
}

// Two recoveries in the same second keep both damaged files.
func TestMoveAsideNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	var froms []string
	for i := range 2 {
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(fmt.Sprint("damage ", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, config.DefaultLimits(), nil)
		if err != nil {
			t.Fatal(err)
		}
		froms = append(froms, s.Recovered().From)
		s.Close()
	}
	if froms[0] == froms[1] {
		t.Fatalf("both recoveries moved to %s", froms[0])
	}
	for i, f := range froms {
		if got, _ := os.ReadFile(f); string(got) != fmt.Sprint("damage ", i) {
			t.Errorf("%s holds %q", f, got)
		}
	}
}

// A file another process holds is refused as locked, and a damaged one
// is then not moved either: it may be that process's live store.
func TestOpenRefusesLockedStore(t *testing.T) {
	for _, damaged := range []bool{false, true} {
		t.Run(fmt.Sprint("damaged=", damaged), func(t *testing.T) {
			t.Parallel()
			dir := lockTestDir(t)
			path := filepath.Join(dir, FileName)
			if damaged {
				if err := os.WriteFile(path, bytes.Repeat([]byte{0xAB}, 8192), 0o600); err != nil {
					t.Fatal(err)
				}
				f, err := openLockable(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := lockFile(f, 0); err != nil {
					t.Fatal(err)
				}
			} else {
				db, err := bolt.Open(path, 0o600, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
			}
			_, err := Open(dir, config.DefaultLimits(), nil)
			if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "another hostd") {
				t.Fatalf("Open = %v, want ErrLocked asking about another hostd", err)
			}
			if aside, _ := filepath.Glob(path + ".corrupt-*"); len(aside) > 0 {
				t.Errorf("a locked file was moved aside: %v", aside)
			}
		})
	}
}

// A state directory that cannot exist (a file is in the way) is refused
// for that reason, not as a locked store.
func TestOpenRefusesNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(file, "state"), config.DefaultLimits(), nil)
	if err == nil || !strings.Contains(err.Error(), "not a directory") || strings.Contains(err.Error(), "another hostd") {
		t.Fatalf("Open = %v", err)
	}
}

// Each errno a filesystem can answer is named for what it is. The tests
// run as root, for whom permission bits do not apply, so EACCES and EPERM
// are injected here; EROFS is also tested for real below.
func TestRefusalNamesTheCause(t *testing.T) {
	path := "/state/review.db"
	for _, tc := range []struct {
		err  error
		want error
		text string
	}{
		{berrors.ErrTimeout, ErrLocked, "another hostd"},
		{errLockTimeout, ErrLocked, "another hostd"},
		{&os.PathError{Op: "open", Path: path, Err: syscall.EROFS}, ErrReadOnly, "writable --state-dir"},
		{&os.PathError{Op: "open", Path: path, Err: syscall.EACCES}, ErrPermission, "uid"},
		{&os.PathError{Op: "rename", Path: path, Err: syscall.EPERM}, ErrPermission, "uid"},
		{&os.PathError{Op: "mkdir", Path: path, Err: syscall.ENOTDIR}, nil, "not a directory"},
		{&os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}, nil, "free some space"},
	} {
		err := refusal(path, tc.err)
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("refusal(%v) = %v, want %v", tc.err, err, tc.want)
		}
		if !strings.Contains(err.Error(), tc.text) {
			t.Errorf("refusal(%v) = %q, want it to say %q", tc.err, err, tc.text)
		}
		if tc.want != ErrLocked && strings.Contains(err.Error(), "another hostd") {
			t.Errorf("refusal(%v) = %q blames another hostd", tc.err, err)
		}
	}
}

// When bbolt panicked inside Open, this process's leftover mapping holds
// the file's lock, so moveAside must not wait for it (it would wait on
// itself and refuse); told so, it moves the file at once.
func TestMoveAsideWithTheLockAlreadyHeld(t *testing.T) {
	path := filepath.Join(lockTestDir(t), FileName)
	if err := os.WriteFile(path, []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := openLockable(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := lockFile(f, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := moveAside(path, time.Now(), false); !errors.Is(err, ErrLocked) {
		t.Fatalf("moveAside of a held file = %v, want ErrLocked", err)
	}
	aside, err := moveAside(path, time.Now(), true)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(aside); string(got) != "damaged" {
		t.Errorf("%s holds %q", aside, got)
	}
}
