package config

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/hostd-dev/hostd/workspace/textenc"
)

// EncodingRule names the encoding of the files a glob matches: the config
// file's "encodings" setting (docs/config.md, edit-contract §3.5). hostd
// never guesses an encoding: a file without a byte-order mark is UTF-8
// unless a rule says otherwise. The workspace package matches the rules
// (workspace.CompileEncodings); this is their form and their check.
type EncodingRule struct {
	// Root, when set, is an absolute directory: the rule applies below it
	// and the glob is matched against paths relative to it. Empty: the
	// rule applies under every root of every session, matched against
	// paths relative to the root the file lies under.
	Root string `json:"root,omitempty"`
	// Glob is a shell pattern of '/'-separated segments, "**" matching
	// any number of directories: "*.txt" (one segment) matches the name
	// at any depth, "legacy/**/*.rc" a path.
	Glob string `json:"glob"`
	// Encoding is a name textenc.Lookup knows: "windows-1252",
	// "shift_jis", "iso-8859-1", "utf-8".
	Encoding string `json:"encoding"`
}

// Check reports what is wrong with the rule: an unknown encoding, an
// empty or malformed glob, a root that is not absolute.
func (r EncodingRule) Check() error {
	if _, err := textenc.Lookup(r.Encoding); err != nil {
		return err
	}
	if r.Glob == "" {
		return fmt.Errorf("glob is empty: name the files, such as \"*.txt\" or \"legacy/**\"")
	}
	for _, seg := range strings.Split(r.Glob, "/") {
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("glob %q is malformed: %v", r.Glob, err)
		}
	}
	if r.Root != "" && !filepath.IsAbs(r.Root) {
		return fmt.Errorf("root %q must be an absolute directory", r.Root)
	}
	return nil
}

// checkEncodings checks every rule, naming the first bad one.
func checkEncodings(rules []EncodingRule) error {
	for i, r := range rules {
		if err := r.Check(); err != nil {
			return fmt.Errorf("encodings[%d]: %w", i, err)
		}
	}
	return nil
}
