package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// source is what a release is built from.
type source struct {
	release string    // VERSION: MAJOR.MINOR.PATCH
	version string    // what the artifacts are named and stamped with: release, or release-snapshot.g<commit>
	commit  string    // the full commit id
	time    time.Time // the commit's time: every file time in the archives
}

// semver is a release version: MAJOR.MINOR.PATCH, no leading zeros.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$`)

// readVersion reads the VERSION file at root.
func readVersion(root string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		return "", fmt.Errorf("the release version: %w", err)
	}
	v := strings.TrimSpace(string(raw))
	if !semver.MatchString(v) {
		return "", fmt.Errorf("VERSION holds %q; it must be MAJOR.MINOR.PATCH, such as 0.1.0", v)
	}
	return v, nil
}

// readSource reads the version and the commit of the checkout at root. A
// release (not a snapshot) must be built from a commit with nothing
// uncommitted: the artifacts say which commit they are.
func readSource(ctx context.Context, root string, snapshot bool) (source, error) {
	var s source
	var err error
	if s.release, err = readVersion(root); err != nil {
		return s, err
	}
	out, err := git(ctx, root, "log", "-1", "--format=%H %ct")
	if err != nil {
		return s, fmt.Errorf("the commit to release (the release is built from a git checkout): %w", err)
	}
	id, unix, _ := strings.Cut(strings.TrimSpace(out), " ")
	secs, err := strconv.ParseInt(unix, 10, 64)
	if err != nil {
		return s, fmt.Errorf("the commit time %q: %w", unix, err)
	}
	s.commit, s.time = id, time.Unix(secs, 0).UTC()
	s.version = s.release
	if snapshot {
		// g keeps the identifier alphanumeric: a commit of digits alone
		// with a leading zero is not a valid semver identifier.
		s.version += "-snapshot.g" + s.commit[:12]
		return s, nil
	}
	status, err := git(ctx, root, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return s, err
	}
	if status != "" {
		return s, errors.New("the checkout has uncommitted changes; commit them, or build with -snapshot")
	}
	return s, nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
