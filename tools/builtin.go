package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/workspace"
)

// Builtin returns the tools the daemon serves.
func Builtin() []Tool {
	return []Tool{
		Read{},
		Grep{},
		Write{},
		Edit{},
		Diagnostics{},
	}
}

// This file also holds what the producers (read, grep, write) share: path
// resolution with its error mapping, the [PATH#TAG] header and the clip
// rule of edit-contract §4.3.

// resolveArg resolves a tool's path argument through the session's
// workspace and maps the resolver's sentinels to tool codes.
func resolveArg(c *Call, path string, access workspace.Access) (workspace.Path, *wire.ToolError) {
	if path == "" {
		return workspace.Path{}, Errorf(wire.ToolInvalidArgument, "path is required; pass a file path relative to the workspace root, e.g. \"src/main.go\"")
	}
	p, err := c.State.Workspace.Resolve(path, access)
	if err != nil {
		return p, resolveError(c, path, err)
	}
	return p, nil
}

// resolveError maps a resolver error for path to a tool error.
func resolveError(c *Call, path string, err error) *wire.ToolError {
	switch {
	case errors.Is(err, workspace.ErrOutside):
		return Errorf(wire.ToolOutsideWorkspace, "%s resolves outside the workspace (%s) and every approved root; use a path inside the workspace", path, c.State.Workspace.Root())
	case errors.Is(err, workspace.ErrDenied):
		return Errorf(wire.ToolDenied, "%v; hostd never writes there: choose a path outside .git and inside a writable root", err)
	case errors.Is(err, workspace.ErrBadPath):
		return Errorf(wire.ToolInvalidArgument, "%v; pass a plain file path relative to the workspace root", err)
	}
	return Errorf(wire.ToolFailed, "cannot resolve %s: %v; check the path and call again", path, err)
}

// tagHeader is the section header every producer prints above a file's
// lines (edit-contract §5.1).
func tagHeader(display, tag string) string { return "[" + display + "#" + tag + "]" }

// clipLine returns line cut to maxChars runes and whether it was cut. A
// clipped line is displayed with clipMarker and never counted as seen: its
// tail is exactly where a blind edit does damage (edit-contract §4.3).
func clipLine(line string, maxChars int) (string, bool) {
	if len(line) <= maxChars { // bytes >= runes: short lines are common
		return line, false
	}
	n := 0
	for i := range line {
		if n == maxChars {
			return line[:i], true
		}
		n++
	}
	return line, false
}

// clipMarker ends a clipped line in the displayed content.
func clipMarker(maxChars int) string {
	return fmt.Sprintf(" …[clipped at %d chars; not editable by number]", maxChars)
}

// noFinalNewline follows the last line of a file that does not end with a
// newline, in read and edit output, as diff marks it; a line without a
// number is never file content. An edit sets the state with EOF NEWLINE or
// EOF NO-NEWLINE.
const noFinalNewline = `\ No newline at end of file`

// missing is NOT_FOUND for a path that does not exist, naming the nearest
// directory that does and how to find the file from there.
func missing(c *Call, p workspace.Path) *wire.ToolError {
	if i := strings.LastIndexByte(p.Abs, '#'); i > 0 && validTag(strings.ToUpper(p.Abs[i+1:])) {
		if base, err := c.State.Workspace.Resolve(p.Abs[:i], workspace.Read); err == nil {
			if exists, _ := fileExists(base); exists {
				return Errorf(wire.ToolNotFound, "%s does not exist: that is the [PATH#TAG] spelling of %s, which only edit takes; name the file as %s", p.Display, base.Display, base.Display)
			}
		}
	}
	dir := filepath.Dir(p.Abs)
	for {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	shown := c.State.Workspace.Display(dir)
	return Errorf(wire.ToolNotFound, "%s does not exist; the nearest existing directory is %s: find the file with grep {\"pattern\": \"\", \"path\": %q, \"glob\": \"**/%s\", \"outputMode\": \"filesWithMatches\"}",
		p.Display, shown, shown, filepath.Base(p.Abs))
}

// directoryError is NOT_A_FILE for a directory, naming a few of its
// entries so the next call can read one of them. It reads a bounded number
// of entries: a directory may be huge.
func directoryError(p workspace.Path) *wire.ToolError {
	const sample, shown = 256, 8
	var names []string
	if d, err := p.Open(); err == nil {
		entries, _ := d.ReadDir(sample)
		d.Close()
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() {
				name += "/"
			}
			names = append(names, name)
		}
	}
	slices.Sort(names)
	list := "it is empty"
	if len(names) > 0 {
		more := ""
		if len(names) > shown {
			names, more = names[:shown], ", …"
		}
		list = "it holds " + strings.Join(names, ", ") + more
	}
	return Errorf(wire.ToolNotAFile, "%s is a directory (%s); read one of its files, or list them with grep {\"pattern\": \"\", \"path\": %q, \"outputMode\": \"filesWithMatches\"}",
		p.Display, list, p.Display)
}
