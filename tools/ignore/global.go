package ignore

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/go-git/gcfg"
)

// UserConfig is what git's system and global configuration files say of
// the excludes file, read once: ExcludesFile then adds a repository's own
// configuration on top.
type UserConfig struct {
	home, xdg string
	value     string // core.excludesFile as the files set it
	found     bool
}

// ReadUserConfig reads core.excludesFile from git's system and global
// configuration, in git's order with the later value winning: the system
// file ($GIT_CONFIG_SYSTEM when set, else /etc/gitconfig; none when
// $GIT_CONFIG_NOSYSTEM is set to a value), then the global ones
// ($GIT_CONFIG_GLOBAL alone when set, else $XDG_CONFIG_HOME/git/config
// then ~/.gitconfig); a variable set to "" names no file, as for git.
// [include] path = ... entries are followed where they stand (a relative
// path is relative to the file that includes it, ~/ is the home
// directory; at most maxIncludeDepth deep). The home directory is $HOME,
// and on Windows, where it is usually unset, %USERPROFILE%, as Git for
// Windows finds it; Git for Windows' system file, beside its installation,
// is not found: only $GIT_CONFIG_SYSTEM names one there. lookup reads the
// environment (os.LookupEnv).
func ReadUserConfig(lookup func(string) (string, bool)) UserConfig {
	getenv := func(k string) string { v, _ := lookup(k); return v }
	c := UserConfig{home: getenv("HOME"), xdg: getenv("XDG_CONFIG_HOME")}
	if c.home == "" && runtime.GOOS == "windows" {
		c.home = getenv("USERPROFILE")
	}
	if c.xdg == "" && c.home != "" {
		c.xdg = filepath.Join(c.home, ".config")
	}
	var configs []string
	if getenv("GIT_CONFIG_NOSYSTEM") == "" {
		system, set := lookup("GIT_CONFIG_SYSTEM")
		if !set && runtime.GOOS != "windows" {
			system = "/etc/gitconfig"
		}
		configs = append(configs, system)
	}
	if global, set := lookup("GIT_CONFIG_GLOBAL"); set {
		configs = append(configs, global)
	} else {
		if c.xdg != "" {
			configs = append(configs, filepath.Join(c.xdg, "git", "config"))
		}
		if c.home != "" {
			configs = append(configs, filepath.Join(c.home, ".gitconfig"))
		}
	}
	r := configReader{home: c.home, section: "core", key: "excludesfile"}
	for _, f := range configs {
		r.read(f, 0)
	}
	c.value, c.found = r.value, r.found
	return c
}

// ExcludesFile is the path of the excludes file git applies in the
// repository whose configuration file is repoConfig (RepoConfig; "" for
// the user's configuration alone): core.excludesFile, the repository's
// own value (and the files it includes) beating the user's. Without a
// value it is $XDG_CONFIG_HOME/git/ignore, with ~/.config standing for
// XDG_CONFIG_HOME when it is unset or empty. "" when none is configured
// and no home directory is known.
//
// Not followed, and so not honoured: [includeIf] sections, whose
// conditions depend on the repository, and a worktree's own
// config.worktree. A relative excludesFile, which git resolves against
// its working directory, is ignored.
func (c UserConfig) ExcludesFile(repoConfig string) string {
	r := configReader{home: c.home, section: "core", key: "excludesfile", value: c.value, found: c.found}
	r.read(repoConfig, 0)
	if configured := r.value; r.found && configured != "" {
		if rest, ok := strings.CutPrefix(configured, "~/"); ok {
			if c.home == "" {
				return ""
			}
			configured = filepath.Join(c.home, rest)
		}
		if filepath.IsAbs(configured) {
			return configured
		}
		return ""
	}
	if c.xdg == "" {
		return ""
	}
	return filepath.Join(c.xdg, "git", "ignore")
}

// GlobalFile is the path of the user's global excludes file, as git finds
// it outside any repository's own configuration:
// ReadUserConfig(lookup).ExcludesFile("").
func GlobalFile(lookup func(string) (string, bool)) string {
	return ReadUserConfig(lookup).ExcludesFile("")
}

// maxIncludeDepth bounds how deep [include] entries are followed (git's
// own bound is 10); it also ends a file that includes itself.
const maxIncludeDepth = 10

// maxConfigFiles bounds the configuration files read for one lookup, so
// a file that includes itself several times cannot multiply the reads.
const maxConfigFiles = 64

// maxConfigBytes is the largest configuration file read.
const maxConfigBytes = 1 << 20

// configReader finds the last value of section.key over configuration
// files and the files they include.
type configReader struct {
	home         string
	section, key string // lower case, no subsection
	value        string
	found        bool
	files        int // read so far
}

func (r *configReader) read(path string, depth int) {
	if path == "" || depth > maxIncludeDepth || r.files >= maxConfigFiles {
		return
	}
	r.files++
	data, err := os.ReadFile(path)
	if err != nil || len(data) > maxConfigBytes {
		return
	}
	eachEntry(data, func(section, key, value string) {
		switch {
		case section == r.section && key == r.key:
			r.value, r.found = value, true
		case section == "include" && key == "path" && value != "":
			if rest, ok := strings.CutPrefix(value, "~/"); ok {
				if r.home == "" {
					return
				}
				value = filepath.Join(r.home, rest)
			} else if !filepath.IsAbs(value) {
				value = filepath.Join(filepath.Dir(path), value)
			}
			r.read(value, depth+1)
		}
	})
}

// eachEntry calls f with every key = value entry of a git configuration
// file's text, in order, with its section and key in lower case; entries
// of a section with a subsection ([section "sub"]) are not passed, and
// neither is a key without "=" (a boolean, not a value).
//
// The text is read by gcfg, the reader go-git's configuration decoder
// (plumbing/format/config) is built on, called directly because the
// decoder groups a file's entries by section and so loses where an
// [include] stands among them, which decides what it overrides. gcfg
// reads git's syntax (names in any case, quoted values, escapes, # and ;
// comments, continuation lines) but stops at the first line it does not
// take, losing every entry after it; forGcfg first rewrites what git
// takes and gcfg does not, and a continuation's newline, which gcfg keeps
// and git drops, is dropped from values (no path holds a newline). Where
// gcfg still stops, git refuses the file too: the entries before that
// line stand, where git would not run at all.
func eachEntry(text []byte, f func(section, key, value string)) {
	gcfg.ReadWithCallback(bytes.NewReader(forGcfg(text)), func(section, subsection, key, value string, blank bool) error {
		if key != "" && subsection == "" && !blank {
			f(strings.ToLower(section), strings.ToLower(key), strings.ReplaceAll(value, "\n", ""))
		}
		return nil
	})
}

// forGcfg rewrites what git reads in a configuration file and gcfg
// refuses: a byte order mark (dropped); bytes that are not UTF-8, such as
// a Latin-1 name (each made U+FFFD: a path spelled so is not found, and
// the entries after it are still read); a backslash ending the file (the
// file is ended with a newline); an entry on its section's header line
// ("[core] excludesFile = x", moved to a line of its own); and the old
// [section.subsection] header (spelled [section "subsection"]).
func forGcfg(text []byte) []byte {
	text = bytes.ToValidUTF8(bytes.TrimPrefix(text, []byte("\xEF\xBB\xBF")), []byte("\uFFFD"))
	if len(text) > 0 && text[len(text)-1] != '\n' {
		text = append(text[:len(text):len(text)], '\n')
	}
	lines := bytes.SplitAfter(text, []byte("\n"))
	changed := false
	for i, line := range lines {
		body := bytes.TrimLeft(line, " \t")
		if len(body) == 0 || body[0] != '[' {
			continue
		}
		end := headerEnd(body)
		if end < 0 {
			continue
		}
		at := len(line) - len(body) // where the header starts in line
		header := body[:end+1]
		if name, sub, ok := bytes.Cut(header[1:end], []byte(".")); ok && dottedName(header[1:end]) {
			header = slices.Concat([]byte("["), name, []byte(` "`), sub, []byte(`"]`))
		}
		rest := body[end+1:]
		if after := bytes.TrimSpace(rest); len(after) > 0 && after[0] != '#' && after[0] != ';' {
			rest = slices.Concat([]byte("\n"), rest)
		}
		if fixed := slices.Concat(line[:at], header, rest); !bytes.Equal(fixed, line) {
			lines[i] = fixed
			changed = true
		}
	}
	if !changed {
		return text
	}
	return bytes.Join(lines, nil)
}

// dottedName reports whether a header's name is the old
// section.subsection form: letters, digits, '-' and '.', with a dot.
func dottedName(name []byte) bool {
	if !bytes.Contains(name, []byte(".")) {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// headerEnd is the offset of the ']' that closes the section header body
// starts with, or -1: a quoted subsection name may hold a ']', and a
// backslash escapes the byte after it there.
func headerEnd(body []byte) int {
	quoted := false
	for i := 1; i < len(body); i++ {
		switch c := body[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == ']':
			return i
		}
	}
	return -1
}
