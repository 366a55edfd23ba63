package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// hostd reaches TypeScript the way esbuild and Biome ship native binaries:
// a package per platform, @hostd/hostd-<os>-<cpu>, whose os and cpu
// fields let npm install only the one that matches, holding only that
// platform's hostd and hostctl under bin/; and @hostd/client, the package a
// runtime depends on, naming all of them as optionalDependencies at its
// own version and resolving the installed one (clients/typescript
// src/binary.ts). The linux packages carry no libc field: their binaries
// are static, so glibc and musl systems take the same one.

// platformPackage is the npm package of a target's binaries.
func platformPackage(t target) string {
	return "@hostd/hostd-" + t.npmOS() + "-" + t.npmCPU()
}

// npmPackages packs a platform package for each build, and @hostd/client.
func (b *builder) npmPackages(ctx context.Context, built []*build) error {
	dest := filepath.Join(b.out, "npm")
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(b.root, "LICENSE"))
	if err != nil {
		return err
	}
	for _, bd := range built {
		if err := b.platformPackage(ctx, bd, license, dest); err != nil {
			return fmt.Errorf("%s: %w", platformPackage(bd.target), err)
		}
	}
	return b.clientPackage(ctx, dest)
}

func (b *builder) platformPackage(ctx context.Context, bd *build, license []byte, dest string) error {
	name := platformPackage(bd.target)
	dir := filepath.Join(b.work, "npm", strings.TrimPrefix(name, "@hostd/"))
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	manifest := map[string]any{
		"name":        name,
		"version":     b.src.version,
		"description": fmt.Sprintf("hostd and hostctl for %s %s: the binaries @hostd/client spawns on that platform. Install @hostd/client, not this package.", bd.npmOS(), bd.npmCPU()),
		"license":     "Apache-2.0",
		"repository":  map[string]string{"type": "git", "url": "git+https://github.com/hostd-dev/hostd.git"},
		"os":          []string{bd.npmOS()},
		"cpu":         []string{bd.npmCPU()},
		"files":       []string{"bin/"},
		// Yarn's Plug'n'Play keeps an executable unpacked only when told.
		"preferUnplugged": true,
	}
	raw, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return err
	}
	readme := fmt.Sprintf("# %s\n\nThe hostd %s binaries for %s %s (`bin/%s`, `bin/%s`), built from commit %s.\n\n"+
		"Depend on `@hostd/client` instead: it names this package as an optional dependency, so npm installs\n"+
		"the one package that matches the machine, and `HostdClient.spawn()` starts the binary inside it.\n",
		name, b.src.version, bd.npmOS(), bd.npmCPU(), bd.exe("hostd"), bd.exe("hostctl"), b.src.commit)
	files := map[string][]byte{"package.json": append(raw, '\n'), "LICENSE": license, "README.md": []byte(readme)}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			return err
		}
	}
	for _, bin := range bd.bins {
		data, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "bin", filepath.Base(bin)), data, 0o755); err != nil {
			return err
		}
	}
	return b.npmPack(ctx, dir, dest)
}

// clientPackage packs @hostd/client at the release's version with every
// platform package as an optional dependency. It is packed from a copy
// laid out as in the repository (its prepack script builds it and brings
// the license from two levels up), with the package's node_modules.
func (b *builder) clientPackage(ctx context.Context, dest string) error {
	src := filepath.Join(b.root, "clients", "typescript")
	if _, err := os.Stat(filepath.Join(src, "node_modules")); err != nil {
		fmt.Fprintln(b.log, "npm ci in clients/typescript")
		if err := runIn(ctx, src, b.log, "npm", "ci", "--no-audit", "--no-fund"); err != nil {
			return err
		}
	}
	stage := filepath.Join(b.work, "npm", "repo")
	copyDir := filepath.Join(stage, "clients", "typescript")
	if err := os.MkdirAll(copyDir, 0o755); err != nil {
		return err
	}
	for _, f := range []string{"package-lock.json", "tsconfig.json", "tsconfig.build.json", "README.md", "src", "scripts"} {
		if err := copyTree(filepath.Join(src, f), filepath.Join(copyDir, f)); err != nil {
			return err
		}
	}
	if err := os.Symlink(filepath.Join(src, "node_modules"), filepath.Join(copyDir, "node_modules")); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(b.root, "LICENSE"), filepath.Join(stage, "LICENSE")); err != nil {
		return err
	}
	manifest, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return err
	}
	optional := map[string]string{}
	for _, t := range releaseTargets {
		optional[platformPackage(t)] = b.src.version
	}
	manifest, err = setFields(manifest, map[string]any{"version": b.src.version, "optionalDependencies": optional})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(copyDir, "package.json"), manifest, 0o644); err != nil {
		return err
	}
	return b.npmPack(ctx, copyDir, dest)
}

// npmPack packs dir into dest. npm gives every file in the tarball the
// same fixed time, so the tarball is a function of the files.
func (b *builder) npmPack(ctx context.Context, dir, dest string) error {
	var out bytes.Buffer
	if err := runIn(ctx, dir, &out, "npm", "pack", "--json", "--pack-destination", dest); err != nil {
		return fmt.Errorf("%w\n%s", err, out.String())
	}
	// Lifecycle scripts print before the JSON report.
	text := out.String()
	var report []struct {
		Filename string `json:"filename"`
		Size     int    `json:"size"`
	}
	if i := strings.Index(text, "\n["); i >= 0 {
		text = text[i+1:]
	}
	if err := json.Unmarshal([]byte(text[strings.Index(text, "["):]), &report); err != nil || len(report) != 1 {
		return fmt.Errorf("npm pack's report: %v\n%s", err, out.String())
	}
	fmt.Fprintf(b.log, "npm/%s\n", report[0].Filename)
	return nil
}

func runIn(ctx context.Context, dir string, out io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Stdout = dir, out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

// setFields sets top-level fields of a JSON object, keeping the order of
// the fields it had and adding the new ones at the end, indented as npm
// writes package.json.
func setFields(raw []byte, set map[string]any) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("package.json is not a JSON object")
	}
	type field struct {
		key   string
		value json.RawMessage
	}
	var fields []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		fields = append(fields, field{tok.(string), v})
	}
	done := map[string]bool{}
	for i, f := range fields {
		if v, ok := set[f.key]; ok {
			enc, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			fields[i].value, done[f.key] = enc, true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if !done[k] {
			enc, err := json.Marshal(set[k])
			if err != nil {
				return nil, err
			}
			fields = append(fields, field{k, enc})
		}
	}
	var buf bytes.Buffer
	buf.WriteString("{")
	for i, f := range fields {
		if i > 0 {
			buf.WriteString(",")
		}
		key, _ := json.Marshal(f.key)
		fmt.Fprintf(&buf, "%s:%s", key, f.value)
	}
	buf.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// copyTree copies a file, or a directory and everything in it.
func copyTree(from, to string) error {
	info, err := os.Stat(from)
	if err != nil {
		return err
	}
	if info.IsDir() {
		return os.CopyFS(to, os.DirFS(from))
	}
	return copyFile(from, to)
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

func sha256File(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
