package review

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// The refusals of Open, each naming its real cause. Everything else that
// is wrong with the file is damage, which Open recovers from instead.
var (
	// ErrLocked: another process holds the database (another hostd on
	// the same state directory).
	ErrLocked = errors.New("review store is in use by another process")
	// ErrReadOnly: the state directory is on a read-only filesystem.
	ErrReadOnly = errors.New("review store is on a read-only filesystem")
	// ErrPermission: this user may not create, read or write the file or
	// its directory.
	ErrPermission = errors.New("review store: permission denied")
	// ErrBroken: the database turned out damaged while the daemon ran
	// (bbolt panicked or faulted reading it). The store refuses every
	// further call rather than write into a damaged file; the next Open
	// checks the file and moves it aside.
	ErrBroken = errors.New("review store is damaged")
	// ErrDamagedRecord: one record's before bytes no longer match their
	// digest. That call cannot be rolled back; the rest of the store is
	// unaffected.
	ErrDamagedRecord = errors.New("review record is damaged")
)

// Recovery says that Open found the database damaged, moved it aside and
// started a fresh, empty store. The history is in the file at From, not
// lost, but this daemon no longer serves it. host.info and debug.stats
// send it as wire.ReviewRecovery, the same fields.
type Recovery struct {
	From   string    `json:"from"`   // where the damaged file was moved
	Reason string    `json:"reason"` // what was wrong with it
	At     time.Time `json:"at"`
}

// refusal turns an error opening the store into one that names its cause
// and the way out.
func refusal(path string, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout), errors.Is(err, errLockTimeout):
		return fmt.Errorf("%w: %s is locked (is another hostd using this state directory? a second daemon needs its own --state-dir)", ErrLocked, path)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%w: %v; give hostd a writable --state-dir", ErrReadOnly, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: %v; let uid %d read and write the state directory, or give hostd another --state-dir", ErrPermission, err, os.Getuid())
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("review store %s: part of the state directory's path is not a directory (%v); give hostd another --state-dir", path, err)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("review store %s: %v; free some space on that filesystem", path, err)
	}
	return fmt.Errorf("review store %s: %w", path, err)
}

// panicError is a panic inside bbolt (or a fault in its memory map),
// caught and turned into an error.
type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprintf("bbolt panicked: %v", e.value) }

// guarded runs f with faults in memory-mapped pages turned into panics
// rather than a crash of the process, and turns any panic into a
// *panicError. bbolt trusts the pages it reads; a damaged one makes it
// index out of range, or read past the end of a truncated file, and both
// must cost the store, not the daemon.
func guarded(f func() error) (err error) {
	prev := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(prev)
		if r := recover(); r != nil {
			err = &panicError{r}
		}
	}()
	return f()
}

// openChecked opens the database at path after checking the whole file,
// then checks what the store keeps in it. A damaged file is a
// *corruptError, with nothing left open; any other failure is a refusal.
func openChecked(path string, noSync bool) (*bolt.DB, error) {
	if err := checkFile(path); err != nil {
		var ce *corruptError
		if errors.As(err, &ce) {
			return nil, err
		}
		return nil, refusal(path, err)
	}
	var file *os.File
	var db *bolt.DB
	err := guarded(func() error {
		var err error
		db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout, NoSync: noSync,
			OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
				f, err := os.OpenFile(name, flag, mode)
				file = f
				return f, err
			}})
		return err
	})
	var pe *panicError
	switch {
	case errors.As(err, &pe):
		if file != nil {
			file.Close() // bbolt never returned the DB that owns it
		}
		// Its memory map stays, and with it the lock.
		return nil, &corruptError{reason: pe.Error(), lockHeld: true}
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, corrupt("bbolt refused the file: %v", err)
	case err != nil:
		return nil, refusal(path, err)
	}
	if err := guarded(func() error { return db.View(checkContent) }); err != nil {
		guarded(db.Close)
		var ce *corruptError
		if errors.As(err, &ce) {
			return nil, err
		}
		return nil, corrupt("%v", err)
	}
	return db, nil
}

// checkContent checks what the store itself wrote and Open reads: every
// entry and intent decodes. Before bytes are not read here, since that
// would cost a read of the whole store at every start: loadBefore checks
// them against their digest when a rollback or a recovery needs them.
func checkContent(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketMeta, bucketEntries, bucketBefore, bucketDiffs, bucketIntents} {
		if k, v := tx.Cursor().Seek(name); string(k) == string(name) && v != nil {
			return corrupt("%s is a value where a bucket belongs", name)
		}
	}
	decode := func(bucket []byte, each func(k, v []byte) error) error {
		b := tx.Bucket(bucket)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			if len(k) != 8 {
				return corrupt("%s: a key of %d bytes", bucket, len(k))
			}
			return each(k, v)
		})
	}
	err := decode(bucketEntries, func(k, v []byte) error {
		var r entryRecord
		if err := json.Unmarshal(v, &r); err != nil || seqKeyOf(k) != r.Seq {
			return corrupt("entry %s is damaged", entryID(seqKeyOf(k)))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return decode(bucketIntents, func(k, v []byte) error {
		var in intentRecord
		if err := json.Unmarshal(v, &in); err != nil || seqKeyOf(k) != in.ID {
			return corrupt("intent %d is damaged", seqKeyOf(k))
		}
		return nil
	})
}

func seqKeyOf(k []byte) uint64 {
	var seq uint64
	for _, b := range k {
		seq = seq<<8 | uint64(b)
	}
	return seq
}

// moveAside renames a damaged database out of the way, holding the same
// lock bbolt takes (or knowing this process holds it), so that a file
// another process is using is never moved. It returns the new name:
// review.db.corrupt-<UTC time>.
func moveAside(path string, now time.Time, lockHeld bool) (string, error) {
	if !lockHeld {
		f, err := openLockable(path)
		if err != nil {
			return "", refusal(path, err)
		}
		defer f.Close()
		if err := lockFile(f, lockTimeout); err != nil {
			return "", refusal(path, err)
		}
	}
	stamp := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
	aside := stamp
	for i := 2; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		}
		aside = stamp + "-" + strconv.Itoa(i)
	}
	if err := os.Rename(path, aside); err != nil {
		return "", refusal(path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return aside, nil
}

// verifyBefore checks before bytes read from the database against the
// digest recorded for them.
func verifyBefore(seq uint64, data []byte, want Facts) error {
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != want.SHA256 {
		return fmt.Errorf("%w: the before bytes of %s do not match their recorded SHA-256, so they cannot be restored", ErrDamagedRecord, entryID(seq))
	}
	return nil
}
