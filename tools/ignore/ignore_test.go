package ignore

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/internal/testenv"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// GlobalFile finds the file git would: core.excludesFile from the XDG
// config, overridden by ~/.gitconfig, else the default under
// XDG_CONFIG_HOME or ~/.config.
func TestGlobalFile(t *testing.T) {
	tests := []struct {
		name      string
		xdg       bool              // XDG_CONFIG_HOME is set (to HOME/xdg)
		files     map[string]string // below HOME
		want      string            // below HOME; "" for none
		wantEmpty bool
	}{
		{name: "default", want: ".config/git/ignore"},
		{name: "xdgDefault", xdg: true, want: "xdg/git/ignore"},
		{name: "gitconfig", files: map[string]string{".gitconfig": "[core]\n\texcludesFile = ~/ex\n"}, want: "ex"},
		{name: "xdgConfig", xdg: true, files: map[string]string{"xdg/git/config": "[core]\nexcludesfile=~/from-xdg\n"}, want: "from-xdg"},
		{name: "gitconfigWins", xdg: true, files: map[string]string{
			"xdg/git/config": "[core]\nexcludesfile=~/from-xdg\n",
			".gitconfig":     "[core]\nexcludesfile=~/from-home\n",
		}, want: "from-home"},
		{name: "lastInFileWins", files: map[string]string{".gitconfig": "[core]\nexcludesFile = ~/one\n[user]\nexcludesFile = ~/not-core\n[CORE]\nExcludesFile = ~/two\n"}, want: "two"},
		{name: "subsectionIsOther", files: map[string]string{".gitconfig": "[core \"x\"]\nexcludesFile = ~/sub\n"}, want: ".config/git/ignore"},
		{name: "relativeIgnored", files: map[string]string{".gitconfig": "[core]\nexcludesFile = rel\n"}, wantEmpty: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := testenv.TempDir(t)
			for f, data := range tt.files {
				write(t, filepath.Join(home, f), data)
			}
			env := map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1"}
			if tt.xdg {
				env["XDG_CONFIG_HOME"] = filepath.Join(home, "xdg")
			}
			got := GlobalFile(lookupIn(env))
			want := filepath.Join(home, tt.want)
			if tt.wantEmpty {
				want = ""
			}
			if got != want {
				t.Errorf("GlobalFile = %q, want %q", got, want)
			}
		})
	}
	if got := GlobalFile(lookupIn(map[string]string{"GIT_CONFIG_NOSYSTEM": "1"})); got != "" {
		t.Errorf("no HOME and no XDG_CONFIG_HOME: %q", got)
	}
	// Windows has %USERPROFILE% where HOME is unset; elsewhere it means
	// nothing to git.
	profile := testenv.TempDir(t)
	want := ""
	if runtime.GOOS == "windows" {
		want = filepath.Join(profile, ".config", "git", "ignore")
	}
	if got := GlobalFile(lookupIn(map[string]string{"GIT_CONFIG_NOSYSTEM": "1", "USERPROFILE": profile})); got != want {
		t.Errorf("USERPROFILE without HOME on %s: %q, want %q", runtime.GOOS, got, want)
	}
}

// The system file comes first, $GIT_CONFIG_GLOBAL stands for the home
// files, and [include] entries are followed where they stand.
func TestGlobalFileFollowsGitsOrderAndIncludes(t *testing.T) {
	home := testenv.TempDir(t)
	env := map[string]string{"HOME": home}
	getenv := lookupIn(env)
	write(t, filepath.Join(home, "system"), "[core]\nexcludesFile = ~/from-system\n")
	env["GIT_CONFIG_SYSTEM"] = filepath.Join(home, "system")
	if got := GlobalFile(getenv); got != filepath.Join(home, "from-system") {
		t.Errorf("system only: %q", got)
	}
	env["GIT_CONFIG_NOSYSTEM"] = "1"
	if got := GlobalFile(getenv); got != filepath.Join(home, ".config", "git", "ignore") {
		t.Errorf("system off: %q", got)
	}
	delete(env, "GIT_CONFIG_NOSYSTEM")

	// ~/.gitconfig includes a file beside it (relative) and one by ~/; the
	// value set after an include wins over the included one, and the
	// included one over what came before.
	write(t, filepath.Join(home, "dotfiles", "git", "base"), "[core]\n\texcludesFile = ~/from-base\n[include]\n\tpath = ../../dotfiles/git/base\n")
	write(t, filepath.Join(home, ".gitconfig"), "[core]\nexcludesFile = ~/before\n[include]\npath = dotfiles/git/base\n")
	if got := GlobalFile(getenv); got != filepath.Join(home, "from-base") {
		t.Errorf("relative include (which includes itself): %q", got)
	}
	write(t, filepath.Join(home, ".gitconfig"), "[include]\npath = ~/dotfiles/git/base\n[core]\nexcludesFile = ~/after\n[includeIf \"gitdir:~/work/\"]\npath = ~/dotfiles/git/base\n")
	if got := GlobalFile(getenv); got != filepath.Join(home, "after") {
		t.Errorf("a value after the include (and includeIf not followed): %q", got)
	}

	// A file that includes itself many times is read a bounded number of
	// times, not 8 to the 10th.
	write(t, filepath.Join(home, "fan"), strings.Repeat("[include]\npath = fan\n", 8)+"[core]\nexcludesFile = ~/fan\n")
	r := configReader{home: home, section: "core", key: "excludesfile"}
	r.read(filepath.Join(home, "fan"), 0)
	if r.files != maxConfigFiles || r.value != "~/fan" {
		t.Errorf("fan-out: %d files read, value %q", r.files, r.value)
	}

	// $GIT_CONFIG_GLOBAL replaces both home files; set to "" it names
	// none, as for git.
	write(t, filepath.Join(home, "other"), "[core]\nexcludesFile = ~/from-env\n")
	env["GIT_CONFIG_GLOBAL"] = filepath.Join(home, "other")
	if got := GlobalFile(getenv); got != filepath.Join(home, "from-env") {
		t.Errorf("GIT_CONFIG_GLOBAL: %q", got)
	}
	env["GIT_CONFIG_GLOBAL"] = ""
	if got := GlobalFile(getenv); got != filepath.Join(home, "from-system") {
		t.Errorf("GIT_CONFIG_GLOBAL set to nothing: %q, want the system file's value alone", got)
	}
}

// A repository's own configuration beats the user's, with its includes;
// without a value of its own the user's stands.
func TestExcludesFileOfARepository(t *testing.T) {
	home := testenv.TempDir(t)
	getenv := lookupIn(map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1"})
	write(t, filepath.Join(home, ".gitconfig"), "[core]\nexcludesFile = ~/user-excludes\n")
	user := ReadUserConfig(getenv)
	repo := filepath.Join(home, "repo")
	write(t, filepath.Join(repo, ".git", "config"), "[core]\n\tbare = false\n\texcludesFile = ~/repo-excludes\n")
	if got := user.ExcludesFile(RepoConfig(filepath.Join(repo, ".git"))); got != filepath.Join(home, "repo-excludes") {
		t.Errorf("repository's own value: %q", got)
	}
	write(t, filepath.Join(repo, ".git", "config"), "[core]\n\tbare = false\n[include]\n\tpath = more\n")
	write(t, filepath.Join(repo, ".git", "more"), "[core]\n\texcludesFile = ~/included-excludes\n")
	if got := user.ExcludesFile(RepoConfig(filepath.Join(repo, ".git"))); got != filepath.Join(home, "included-excludes") {
		t.Errorf("repository's value in a file it includes: %q", got)
	}
	write(t, filepath.Join(repo, ".git", "config"), "[core]\n\tbare = false\n")
	if got := user.ExcludesFile(RepoConfig(filepath.Join(repo, ".git"))); got != filepath.Join(home, "user-excludes") {
		t.Errorf("no value of its own: %q, want the user's", got)
	}
	if got := user.ExcludesFile(""); got != filepath.Join(home, "user-excludes") {
		t.Errorf("no repository: %q", got)
	}
}

// lookupIn is os.LookupEnv over a map.
func lookupIn(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

// configValue returns the last value of section.key (both lower case, no
// subsection) in a git configuration file's text, without following
// includes.
func configValue(text, section, key string) (string, bool) {
	var value string
	found := false
	eachEntry([]byte(text), func(s, k, v string) {
		if s == section && k == key {
			value, found = v, true
		}
	})
	return value, found
}

// configCases are git configuration texts and the core.excludesFile git
// reads in each ("" and not found for none): every syntax the reader must
// take as git does. TestConfigValue checks them against git itself.
var configCases = []struct {
	name, text, want string
	found            bool
	// unlikeGit, when set, says why the case is not checked against git:
	// git refuses the file (and so any command in the repository), where
	// the reader goes on.
	unlikeGit string
}{
	{"plain", "[core]\nexcludesFile = /a/b\n", "/a/b", true, ""},
	{"quoted", "[core]\n\texcludesfile = \"/with space/x\" ; comment\n", "/with space/x", true, ""},
	{"quotedParts", "[core]\nexcludesFile = \"/q\" \"/r\"\n", "/q /r", true, ""},
	{"comment", "[core]\nexcludesFile = /a # comment\n", "/a", true, ""},
	{"commentInQuotes", "[core]\nexcludesFile = \"/a#b;c\"\n", "/a#b;c", true, ""},
	{"commentLines", "# [core]\n; excludesFile = /no\n[core] # here\n\t; excludesFile = /no\n", "", false, ""},
	{"escapes", "[core]\nexcludesFile = /a\\\\b/\\\"q\\\"/t\\tx\n", "/a\\b/\"q\"/t\tx", true, ""},
	{"continuation", "[core]\nexcludesFile = /long\\\n/path\n", "/long/path", true, ""},
	{"continuationCRLF", "[core]\r\nexcludesFile = /long\\\r\n/path\r\n", "/long/path", true, ""},
	{"crlf", "[core]\r\nexcludesFile = /crlf\r\n", "/crlf", true, ""},
	{"trailingBlanks", "[core]\nexcludesFile = /a  \t\n", "/a", true, ""},
	{"noBlanks", "[core]\n  excludesFile=/nospace\n", "/nospace", true, ""},
	{"caseInsensitive", "[CoRe]\nEXCLUDESFILE = /upper\n", "/upper", true, ""},
	{"lastWins", "[core]\nexcludesFile = /one\n[user]\nexcludesFile = /not-core\n[CORE]\nExcludesFile = /two\n", "/two", true, ""},
	{"subsection", "[core \"sub\"]\nexcludesFile = /sub\n", "", false, ""},
	{"subsectionEscaped", "[core \"a]\\\"b\"]\nexcludesFile = /sub\n[core]\nexcludesFile = /after\n", "/after", true, ""},
	{"onHeaderLine", "[core] excludesFile = /same-line\n", "/same-line", true, ""},
	{"onHeaderLineAfterSubsection", "[x \"y]\"] k = v\n[core]\texcludesFile = /tab\n", "/tab", true, ""},
	{"byteOrderMark", "\xEF\xBB\xBF[core]\nexcludesFile = /bom\n", "/bom", true, ""},
	{"boolean", "[core]\nexcludesFile = /a\nexcludesFile\n", "/a", true, "git refuses a core.excludesFile without a value; the reader passes over it"},
	{"empty", "[core]\nexcludesFile =\n", "", true, ""},
	{"nonASCII", "[core]\nexcludesFile = /é\n", "/é", true, ""},
	{"notUTF8Elsewhere", "[user]\nname = Jos\xe9\n[core]\nexcludesFile = /after-latin1\n", "/after-latin1", true, ""},
	{"dottedHeader", "[alias.foo]\nx = y\n[Core.Sub]\nexcludesFile = /sub\n[core]\nexcludesFile = /after-dotted\n", "/after-dotted", true, ""},
	{"backslashAtEnd", "[core]\nexcludesFile = /at-end\\", "/at-end", true, ""},
	{"noFinalNewline", "[core]\nexcludesFile = /no-newline", "/no-newline", true, ""},
}

// The reader takes every case as git does: the expected values are
// checked against git config itself where git is installed.
func TestConfigValue(t *testing.T) {
	git, _ := exec.LookPath("git")
	for _, tt := range configCases {
		got, found := configValue(tt.text, "core", "excludesfile")
		if got != tt.want || found != tt.found {
			t.Errorf("%s: %q, found %v; want %q, %v", tt.name, got, found, tt.want, tt.found)
		}
		if git == "" || tt.unlikeGit != "" {
			continue
		}
		file := filepath.Join(testenv.TempDir(t), "config")
		write(t, file, tt.text)
		out, err := exec.Command(git, "config", "--file", file, "--get", "core.excludesFile").Output()
		if gitWant := strings.TrimSuffix(string(out), "\n"); gitWant != tt.want || (err == nil) != tt.found {
			t.Errorf("%s: git reads %q (%v); the case says %q, found %v", tt.name, gitWant, err, tt.want, tt.found)
		}
	}
}

// Whatever a configuration file holds, reading it ends without a panic,
// and a value never holds a newline.
func FuzzConfigEntries(f *testing.F) {
	for _, tt := range configCases {
		f.Add(tt.text)
	}
	f.Add("[a \"\\")
	f.Add("[core]\nx = \"\\")
	f.Fuzz(func(t *testing.T, text string) {
		eachEntry([]byte(text), func(section, key, value string) {
			if strings.ContainsRune(value, '\n') {
				t.Fatalf("%q: value %q holds a newline", text, value)
			}
		})
	})
}

// A worktree's .git is a file naming its git directory; the exclude file
// git reads is the common directory's.
func TestInfoExclude(t *testing.T) {
	dir := testenv.TempDir(t)
	main := filepath.Join(dir, "main")
	write(t, filepath.Join(main, ".git", "info", "exclude"), "x\n")
	if got := InfoExclude(filepath.Join(main, ".git")); got != filepath.Join(main, ".git", "info", "exclude") {
		t.Errorf("repository: %q", got)
	}
	wtGit := filepath.Join(main, ".git", "worktrees", "wt")
	write(t, filepath.Join(wtGit, "commondir"), "../..\n")
	write(t, filepath.Join(dir, "wt", ".git"), "gitdir: "+wtGit+"\n")
	if got := InfoExclude(filepath.Join(dir, "wt", ".git")); got != filepath.Join(main, ".git", "info", "exclude") {
		t.Errorf("worktree: %q", got)
	}
	sub := filepath.Join(main, ".git", "modules", "sub")
	write(t, filepath.Join(sub, "HEAD"), "")
	write(t, filepath.Join(main, "sub", ".git"), "gitdir: ../.git/modules/sub\n")
	if got := InfoExclude(filepath.Join(main, "sub", ".git")); got != filepath.Join(sub, "info", "exclude") {
		t.Errorf("submodule: %q", got)
	}
	write(t, filepath.Join(dir, "junk", ".git"), "not a gitdir line\n")
	if got := InfoExclude(filepath.Join(dir, "junk", ".git")); got != "" {
		t.Errorf("junk .git file: %q", got)
	}
	// The configuration is found the same way, in the common directory.
	if got := RepoConfig(filepath.Join(dir, "wt", ".git")); got != filepath.Join(main, ".git", "config") {
		t.Errorf("worktree's configuration: %q", got)
	}
	if got := RepoConfig(filepath.Join(main, "sub", ".git")); got != filepath.Join(sub, "config") {
		t.Errorf("submodule's configuration: %q", got)
	}
	if got := RepoConfig(filepath.Join(dir, "junk", ".git")); got != "" {
		t.Errorf("junk .git file's configuration: %q", got)
	}
}

func TestParse(t *testing.T) {
	ps := Parse(strings.NewReader("# comment\n\n*.log\r\n[!b]x.c\n\\[!a]\n"), nil, 1<<20)
	m := NewMatcher(ps)
	for path, want := range map[string]bool{"a.log": true, "ax.c": true, "bx.c": false, "[!a]": true, "# comment": false} {
		if got := m.Match([]string{path}, false); got != want {
			t.Errorf("%q ignored %v, want %v", path, got, want)
		}
	}
}

// On Windows each escape is spelled as a bracket expression, which
// path/filepath.Match reads there as git reads the escape.
func TestEscapesAsClasses(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:        `plain`,
		`\#hash`:       `[#]hash`,
		`\!bang`:       `[!]bang`,
		`trailing\ `:   `trailing[ ]`,
		`lit\[x\].txt`: `lit[[]x[]].txt`,
		`a\*b\?c`:      `a[*]b[?]c`,
		`back\\slash`:  `back[\]slash`,
		`\^caret`:      `^caret`,
		`[^a\-z]x`:     `[^a-z]x`,
		`[]\a]b`:       `[]a]b`,
	} {
		if got := escapesAsClasses(in); got != want {
			t.Errorf("escapesAsClasses(%q) = %q, want %q", in, got, want)
		}
	}
}
