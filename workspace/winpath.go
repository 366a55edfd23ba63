package workspace

import (
	"fmt"
	"runtime"
	"strings"
)

// Windows path rules (edit-contract §13.8). os.Root confines every file
// operation to its root on Windows as elsewhere; what Windows adds is in
// the spelling of a path, checked here on the string alone before
// anything touches the disk, so the rules are the same on every build
// and tested on every platform:
//
//   - a device or NT path (\\.\, \\?\, \??\) names devices and skips
//     the normalization every other rule relies on: refused;
//   - a drive-relative path (C:foo) means the current directory of that
//     drive, and a path rooted without a drive (\foo) the current drive:
//     both depend on process state, refused;
//   - a UNC path (\\server\share\...) is allowed when a root lies on that
//     share; any other volume is outside every root without being
//     touched, so no name sends the machine's credentials to a server
//     (Resolve, onRootVolume);
//   - a colon in a name opens an alternate data stream (a.txt:hidden,
//     a.txt::$DATA), content the file's own readers never see: refused;
//   - reserved device names (CON, PRN, AUX, NUL, COM0-9, LPT0-9 and the
//     superscript-digit ones, CONIN$, CONOUT$), also with an extension
//     or trailing spaces (nul.txt, "CON .c"), open a device: refused;
//   - the characters < > " | ? * and control characters are not allowed
//     in names (and ? and * are patterns to the calls that look up
//     stored names): refused;
//   - Windows drops the trailing dots and spaces of a name (a.txt. is
//     a.txt) when it opens a path by name, but not through a directory
//     handle as os.Root does: they are dropped here, so the path names
//     what Windows would open; a name of dots and spaces alone is refused.
//
// 8.3 short names (PROGRA~1) and the case of each name are resolved to the
// long name as stored by filepath.EvalSymlinks (FindFirstFile), before the
// root check; junctions and symbolic links are followed by the same call
// and then checked like any other link.
const windowsRules = runtime.GOOS == "windows"

func isWinSep(c byte) bool { return c == '\\' || c == '/' }

// windowsVolume returns the volume p begins with in Windows syntax: a
// drive (C:) or a UNC share (\\server\share), or "".
func windowsVolume(p string) string {
	if len(p) >= 2 && p[1] == ':' && isDriveLetter(p[0]) {
		return p[:2]
	}
	if len(p) < 3 || !isWinSep(p[0]) || !isWinSep(p[1]) || isWinSep(p[2]) {
		return ""
	}
	// \\server\share: up to the separator after the share.
	seps := 0
	for i := 2; i < len(p); i++ {
		if isWinSep(p[i]) {
			if seps++; seps == 2 {
				return p[:i]
			}
		}
	}
	return p
}

func isDriveLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// windowsPath checks p against the Windows path rules and returns it
// with the trailing dots and spaces of each name dropped and '\' between
// names; an error wraps ErrBadPath and names the rule and the next step.
func windowsPath(p string) (string, error) {
	if len(p) >= 3 && isWinSep(p[0]) && (isWinSep(p[1]) && (p[2] == '.' || p[2] == '?') || p[1] == '?' && p[2] == '?') &&
		(len(p) == 3 || isWinSep(p[3])) {
		return "", fmt.Errorf("%w: %s is a device path (\\\\.\\, \\\\?\\ or \\??\\), which names devices and skips Windows' path rules; give a plain path such as C:\\dir\\file or one relative to the workspace root", ErrBadPath, p)
	}
	vol := windowsVolume(p)
	rest := p[len(vol):]
	switch {
	case len(vol) == 2 && (rest == "" || !isWinSep(rest[0])):
		return "", fmt.Errorf("%w: %s is relative to the current directory of drive %s; give the full path (%s\\...) or a path relative to the workspace root", ErrBadPath, p, vol, vol)
	case len(vol) > 2 && (strings.Count(strings.ReplaceAll(vol, "/", `\`), `\`) < 3 || strings.HasSuffix(vol, `\`) || strings.HasSuffix(vol, "/")):
		return "", fmt.Errorf("%w: %s is not a whole UNC path; name the server and share (\\\\server\\share\\dir\\file)", ErrBadPath, p)
	case vol == "" && rest != "" && isWinSep(rest[0]):
		return "", fmt.Errorf("%w: %s starts at the root of the current drive; give the drive (C:\\...) or a path relative to the workspace root", ErrBadPath, p)
	}
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(vol, "/", `\`))
	for i, name := range strings.FieldsFunc(rest, func(r rune) bool { return r == '\\' || r == '/' }) {
		if i > 0 || vol != "" {
			b.WriteByte('\\')
		}
		clean, err := windowsName(name)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %v", ErrBadPath, p, err)
		}
		b.WriteString(clean)
	}
	if b.Len() == len(vol) && vol != "" {
		b.WriteByte('\\') // C:\ itself
	}
	return b.String(), nil
}

// windowsName checks one name of a path and drops its trailing dots and
// spaces.
func windowsName(name string) (string, error) {
	if name == "." || name == ".." {
		return name, nil
	}
	for _, c := range []byte(name) {
		switch {
		case c == ':':
			return "", fmt.Errorf("%q holds a colon, which on Windows names an alternate data stream of a file; name the file alone", name)
		case c < 0x20 || strings.IndexByte(`<>"|?*`, c) >= 0:
			return "", fmt.Errorf("%q holds %q, which Windows does not allow in a name; rename without it", name, c)
		}
	}
	trimmed := strings.TrimRight(name, ". ")
	if trimmed == "" {
		return "", fmt.Errorf("%q is only dots and spaces, which Windows drops from the end of a name, leaving nothing; give a real name", name)
	}
	base, _, _ := strings.Cut(trimmed, ".")
	base = strings.TrimRight(base, " ")
	for _, dev := range reservedNames {
		if strings.EqualFold(base, dev) {
			return "", fmt.Errorf("%q is the Windows device %s (with any extension or trailing spaces), not a file; choose another name", name, dev)
		}
	}
	return trimmed, nil
}

// reservedNames are the names Windows opens as devices in any directory.
var reservedNames = []string{
	"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
	"COM0", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9", "COM¹", "COM²", "COM³",
	"LPT0", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9", "LPT¹", "LPT²", "LPT³",
}

// windowsArg applies the Windows path rules to a tool's path argument and
// refuses, as outside every root, a path on a volume no root lies on,
// before anything touches it: a UNC path to another server is never
// opened.
func windowsArg(p string, roots []Root) (string, error) {
	p, err := windowsPath(p)
	if err != nil {
		return "", err
	}
	vol := windowsVolume(p)
	if vol == "" {
		return p, nil
	}
	for _, r := range roots {
		if strings.EqualFold(windowsVolume(r.Path), vol) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s is on %s, where no root of this session lies", ErrOutside, p, vol)
}
