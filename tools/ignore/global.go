package ignore

import (
	"os"
	"path/filepath"
	"strings"
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
// directory; at most maxIncludeDepth deep). lookup reads the environment
// (os.LookupEnv).
func ReadUserConfig(lookup func(string) (string, bool)) UserConfig {
	getenv := func(k string) string { v, _ := lookup(k); return v }
	c := UserConfig{home: getenv("HOME"), xdg: getenv("XDG_CONFIG_HOME")}
	if c.xdg == "" && c.home != "" {
		c.xdg = filepath.Join(c.home, ".config")
	}
	var configs []string
	if getenv("GIT_CONFIG_NOSYSTEM") == "" {
		system, set := lookup("GIT_CONFIG_SYSTEM")
		if !set {
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
	eachEntry(string(data), func(section, key, value string) {
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

// configValue returns the last value of section.key (both lower case, no
// subsection) in a git configuration file's text, without following
// includes.
func configValue(text, section, key string) (string, bool) {
	var value string
	found := false
	eachEntry(text, func(s, k, v string) {
		if s == section && k == key {
			value, found = v, true
		}
	})
	return value, found
}

// eachEntry calls f with every key = value entry of a git configuration
// file's text, in order, with its section and key in lower case; entries
// of a section with a subsection ([section "sub"]) are passed with the
// section "" and so match nothing. It reads git's syntax: [section]
// headers, names case-insensitive, values with "quotes", backslash escapes
// and continuation lines, and # or ; comments outside quotes. A key
// without "=" is a boolean, not a value, and is not passed.
func eachEntry(text string, f func(section, key, value string)) {
	section := ""
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				section = ""
				continue
			}
			head := strings.TrimSpace(line[1:end])
			section = strings.ToLower(head)
			if strings.ContainsAny(head, " \t\"") {
				section = "" // a subsection
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		if section == "" {
			continue
		}
		name, rest, hasValue := strings.Cut(line, "=")
		if !hasValue {
			continue
		}
		// A value may go on over lines that end in a backslash.
		for strings.HasSuffix(rest, `\`) && !strings.HasSuffix(rest, `\\`) && i+1 < len(lines) {
			i++
			rest = rest[:len(rest)-1] + lines[i]
		}
		f(section, strings.ToLower(strings.TrimSpace(name)), unquote(rest))
	}
}

// unquote reads a configuration value: surrounding blanks dropped, quoted
// parts kept as written, escapes resolved, a comment cut off.
func unquote(s string) string {
	var b strings.Builder
	quoted := false
	pending := "" // blanks kept only if more of the value follows
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			quoted = !quoted
			b.WriteString(pending)
			pending = ""
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteString(pending)
			pending = ""
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(s[i])
			}
		case !quoted && (c == '#' || c == ';'):
			return b.String()
		case !quoted && (c == ' ' || c == '\t'):
			if b.Len() > 0 {
				pending += string(c)
			}
		default:
			b.WriteString(pending)
			pending = ""
			b.WriteByte(c)
		}
	}
	return b.String()
}
