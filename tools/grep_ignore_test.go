package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

// gitIgnoreCase is a tree and the ignore files around it; git itself says
// which of its files a walk must leave out.
type gitIgnoreCase struct {
	name       string
	files      []string          // every file, each holding "x"
	ignores    map[string]string // .gitignore files, .git/info/exclude, by path in the tree
	global     string            // the global excludes file's patterns, if any
	globalPath string            // core.excludesFile as ~/.gitconfig names it; "" for the default place
	included   bool              // set in a file ~/.gitconfig includes, not in ~/.gitconfig itself
	// repoExcludes are, by repository ("." or "nested"), the patterns of
	// an excludes file that repository's own configuration names.
	repoExcludes map[string]string
}

var gitIgnoreCases = []gitIgnoreCase{{
	name: "patterns",
	files: []string{"x.log", "keep.log", "build/f", "src/build/f", "docs/t.tmp", "docs/a/b/t.tmp",
		"cache/f", "sub/cache/f", "out/o/f", "a/z.txt", "a/b/c/z.txt", "a/b/c/a/z/z.txt", "#hash",
		"trailing ", "ax.c", "bx.c", "vendor/f", "sub/vendor/f", "ok.txt", "d/e/f.go", "d/e.go",
		"m/n/deep.md", "q/only-dir", "q2/only-dir/f", "star/x.y.z", "abc/**", "lit[x].txt"},
	ignores: map[string]string{".gitignore": "*.log\n!keep.log\n/build\ndocs/**/*.tmp\n**/cache/\nout/**\n" +
		"a/**/z.txt\n\\#hash\ntrailing\\ \n[!b]x.c\nvendor/\nd/*.go\n**/n/*.md\nonly-dir/\nstar/*.*.*\n" +
		"# a comment\n\n   \nlit\\[x\\].txt\n"},
}, {
	name:  "precedence",
	files: []string{"a.txt", "b.txt", "c.txt", "d.txt", "sub/a.txt", "sub/b.txt", "sub/e.txt", "nested/a.txt", "nested/f.txt", "nested/g.txt"},
	ignores: map[string]string{
		".git/info/exclude":        "a.txt\nc.txt\n/e.txt\n",
		".gitignore":               "!c.txt\nd.txt\n",
		"sub/.gitignore":           "!a.txt\n",
		"nested/.git/info/exclude": "/f.txt\n",
	},
	global: "b.txt\ne.txt\ng.txt\n!d.txt\n",
}, {
	name:       "configuredGlobal",
	files:      []string{"a.tmp", "b.txt", "sub/c.tmp"},
	global:     "*.tmp\n",
	globalPath: "~/my-excludes",
}, {
	name:       "globalInIncludedConfig",
	files:      []string{"a.tmp", "b.txt", "sub/c.tmp"},
	global:     "*.tmp\n",
	globalPath: "~/my-excludes",
	included:   true,
}, {
	name:         "repositoryConfiguredExcludes",
	files:        []string{"a.tmp", "b.log", "c.txt", "nested/a.tmp", "nested/b.log", "nested/c.bak", "nested/d.txt"},
	global:       "*.tmp\n",
	globalPath:   "~/my-excludes",
	repoExcludes: map[string]string{".": "*.log\n", "nested": "*.bak\n"},
}}

// TestGrepIgnoresWhatGitIgnores compares the files grep searches with the
// untracked files git lists as not ignored (git ls-files --others
// --exclude-standard), with a home directory of the test's own.
func TestGrepIgnoresWhatGitIgnores(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: the ignore rules are checked against git itself (apt-get install git)")
	}
	for _, tc := range gitIgnoreCases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			unsetenv(t, "GIT_CONFIG_GLOBAL")
			if tc.global != "" {
				where := filepath.Join(home, ".config", "git", "ignore")
				if tc.globalPath != "" {
					where = filepath.Join(home, strings.TrimPrefix(tc.globalPath, "~/"))
					core := "[core]\n\texcludesFile = " + tc.globalPath + "\n"
					if tc.included {
						writeFile(t, filepath.Join(home, "dotfiles", "gitconfig"), core)
						core = "[include]\n\tpath = dotfiles/gitconfig\n"
					}
					writeFile(t, filepath.Join(home, ".gitconfig"), core)
				}
				writeFile(t, where, tc.global)
			}
			e := newProdEnv(t, config.DefaultLimits())
			for _, dir := range []string{".", "nested"} {
				if slices.ContainsFunc(tc.files, func(f string) bool { return strings.HasPrefix(f, dir+"/") }) || dir == "." {
					cmd := exec.Command(git, "init", "-q", filepath.Join(e.root, dir))
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("git init: %v %s", err, out)
					}
				}
				if patterns, ok := tc.repoExcludes[dir]; ok {
					file := filepath.Join(home, "repo-excludes-"+filepath.Base(filepath.Join(e.root, dir)))
					writeFile(t, file, patterns)
					cmd := exec.Command(git, "config", "core.excludesFile", file)
					cmd.Dir = filepath.Join(e.root, dir)
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("git config: %v %s", err, out)
					}
				}
			}
			for _, f := range tc.files {
				e.put(f, "x\n")
			}
			for f, data := range tc.ignores {
				e.put(f, data)
			}
			cmd := exec.Command(git, "ls-files", "--others", "--exclude-standard")
			cmd.Dir = e.root
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("git ls-files: %v", err)
			}
			var want []string
			for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				f = strings.Trim(f, `"`) // git quotes names it would escape
				if f != "" && !strings.HasSuffix(f, "/") && !strings.HasPrefix(filepath.Base(f), ".git") {
					want = append(want, f)
				}
			}
			if slices.ContainsFunc(tc.files, func(f string) bool { return strings.HasPrefix(f, "nested/") }) {
				// git lists a nested repository as one entry; its files
				// are what git would list inside it.
				cmd := exec.Command(git, "ls-files", "--others", "--exclude-standard")
				cmd.Dir = filepath.Join(e.root, "nested")
				out, _ := cmd.Output()
				for _, f := range strings.Fields(string(out)) {
					want = append(want, "nested/"+f)
				}
			}
			slices.Sort(want)
			r := e.grep(`{"pattern":"x","outputMode":"filesWithMatches"}`)
			var got []string
			for _, f := range r.Files {
				if !strings.HasPrefix(filepath.Base(f), ".git") {
					got = append(got, f)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("grep searched %q\ngit lists     %q", got, want)
			}
		})
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// In a git worktree, .git is a file naming the worktree's git directory,
// and the exclude file that applies is the main repository's.
func TestGrepHonoursAWorktreesExcludeFile(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	unsetenv(t, "GIT_CONFIG_GLOBAL")
	e := newProdEnv(t, config.DefaultLimits())
	common := filepath.Join(filepath.Dir(e.root), "main", ".git")
	writeFile(t, filepath.Join(common, "info", "exclude"), "*.local\n")
	writeFile(t, filepath.Join(common, "worktrees", "ws", "commondir"), "../..\n")
	e.put(".git", "gitdir: "+filepath.Join(common, "worktrees", "ws")+"\n")
	e.put("a.local", "x\n")
	e.put("b.txt", "x\n")
	if r := e.grep(`{"pattern":"x"}`); !slices.Equal(r.Files, []string{"b.txt"}) {
		t.Errorf("files %v, want b.txt alone", r.Files)
	}
}

// unsetenv removes an environment variable for the test (a variable set
// to "" means something else to git), restoring it afterwards.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	t.Setenv(key, "") // registers the restore
	os.Unsetenv(key)
}
