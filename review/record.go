package review

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// The database layout. Every key is an 8-byte big-endian sequence number,
// so a cursor walks records oldest first.
var (
	bucketMeta    = []byte("meta")    // "schema" → schemaVersion
	bucketEntries = []byte("entries") // entry seq → entryRecord (JSON)
	bucketBefore  = []byte("before")  // entry seq → the bytes the path held before
	bucketDiffs   = []byte("diffs")   // entry seq → the rendered diff
	bucketIntents = []byte("intents") // intent id → intentRecord (JSON)

	keySchema     = []byte("schema")
	schemaVersion = []byte("1")
)

// entryRecord is what the store keeps per entry besides the before bytes
// and the diff, which live in their own buckets so that loading the index
// at Open reads neither.
type entryRecord struct {
	Seq        uint64    `json:"seq"`
	Session    string    `json:"session"`
	ToolCallID string    `json:"toolCallId"`
	Tool       string    `json:"tool"`
	PromptID   string    `json:"promptId,omitempty"`
	Path       string    `json:"path"`
	Display    string    `json:"display"`
	Change     string    `json:"change"`
	Before     Facts     `json:"before"`
	After      Facts     `json:"after"`
	At         time.Time `json:"at"`
	RolledBack bool      `json:"rolledBack"`
	// Bytes is what this entry counts against retention: its before
	// bytes, its diff and its paths.
	Bytes int64 `json:"bytes"`
	// Root and Workspace are plannedChange's; absent in records written before
	// they existed.
	Root      string `json:"root,omitempty"`
	Workspace string `json:"workspace,omitempty"`
}

func (r *entryRecord) entry(diff string) Entry {
	return Entry{ReviewEntry: wire.ReviewEntry{
		ID:           entryID(r.Seq),
		ToolCallID:   r.ToolCallID,
		Tool:         r.Tool,
		PromptID:     r.PromptID,
		Path:         r.Display,
		Change:       r.Change,
		BeforeSHA256: r.Before.SHA256,
		AfterSHA256:  r.After.SHA256,
		Diff:         diff,
		At:           r.At,
		RolledBack:   r.RolledBack,
	}, Canonical: r.Path}
}

// entryID is stable across restarts because seq is.
func entryID(seq uint64) string { return "rv-" + strconv.FormatUint(seq, 10) }

// Intent kinds.
const (
	intentMutation = "mutation" // written by begin, settled back to before
	intentRestore  = "restore"  // written by RestoreTxn.Start, settled forward
	intentRewind   = "rewind"   // written by RewindTxn.Rewind, settled forward
)

// intentRecord is the durable promise that a multi-step filesystem change
// is under way. Open settles every one it finds (see recover.go).
type intentRecord struct {
	ID         uint64    `json:"id"`
	Kind       string    `json:"kind"`
	Session    string    `json:"session"`
	ToolCallID string    `json:"toolCallId"`
	Tool       string    `json:"tool,omitempty"`
	PromptID   string    `json:"promptId,omitempty"`
	At         time.Time `json:"at"`
	// Paths are the planned changes of a mutation; each owns the entry
	// seq its before bytes are stored under.
	Paths []intentPath `json:"paths,omitempty"`
	// Seqs are the entries a restore is rolling back.
	Seqs []uint64 `json:"seqs,omitempty"`
	// Puts are the paths a rewind writes (ToolCallID then names the
	// call that records what it overwrote).
	Puts []rewindPut `json:"puts,omitempty"`
}

type intentPath struct {
	Seq       uint64 `json:"seq"`
	Path      string `json:"path"`
	Display   string `json:"display"`
	Change    string `json:"change"`
	Before    Facts  `json:"before"`
	After     Facts  `json:"after"`
	Root      string `json:"root,omitempty"`
	Workspace string `json:"workspace,omitempty"`
}

func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

func putJSON(b *bolt.Bucket, seq uint64, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(seqKey(seq), data)
}

// putRolledBack writes the entries marked rolled back; the index marks
// them once the transaction has committed.
func putRolledBack(entries *bolt.Bucket, recs []*entryRecord) error {
	for _, r := range recs {
		rolled := *r
		rolled.RolledBack = true
		if err := putJSON(entries, r.Seq, &rolled); err != nil {
			return err
		}
	}
	return nil
}

// putIntent numbers in with the intents bucket's next sequence and stores
// it under that number.
func putIntent(intents *bolt.Bucket, in *intentRecord) error {
	id, err := intents.NextSequence()
	if err != nil {
		return err
	}
	in.ID = id
	return putJSON(intents, id, in)
}

// createBuckets makes a fresh database usable and refuses one written by
// an incompatible version rather than misreading it.
func createBuckets(tx *bolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	switch v := meta.Get(keySchema); {
	case v == nil:
		if err := meta.Put(keySchema, schemaVersion); err != nil {
			return err
		}
	case string(v) != string(schemaVersion):
		return fmt.Errorf("review store has schema %q, this hostd reads %q", v, schemaVersion)
	}
	for _, name := range [][]byte{bucketEntries, bucketBefore, bucketDiffs, bucketIntents} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// deleteEntry removes every trace of one entry.
func deleteEntry(tx *bolt.Tx, seq uint64) error {
	k := seqKey(seq)
	for _, name := range [][]byte{bucketEntries, bucketBefore, bucketDiffs} {
		if err := tx.Bucket(name).Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// deleteCalls removes every trace of the calls' entries: the calls a
// commit evicts.
func deleteCalls(tx *bolt.Tx, calls []*call) error {
	for _, c := range calls {
		for _, r := range c.entries {
			if err := deleteEntry(tx, r.Seq); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadBefore copies the before bytes of an entry out of the database (bolt
// values are only valid inside their transaction), and checks them against
// the digest recorded for them: damaged bytes are never restored.
func (s *Store) loadBefore(seq uint64, want Facts) ([]byte, error) {
	var out []byte
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketBefore).Get(seqKey(seq))
		if v == nil {
			return fmt.Errorf("review store: before bytes of %s are missing", entryID(seq))
		}
		out = append([]byte{}, v...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := verifyBefore(seq, out, want); err != nil {
		return nil, err
	}
	return out, nil
}
