package ignore

import (
	"os"
	"path/filepath"
	"strings"
)

// GlobalFile is the path of the user's global excludes file, as git finds
// it: core.excludesFile from git's user configuration
// ($XDG_CONFIG_HOME/git/config, then ~/.gitconfig, the later winning),
// else $XDG_CONFIG_HOME/git/ignore, with ~/.config standing for
// XDG_CONFIG_HOME when it is unset or empty. getenv reads the environment
// (os.Getenv). "" when no home directory is known.
//
// Not followed, and so not honoured: the system configuration
// (/etc/gitconfig), a repository's own .git/config, and [include] and
// [includeIf] sections. A relative excludesFile, which git resolves
// against its working directory, is ignored.
func GlobalFile(getenv func(string) string) string {
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var configured string
	var configs []string
	if xdg != "" {
		configs = append(configs, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	for _, c := range configs {
		data, err := os.ReadFile(c)
		if err != nil || len(data) > 1<<20 {
			continue
		}
		if v, ok := configValue(string(data), "core", "excludesfile"); ok {
			configured = v
		}
	}
	if configured != "" {
		if rest, ok := strings.CutPrefix(configured, "~/"); ok {
			if home == "" {
				return ""
			}
			configured = filepath.Join(home, rest)
		}
		if filepath.IsAbs(configured) {
			return configured
		}
		return ""
	}
	if xdg == "" {
		return ""
	}
	return filepath.Join(xdg, "git", "ignore")
}

// configValue returns the last value of section.key (both lower case, no
// subsection) in a git configuration file's text. It reads git's syntax:
// [section] and [section "sub"] headers, names case-insensitive, values
// with "quotes", backslash escapes and continuation lines, and # or ;
// comments outside quotes. A key without "=" is a boolean, not a value.
func configValue(text, section, key string) (string, bool) {
	var value string
	found, inSection := false, false
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				inSection = false
				continue
			}
			head := strings.TrimSpace(line[1:end])
			inSection = strings.EqualFold(head, section)
			line = strings.TrimSpace(line[end+1:])
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		if !inSection {
			continue
		}
		name, rest, hasValue := strings.Cut(line, "=")
		if !strings.EqualFold(strings.TrimSpace(name), key) || !hasValue {
			continue
		}
		// A value may go on over lines that end in a backslash.
		for strings.HasSuffix(rest, `\`) && !strings.HasSuffix(rest, `\\`) && i+1 < len(lines) {
			i++
			rest = rest[:len(rest)-1] + lines[i]
		}
		value, found = unquote(rest), true
	}
	return value, found
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
