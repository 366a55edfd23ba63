package review

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/config"
)

// The corruption tests damage a real review.db in many ways and open each
// copy in a child process (this test binary, re-executed), so that a
// panic or a fault inside bbolt shows up as a failed test naming the
// damage, not as a crashed test run. The child opens every copy, lists
// every session, loads every call's before bytes, records a new call and
// closes; it prints one line per copy that survived all of it.

const (
	// envCorruptDirs, in the child, is the list of store directories to
	// open, separated by the path list separator.
	envCorruptDirs = "REVIEW_CORRUPT_DIRS"
	// envCorruptWS is a directory the child may write files in.
	envCorruptWS = "REVIEW_CORRUPT_WS"
)

// corruptSessions are the sessions the pristine store holds.
var corruptSessions = []string{"s1", "s2"}

// pristineStore builds a store with calls of both sessions, small and
// large before bytes (the large ones span overflow pages), and evictions,
// and returns the bytes of its file.
func pristineStore(t testing.TB) []byte {
	t.Helper()
	dir, ws := t.TempDir(), t.TempDir()
	s, err := open(dir, config.DefaultLimits(), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 24 {
		p := filepath.Join(ws, fmt.Sprintf("f%d.txt", i%6))
		content := strings.Repeat(fmt.Sprintf("line %d of call %d\n", i, i), 1+(i%5)*300)
		if _, err := os.Stat(p); err != nil {
			writeFile(t, p, "first\n", 0o644)
		}
		mutate(t, s, corruptSessions[i%2], fmt.Sprintf("call-%d", i), "write", modify(t, p, filepath.Base(p), content))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// metaOf reads the page size and the newest meta page's root, freelist
// and high-water mark from a pristine file (the test's own reading of
// bbolt's layout: a 16-byte page header, then the meta fields).
func metaOf(data []byte) (pageSize int, root, freelist, hwm uint64) {
	le := binary.LittleEndian
	meta := func(off int) (ps int, root, fl, hwm, txid uint64) {
		m := data[off+16:]
		return int(le.Uint32(m[8:])), le.Uint64(m[16:]), le.Uint64(m[32:]), le.Uint64(m[40:]), le.Uint64(m[48:])
	}
	ps, r0, f0, h0, t0 := meta(0)
	_, r1, f1, h1, t1 := meta(ps)
	if t1 > t0 {
		return ps, r1, f1, h1
	}
	return ps, r0, f0, h0
}

// damage is one way of corrupting the file.
type damage struct {
	name string
	// mustRecover: Open must move the file aside (the damage cannot be
	// read past); otherwise Open may also find the store intact, when
	// the damage fell on unused bytes.
	mustRecover bool
	apply       func(data []byte) []byte
}

func fixedDamages(data []byte) []damage {
	ps, root, freelist, hwm := metaOf(data)
	garbage := func(n int, seed uint64) []byte {
		r := rand.New(rand.NewPCG(seed, 1))
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	overwrite := func(off, n int, seed uint64) func([]byte) []byte {
		return func(d []byte) []byte {
			copy(d[off:off+n], garbage(n, seed))
			return d
		}
	}
	used := int(hwm) * ps
	return []damage{
		{"empty", true, func([]byte) []byte { return nil }},
		{"half", true, func(d []byte) []byte { return d[:len(d)/2] }},
		{"used-half", true, func(d []byte) []byte { return d[:used/2] }},
		{"not-page-multiple", true, func(d []byte) []byte { return d[:used-ps-ps/3] }},
		{"one-page", true, func(d []byte) []byte { return d[:ps] }},
		{"garbage", true, func(d []byte) []byte { return garbage(len(d), 7) }},
		{"small-garbage", true, func([]byte) []byte { return garbage(100, 8) }},
		{"both-metas", true, func(d []byte) []byte {
			copy(d[16:80], garbage(64, 9))
			copy(d[ps+16:ps+80], garbage(64, 10))
			return d
		}},
		{"meta0", false, overwrite(16, 64, 11)},
		{"meta1", false, overwrite(ps+16, 64, 12)},
		{"freelist", true, overwrite(int(freelist)*ps, ps, 13)},
		{"freelist-header", true, overwrite(int(freelist)*ps+8, 8, 14)},
		{"root", true, overwrite(int(root)*ps, ps, 15)},
		{"root-elements", true, overwrite(int(root)*ps+16, 64, 16)},
		{"zeroed-root", true, func(d []byte) []byte { clear(d[int(root)*ps : int(root+1)*ps]); return d }},
	}
}

// randomDamage overwrites a few bytes, or a whole page, of one page below
// the high-water mark, chosen by seed.
func randomDamage(data []byte, seed uint64) damage {
	ps, _, _, hwm := metaOf(data)
	r := rand.New(rand.NewPCG(seed, 42))
	page := 2 + r.IntN(int(hwm)-2)
	return damage{fmt.Sprintf("seed-%d-page-%d", seed, page), false, func(d []byte) []byte {
		p := d[page*ps : (page+1)*ps]
		switch r.IntN(4) {
		case 0: // a burst of random bytes
			off, n := r.IntN(ps-64), 1+r.IntN(64)
			for i := range n {
				p[off+i] = byte(r.Uint32())
			}
		case 1: // scattered bytes
			for range 1 + r.IntN(16) {
				p[r.IntN(ps)] = byte(r.Uint32())
			}
		case 2: // the page header and first elements
			for i := range 48 {
				p[i] = byte(r.Uint32())
			}
		default: // the whole page
			for i := range p {
				p[i] = byte(r.Uint32())
			}
		}
		return d
	}}
}

// runCorruptChild writes each damaged copy into a directory of its own,
// opens them all in one child process, and checks that the child got
// through every one without crashing, and that each damage that cannot
// be read past was moved aside.
func runCorruptChild(t *testing.T, data []byte, damages []damage) {
	t.Helper()
	root := t.TempDir()
	dirs := make([]string, len(damages))
	for i, d := range damages {
		dirs[i] = filepath.Join(root, d.name)
		if err := os.MkdirAll(dirs[i], 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dirs[i], FileName), d.apply(bytes.Clone(data)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A hang is a failure too (a loop in a damaged page tree).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envCorruptDirs+"="+strings.Join(dirs, string(os.PathListSeparator)), envCorruptWS+"="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	survived := make(map[string]string)
	recovered := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, rest, _ := strings.Cut(sc.Text(), " ")
		survived[name] = rest
	}
	for i, d := range damages {
		res, ok := survived[d.name]
		switch {
		case !ok:
			msg := stderr.String()
			if len(msg) > 3000 {
				msg = msg[:3000] + "…"
			}
			t.Fatalf("damage %s: the child did not get through it (%v):\n%s", d.name, err, msg)
		case res != "ok":
			t.Errorf("damage %s: %s", d.name, res)
		}
		aside, _ := filepath.Glob(filepath.Join(dirs[i], FileName+".corrupt-*"))
		if d.mustRecover && len(aside) != 1 {
			t.Errorf("damage %s: the file was not moved aside (found %v)", d.name, aside)
		}
		if len(aside) > 0 {
			recovered++
		}
	}
	t.Logf("%d damaged files: %d moved aside, %d found usable (the damage fell on free pages, or on values, which are checked when read)", len(damages), recovered, len(damages)-recovered)
	if err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
}

// corruptChild is the child's side: it prints "NAME ok" for every store
// it got through, or "NAME why" for one Open refused.
func corruptChild(dirs []string, ws string) {
	lim := config.DefaultLimits()
	for i, dir := range dirs {
		name := filepath.Base(dir)
		s, err := Open(dir, lim, nil)
		if err != nil {
			fmt.Printf("%s Open refused a damaged store instead of moving it aside: %v\n", name, err)
			continue
		}
		calls := make(map[string]bool)
		for _, sess := range corruptSessions {
			entries, _ := s.List(sess, "")
			for _, e := range entries {
				calls[sess+"\x00"+e.ToolCallID] = true
			}
		}
		for k := range calls {
			sess, id, _ := strings.Cut(k, "\x00")
			if rt, err := s.BeginRestore(sess, id); err == nil {
				rt.Abort()
			}
		}
		p := filepath.Join(ws, "new-"+strconv.Itoa(i)+".txt")
		if err := os.WriteFile(p, []byte("before\n"), 0o644); err != nil {
			panic(err)
		}
		c := plannedChange{Path: p, Before: []byte("before\n"), BeforeExists: true, After: []byte("after\n"), AfterExists: true}
		txn, err := s.begin("s3", "new-call", "write", []plannedChange{c})
		if err != nil {
			fmt.Printf("%s Begin after Open: %v\n", name, err)
			s.Close()
			continue
		}
		if _, err := txn.commit(nil); err != nil {
			fmt.Printf("%s Commit after Open: %v\n", name, err)
			s.Close()
			continue
		}
		s.Stats()
		if err := s.Close(); err != nil {
			fmt.Printf("%s Close: %v\n", name, err)
			continue
		}
		fmt.Printf("%s ok\n", name)
	}
}

// Open must never crash on a damaged file, nor refuse it, nor start empty
// without a word: it moves the file aside and starts a fresh store.
func TestOpenSurvivesCorruption(t *testing.T) {
	data := pristineStore(t)
	damages := fixedDamages(data)
	for seed := range uint64(12) {
		damages = append(damages, randomDamage(data, seed))
	}
	runCorruptChild(t, data, damages)
}

// The stress: many random page corruptions, zero crashes. CI size by
// default; HOSTD_STRESS=long runs thousands.
func TestOpenCorruptionStress(t *testing.T) {
	seeds := 50
	if os.Getenv("HOSTD_STRESS") == "long" {
		seeds = 3000
	}
	if raceEnabled {
		seeds = 20
	}
	data := pristineStore(t)
	const batch = 250
	for first := 0; first < seeds; first += batch {
		var damages []damage
		for seed := first; seed < min(seeds, first+batch); seed++ {
			damages = append(damages, randomDamage(data, uint64(1000+seed)))
		}
		runCorruptChild(t, data, damages)
	}
}

// envLiveDamage, in the child, names how to damage the store's file while
// the store has it open.
const envLiveDamage = "REVIEW_LIVE_DAMAGE"

func runPortableChild() bool {
	if dir := os.Getenv(envLockHolder); dir != "" {
		lockHolderChild(dir)
		return true
	}
	if dirs := os.Getenv(envCorruptDirs); dirs != "" {
		corruptChild(filepath.SplitList(dirs), os.Getenv(envCorruptWS))
		return true
	}
	if how := os.Getenv(envLiveDamage); how != "" {
		liveDamageChild(how, os.Getenv(envCorruptDirs+"_ONE"), os.Getenv(envCorruptWS))
		return true
	}
	return false
}

// liveDamageChild opens a healthy store, damages its file behind bbolt's
// back (as a disk or another program would), then uses the store. Every
// call must fail with ErrBroken, and none may crash the process.
func liveDamageChild(how, dir, ws string) {
	s, err := Open(dir, config.DefaultLimits(), nil)
	must(err)
	path := filepath.Join(dir, FileName)
	switch how {
	case "garbage":
		data, err := os.ReadFile(path)
		must(err)
		ps, _, _, _ := metaOf(data)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		must(err)
		_, err = f.WriteAt(bytes.Repeat([]byte{0xFF}, len(data)-2*ps), int64(2*ps))
		must(err)
		must(f.Close())
	case "truncated":
		must(os.Truncate(path, 0))
	}
	report := func(what string, err error) {
		fmt.Printf("%s broken=%v: %v\n", what, errors.Is(err, ErrBroken), err)
	}
	_, err = s.List("s1", "")
	report("list", err)
	p := filepath.Join(ws, "live.txt")
	must(os.WriteFile(p, []byte("before\n"), 0o644))
	_, err = s.begin("s3", "live-call", "write", []plannedChange{{Path: p, Before: []byte("before\n"), BeforeExists: true, After: []byte("after\n"), AfterExists: true}})
	report("begin", err)
	_, err = s.BeginRestore("s1", "call-0")
	report("rollback", err)
	fmt.Printf("stats broken=%v\n", s.Stats().Broken != "")
	s.Close()
	fmt.Println("done")
}

// A store whose file is damaged while the daemon runs (bbolt reads pages
// lazily, so this is where a damaged page first panics) refuses every
// further call with ErrBroken, rather than crashing the daemon or writing
// on into the damaged file.
func TestStoreDamagedWhileOpenRefusesFurtherCalls(t *testing.T) {
	data := pristineStore(t)
	for _, how := range []string{"garbage", "truncated"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), envLiveDamage+"="+how, envCorruptDirs+"_ONE="+dir, envCorruptWS+"="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.HasSuffix(string(out), "done\n") {
				if len(out) > 3000 {
					out = out[:3000]
				}
				t.Fatalf("the child crashed (%v):\n%s", err, out)
			}
			for _, want := range []string{"list broken=true", "begin broken=true", "rollback broken=true", "stats broken=true"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("want %q in:\n%s", want, out)
				}
			}
			t.Logf("%s", out)
			if !strings.Contains(string(out), "restart hostd") {
				t.Errorf("the error does not name the way out:\n%s", out)
			}
		})
	}
}

// FuzzOpenDamagedStore patches and cuts a real store's file at will and
// opens it in this process: the check at Open must leave bbolt nothing
// that panics or faults, so a damaged store is either moved aside or
// fully usable. A fault that escaped would kill the fuzzing process,
// which the fuzzer reports as a crash.
func FuzzOpenDamagedStore(f *testing.F) {
	data := pristineStore(f)
	ps, root, freelist, _ := metaOf(data)
	f.Add(uint32(0), []byte{0xff}, uint32(0))
	f.Add(uint32(int(root)*ps+16), []byte{0xff, 0xff, 0xff, 0x7f}, uint32(0))
	f.Add(uint32(int(freelist)*ps+10), []byte{0xff, 0xff}, uint32(0))
	f.Add(uint32(ps+16), []byte("garbage"), uint32(len(data)/2))
	f.Add(uint32(5*ps+20), []byte{0, 0, 0, 0, 0, 0, 0, 0}, uint32(0))
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, cut uint32) {
		d := bytes.Clone(data)
		copy(d[int(at)%len(d):], patch)
		if cut > 0 {
			d = d[:int(cut)%len(d)]
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), d, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := open(dir, config.DefaultLimits(), nil, true)
		if err != nil {
			t.Fatalf("Open refused a damaged store instead of moving it aside: %v", err)
		}
		defer s.Close()
		for _, sess := range corruptSessions {
			entries, err := s.List(sess, "")
			if err != nil {
				t.Fatalf("List on a store Open accepted: %v", err)
			}
			for _, e := range entries {
				if rt, err := s.BeginRestore(sess, e.ToolCallID); err == nil {
					rt.Abort()
				} else if errors.Is(err, ErrBroken) {
					t.Fatalf("a store Open accepted turned out damaged: %v", err)
				}
			}
		}
	})
}

// Before bytes are checked against their digest when a rollback loads
// them: a damaged value is refused, never written back over a file.
func TestDamagedBeforeBytesAreNeverRestored(t *testing.T) {
	lim := config.DefaultLimits()
	s, dir := openTest(t, lim)
	ws := t.TempDir()
	p := filepath.Join(ws, "a.txt")
	before := "the one and only copy of these before bytes\n"
	writeFile(t, p, before, 0o644)
	mutate(t, s, "s1", "c1", "write", modify(t, p, "a.txt", "after\n"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The diff holds the line too, after a "-".
	i := -1
	for at := 0; ; {
		j := bytes.Index(data[at:], []byte(before))
		if j < 0 {
			break
		}
		if at+j == 0 || data[at+j-1] != '-' {
			i = at + j
		}
		at += j + 1
	}
	if i < 0 {
		t.Fatal("the before bytes are not stored in the clear")
	}
	data[i] ^= 0x20
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	rt, err := s2.BeginRestore("s1", "c1")
	if !errors.Is(err, ErrDamagedRecord) {
		if rt != nil {
			rt.Abort()
		}
		t.Fatalf("BeginRestore of damaged before bytes = %v, want ErrDamagedRecord", err)
	}
	// The call is released: the refusal is not a rollback in progress.
	if _, err := s2.BeginRestore("s1", "c1"); errors.Is(err, ErrBusy) {
		t.Errorf("the refused rollback left the call busy")
	}
}
