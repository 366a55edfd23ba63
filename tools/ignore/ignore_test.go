package ignore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			home := t.TempDir()
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
}

// The system file comes first, $GIT_CONFIG_GLOBAL stands for the home
// files, and [include] entries are followed where they stand.
func TestGlobalFileFollowsGitsOrderAndIncludes(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := lookupIn(env)
	write(t, filepath.Join(home, "system"), "[core]\nexcludesFile = /from-system\n")
	env["GIT_CONFIG_SYSTEM"] = filepath.Join(home, "system")
	if got := GlobalFile(getenv); got != "/from-system" {
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
	write(t, filepath.Join(home, ".gitconfig"), "[core]\nexcludesFile = /before\n[include]\npath = dotfiles/git/base\n")
	if got := GlobalFile(getenv); got != filepath.Join(home, "from-base") {
		t.Errorf("relative include (which includes itself): %q", got)
	}
	write(t, filepath.Join(home, ".gitconfig"), "[include]\npath = ~/dotfiles/git/base\n[core]\nexcludesFile = /after\n[includeIf \"gitdir:~/work/\"]\npath = ~/dotfiles/git/base\n")
	if got := GlobalFile(getenv); got != "/after" {
		t.Errorf("a value after the include (and includeIf not followed): %q", got)
	}

	// A file that includes itself many times is read a bounded number of
	// times, not 8 to the 10th.
	write(t, filepath.Join(home, "fan"), strings.Repeat("[include]\npath = fan\n", 8)+"[core]\nexcludesFile = /fan\n")
	r := configReader{home: home, section: "core", key: "excludesfile"}
	r.read(filepath.Join(home, "fan"), 0)
	if r.files != maxConfigFiles || r.value != "/fan" {
		t.Errorf("fan-out: %d files read, value %q", r.files, r.value)
	}

	// $GIT_CONFIG_GLOBAL replaces both home files; set to "" it names
	// none, as for git.
	write(t, filepath.Join(home, "other"), "[core]\nexcludesFile = /from-env\n")
	env["GIT_CONFIG_GLOBAL"] = filepath.Join(home, "other")
	if got := GlobalFile(getenv); got != "/from-env" {
		t.Errorf("GIT_CONFIG_GLOBAL: %q", got)
	}
	env["GIT_CONFIG_GLOBAL"] = ""
	if got := GlobalFile(getenv); got != "/from-system" {
		t.Errorf("GIT_CONFIG_GLOBAL set to nothing: %q, want the system file's value alone", got)
	}
}

// A repository's own configuration beats the user's, with its includes;
// without a value of its own the user's stands.
func TestExcludesFileOfARepository(t *testing.T) {
	home := t.TempDir()
	getenv := lookupIn(map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1"})
	write(t, filepath.Join(home, ".gitconfig"), "[core]\nexcludesFile = ~/user-excludes\n")
	user := ReadUserConfig(getenv)
	repo := filepath.Join(home, "repo")
	write(t, filepath.Join(repo, ".git", "config"), "[core]\n\tbare = false\n\texcludesFile = /repo-excludes\n")
	if got := user.ExcludesFile(RepoConfig(filepath.Join(repo, ".git"))); got != "/repo-excludes" {
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

func TestConfigValue(t *testing.T) {
	tests := []struct{ text, want string }{
		{"[core]\nexcludesFile = /a/b\n", "/a/b"},
		{"[core]\n\texcludesfile = \"/with space/x\" ; comment\n", "/with space/x"},
		{"[core]\nexcludesFile = /a # comment\n", "/a"},
		{"[core]\nexcludesFile = \"/a#b\"\n", "/a#b"},
		{"[core]\nexcludesFile = /a\\\\b\n", `/a\b`},
		{"[core]\nexcludesFile = /long\\\n/path\n", "/long/path"},
		{"[core] excludesFile = /same-line\n", "/same-line"},
		{"[core]\r\nexcludesFile = /crlf\r\n", "/crlf"},
		{"# [core]\n; excludesFile = /no\n[core]\nexcludesFile\n", ""}, // a boolean is no value
	}
	for _, tt := range tests {
		got, _ := configValue(tt.text, "core", "excludesfile")
		if got != tt.want {
			t.Errorf("%q: %q, want %q", tt.text, got, tt.want)
		}
	}
}

// A worktree's .git is a file naming its git directory; the exclude file
// git reads is the common directory's.
func TestInfoExclude(t *testing.T) {
	dir := t.TempDir()
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
