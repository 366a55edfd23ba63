package workspace

import (
	"errors"
	"strings"
	"testing"
)

// The Windows path rules are rules of the string: they hold, and are
// tested, on every platform.
func TestWindowsPathRules(t *testing.T) {
	tests := []struct {
		path, want string
		err        string // a word of the error; "" when the path is fine
	}{
		{`src\a.go`, `src\a.go`, ""},
		{`src/a.go`, `src\a.go`, ""},
		{`C:\work\src\a.go`, `C:\work\src\a.go`, ""},
		{`c:/work/a.go`, `c:\work\a.go`, ""},
		{`C:\`, `C:\`, ""},
		{`..\x`, `..\x`, ""}, // the root check decides
		{`\\server\share\dir\a.go`, `\\server\share\dir\a.go`, ""},
		{`//server/share/a.go`, `\\server\share\a.go`, ""},
		{`PROGRA~1\x`, `PROGRA~1\x`, ""}, // a short name is resolved by the filesystem
		{`console.log`, `console.log`, ""},
		{`CONFIG\nullable.go`, `CONFIG\nullable.go`, ""},
		{`com10.txt`, `com10.txt`, ""},
		{`.gitignore`, `.gitignore`, ""},

		// Trailing dots and spaces: dropped, as Windows drops them.
		{`a.txt.`, `a.txt`, ""},
		{`a.txt. . `, `a.txt`, ""},
		{`dir.\a.txt `, `dir\a.txt`, ""},
		{`...`, "", "only dots and spaces"},
		{`a\ \b`, "", "only dots and spaces"},

		// Reserved device names, in any case, with extensions and spaces.
		{`CON`, "", "device CON"},
		{`nul`, "", "device NUL"},
		{`nul.txt`, "", "device NUL"},
		{`src\aux.c`, "", "device AUX"},
		{`CON .c`, "", "device CON"},
		{`prn.tar.gz`, "", "device PRN"},
		{`COM1`, "", "device COM1"},
		{`lpt9.log`, "", "device LPT9"},
		{`COM¹`, "", "device COM¹"},
		{`conin$`, "", "device CONIN$"},
		{`NUL\x`, "", "device NUL"},
		{`nul.`, "", "device NUL"},

		// Alternate data streams.
		{`a.txt:hidden`, "", "alternate data stream"},
		{`a.txt::$DATA`, "", "alternate data stream"},
		{`src\a.go:x:$DATA`, "", "alternate data stream"},
		{`C:\w\a.txt:s`, "", "alternate data stream"},

		// Characters Windows refuses (and FindFirstFile's patterns).
		{`a*.go`, "", "does not allow"},
		{`a?.go`, "", "does not allow"},
		{`a<b`, "", "does not allow"},
		{"a\tb", "", "does not allow"},

		// Paths that depend on process state, or skip the rules.
		{`C:foo`, "", "current directory of drive C:"},
		{`C:`, "", "current directory of drive C:"},
		{`\work\a.go`, "", "root of the current drive"},
		{`/work/a.go`, "", "root of the current drive"},
		{`\\.\C:\work\a.go`, "", "device path"},
		{`\\?\C:\work\a.go`, "", "device path"},
		{`//?/C:/work/a.go`, "", "device path"},
		{`\??\C:\work\a.go`, "", "device path"},
		{`\\.\pipe\x`, "", "device path"},
		{`\\server`, "", "UNC"},
		{`\\server\`, "", "UNC"},
	}
	for _, tt := range tests {
		got, err := windowsPath(tt.path)
		if tt.err == "" {
			if err != nil || got != tt.want {
				t.Errorf("windowsPath(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("windowsPath(%q) = %q, %v; want ErrBadPath saying %q", tt.path, got, err, tt.err)
		}
	}
}

func TestWindowsVolume(t *testing.T) {
	for p, want := range map[string]string{
		`C:\a`:                `C:`,
		`c:`:                  `c:`,
		`\\srv\share\a\b`:     `\\srv\share`,
		`//srv/share`:         `//srv/share`,
		`relative\a`:          ``,
		`\rooted`:             ``,
		`\\srv`:               `\\srv`,
		`1:\not-a-drive`:      ``,
		`\\srv\share`:         `\\srv\share`,
		`\\srv\share\`:        `\\srv\share`,
		`\\SRV\Share\x`:       `\\SRV\Share`,
		`/unix/absolute/path`: ``,
	} {
		if got := windowsVolume(p); got != want {
			t.Errorf("windowsVolume(%q) = %q, want %q", p, got, want)
		}
	}
}

// A path on a volume no root lies on is outside before anything is
// opened: a UNC path to another server is never looked up.
func TestWindowsArgRefusesOtherVolumesUntouched(t *testing.T) {
	roots := []Root{{Path: `C:\work`}, {Path: `\\build\share\cache`}}
	for p, want := range map[string]error{
		`src\a.go`:                   nil,
		`C:\work\a.go`:               nil,
		`c:\other\a.go`:              nil, // the root check decides
		`\\BUILD\Share\cache\x`:      nil,
		`D:\a.go`:                    ErrOutside,
		`\\attacker\share\x`:         ErrOutside,
		`\\build\other\x`:            ErrOutside,
		`\\attacker\share\a.txt:ads`: ErrBadPath,
	} {
		_, err := windowsArg(p, roots)
		if want == nil && err != nil || want != nil && !errors.Is(err, want) {
			t.Errorf("windowsArg(%q) error = %v, want %v", p, err, want)
		}
	}
}
