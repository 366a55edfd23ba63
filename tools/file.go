package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

// openRegular opens a resolved path for reading. Anything but a regular
// file is NOT_A_FILE, and the open itself never blocks: O_NONBLOCK keeps a
// FIFO swapped in after the stat from stalling the call, and the type is
// checked again on the open descriptor.
//
// Both go through the path's open root (workspace.Dir), so a directory
// swapped for a link to elsewhere since Resolve is refused, not followed.
func openRegular(p workspace.Path) (*os.File, fs.FileInfo, *wire.ToolError) {
	info, err := p.Stat()
	if err != nil {
		return nil, nil, statError(p, err)
	}
	if e := notRegular(p, info); e != nil {
		return nil, nil, e
	}
	f, err := p.Open()
	if err != nil {
		return nil, nil, statError(p, err)
	}
	info, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, Errorf(wire.ToolFailed, "cannot stat %s: %v; check the file and call again", p.Display, err)
	}
	if e := notRegular(p, info); e != nil {
		f.Close()
		return nil, nil, e
	}
	return f, info, nil
}

func notRegular(p workspace.Path, info fs.FileInfo) *wire.ToolError {
	if info.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch {
	case info.IsDir():
		return Errorf(wire.ToolNotAFile, "%s is a directory; list its files with grep (outputMode \"filesWithMatches\", path %q) or read a file inside it", p.Display, p.Display)
	case info.Mode()&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case info.Mode()&fs.ModeSocket != 0:
		what = "a socket"
	case info.Mode()&fs.ModeDevice != 0:
		what = "a device"
	}
	return Errorf(wire.ToolNotAFile, "%s is %s, not a text file; only regular files can be read or edited", p.Display, what)
}

func statError(p workspace.Path, err error) *wire.ToolError {
	if errors.Is(err, workspace.ErrOutside) {
		return Errorf(wire.ToolOutsideWorkspace, "%s leads outside the workspace now (a directory on its way was replaced by a link); nothing outside is read or written: use a path inside the workspace", p.Display)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return Errorf(wire.ToolNotFound, "%s does not exist; check the path, or find the file with grep", p.Display)
	}
	if errors.Is(err, workspace.ErrBusy) {
		return busyError(p.Display, "read")
	}
	if errors.Is(err, fs.ErrPermission) {
		return Errorf(wire.ToolDenied, "%s cannot be opened: permission denied", p.Display)
	}
	return Errorf(wire.ToolFailed, "cannot open %s: %v", p.Display, err)
}

// busyError is HOST_BUSY for a file another program holds open without
// sharing it (workspace.ErrBusy): retriable, nothing was changed.
func busyError(display, what string) *wire.ToolError {
	return Errorf(wire.ToolHostBusy, "%s is open in another program that does not share it, so it cannot be %s now (Windows file sharing); nothing was changed: close it there or wait for that program to let go, then call again", display, what)
}

// readSized reads all of f, which stat said holds size bytes, in one
// buffer of that size (plus one byte to see growth) rather than doubling
// one: a large file costs its size once. It stops at limit bytes.
func readSized(f io.Reader, size, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(max(size, 0)+1, limit))
	r := io.LimitReader(f, limit)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grew since the stat: let append size it
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// loaded is a whole text file, as edit and write need it.
type loaded struct {
	// Raw is the file's bytes. It is never written: Text.Body shares its
	// memory (workspace.DecodeOwned).
	Raw  []byte
	Text workspace.Text
	Mode fs.FileMode
}

// loadText reads a whole regular text file of at most maxBytes. For a file
// that is not text it returns NOT_TEXT together with the raw bytes and
// mode, which a whole-file replacement still needs for its review record.
func loadText(p workspace.Path, maxBytes int64) (*loaded, *wire.ToolError) {
	f, info, e := openRegular(p)
	if e != nil {
		return nil, e
	}
	defer f.Close()
	if info.Size() > maxBytes {
		return nil, Errorf(wire.ToolFileTooLarge, "%s is %d bytes, over the %d-byte limit for whole-file tools; edit it with another tool or split it", p.Display, info.Size(), maxBytes)
	}
	raw, err := readSized(f, info.Size(), maxBytes+1)
	if err != nil {
		return nil, Errorf(wire.ToolFailed, "cannot read %s: %v; call again", p.Display, err)
	}
	if int64(len(raw)) > maxBytes {
		return nil, Errorf(wire.ToolFileTooLarge, "%s grew past the %d-byte limit while it was read", p.Display, maxBytes)
	}
	l := &loaded{Raw: raw, Mode: info.Mode().Perm()}
	t, err := workspace.DecodeOwnedAs(raw, p.Charset.Enc)
	if err != nil {
		return l, notText(p, err)
	}
	l.Text = t
	return l, nil
}

// fileExists reports whether anything exists at p (without following a
// final symlink).
func fileExists(p workspace.Path) (bool, error) {
	_, err := p.Lstat()
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, fmt.Errorf("stat %s: %w", p.Display, err)
}
