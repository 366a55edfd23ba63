package main

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// The SBOM is CycloneDX 1.5 JSON, one per target beside its archive: what
// the target's binaries contain, which differs by platform (go-winio only
// on Windows, say). Its components are
//
//   - every Go module linked into hostd or hostctl, read from the binaries'
//     own build information (so it is what was linked, not what go.mod
//     lists), with the module's go.sum hash;
//   - every Go package outside hostd that compiles C or C++ in: the
//     tree-sitter runtime and grammars. Where the Go module that carries a
//     grammar records the upstream repository and revision it was
//     generated from (smacker/go-tree-sitter's _automation/grammars.json),
//     the component names them.
//
// Nothing in it depends on the time it is made: no timestamp but the
// commit's, no random serial number.

type cdxBOM struct {
	BOMFormat    string         `json:"bomFormat"`
	SpecVersion  string         `json:"specVersion"`
	Version      int            `json:"version"`
	Metadata     cdxMetadata    `json:"metadata"`
	Components   []cdxComponent `json:"components"`
	Dependencies []cdxDep       `json:"dependencies,omitempty"`
}

type cdxMetadata struct {
	Timestamp string       `json:"timestamp"`
	Component cdxComponent `json:"component"`
	Tools     struct {
		Components []cdxComponent `json:"components"`
	} `json:"tools"`
}

type cdxComponent struct {
	BOMRef      string        `json:"bom-ref,omitempty"`
	Type        string        `json:"type"`
	Name        string        `json:"name"`
	Version     string        `json:"version,omitempty"`
	Description string        `json:"description,omitempty"`
	PURL        string        `json:"purl,omitempty"`
	ExtRefs     []cdxExtRef   `json:"externalReferences,omitempty"`
	Properties  []cdxProperty `json:"properties,omitempty"`
}

type cdxExtRef struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type cdxDep struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

// cPackage is a Go package that compiles C or C++ into the binaries.
type cPackage struct {
	ImportPath string
	Dir        string
	CgoFiles   []string
	CFiles     []string
	CXXFiles   []string
	Module     *struct {
		Path    string
		Version string
		Dir     string
	}
}

// grammarSource is one row of smacker/go-tree-sitter's grammars.json.
type grammarSource struct {
	Language  string `json:"language"`
	URL       string `json:"url"`
	Reference string `json:"reference"`
	Revision  string `json:"revision"`
}

// sbom writes the target's SBOM beside its archive.
func (b *builder) sbom(ctx context.Context, bd *build) error {
	bom := cdxBOM{BOMFormat: "CycloneDX", SpecVersion: "1.5", Version: 1}
	bom.Metadata.Timestamp = b.src.time.Format("2006-01-02T15:04:05Z")
	main := cdxComponent{BOMRef: "hostd", Type: "application", Name: "hostd", Version: b.src.version,
		PURL:       "pkg:golang/github.com/hostd-dev/hostd@" + b.src.version,
		Properties: []cdxProperty{{"hostd:commit", b.src.commit}, {"hostd:target", bd.target.String()}}}
	bom.Metadata.Component = main
	bom.Metadata.Tools.Components = []cdxComponent{{Type: "application", Name: "hostd cmd/release", Version: b.src.version}}

	mods := map[string]cdxComponent{}
	for _, bin := range bd.bins {
		bi, err := buildinfo.ReadFile(bin)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(bin), err)
		}
		for _, m := range bi.Deps {
			if m.Replace != nil {
				m = m.Replace
			}
			c := cdxComponent{BOMRef: "go:" + m.Path + "@" + m.Version, Type: "library", Name: m.Path, Version: m.Version,
				PURL: "pkg:golang/" + m.Path + "@" + m.Version}
			if m.Sum != "" {
				c.Properties = []cdxProperty{{"go:sum", m.Sum}}
			}
			mods[c.BOMRef] = c
		}
	}
	grammars, err := b.cComponents(ctx, bd.target)
	if err != nil {
		return err
	}
	var refs []string
	for _, c := range mods {
		bom.Components = append(bom.Components, c)
	}
	bom.Components = append(bom.Components, grammars...)
	sort.Slice(bom.Components, func(i, j int) bool { return bom.Components[i].BOMRef < bom.Components[j].BOMRef })
	for _, c := range bom.Components {
		refs = append(refs, c.BOMRef)
	}
	bom.Dependencies = []cdxDep{{Ref: "hostd", DependsOn: refs}}
	raw, err := json.MarshalIndent(bom, "", "  ")
	if err != nil {
		return err
	}
	name := artifactName(b.src.version, bd.target) + ".sbom.cdx.json"
	if err := os.WriteFile(filepath.Join(b.out, name), append(raw, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(b.log, "%s: %d Go modules, %d C components\n", name, len(mods), len(grammars))
	return nil
}

const hostdModule = "github.com/hostd-dev/hostd"

// cComponents lists the C and C++ the target's hostd compiles in, one
// component per Go package that holds it.
func (b *builder) cComponents(ctx context.Context, t target) ([]cdxComponent, error) {
	env, err := b.buildEnv(t)
	if err != nil {
		return nil, err
	}
	args := []string{"list", "-deps", "-json=ImportPath,Dir,CgoFiles,CFiles,CXXFiles,Module"}
	if t.goos == "linux" {
		args = append(args, "-tags", "netgo,osusergo")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./cmd/hostd", "./cmd/hostctl")...)
	cmd.Dir, cmd.Env = b.root, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	sources := map[string]map[string]grammarSource{} // module dir → language → upstream
	var cs []cdxComponent
	seen := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p cPackage
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		// A grammar's Go binding may hold no .c file of its own and
		// #include its parser.c from the cgo preamble instead.
		if len(p.CgoFiles)+len(p.CFiles)+len(p.CXXFiles) == 0 || p.Module == nil || p.Module.Path == hostdModule || seen[p.ImportPath] {
			continue
		}
		seen[p.ImportPath] = true
		c := cdxComponent{BOMRef: "c:" + p.ImportPath, Type: "library", Name: p.ImportPath, Version: p.Module.Version,
			Description: "C/C++ compiled in by the Go package " + p.ImportPath,
			PURL:        "pkg:golang/" + p.Module.Path + "@" + p.Module.Version,
			Properties:  []cdxProperty{{"go:module", p.Module.Path + "@" + p.Module.Version}}}
		if p.Module.Path == "github.com/smacker/go-tree-sitter" {
			if _, ok := sources[p.Module.Dir]; !ok {
				sources[p.Module.Dir] = readGrammarSources(p.Module.Dir)
			}
			lang := path.Base(p.ImportPath)
			if g, ok := sources[p.Module.Dir][lang]; ok {
				c.Name = strings.TrimPrefix(g.URL, "https://github.com/")
				c.Version = g.Reference
				c.PURL = "pkg:github/" + c.Name + "@" + g.Revision
				c.ExtRefs = []cdxExtRef{{"vcs", g.URL}}
				c.Properties = append(c.Properties, cdxProperty{"tree-sitter:revision", g.Revision})
			}
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// readGrammarSources reads the grammars.json of smacker/go-tree-sitter,
// keyed by the Go package's directory name (typescript/typescript and
// typescript/tsx both come from the typescript grammar, and
// markdown/tree-sitter-markdown from markdown). A module without
// one gives none.
func readGrammarSources(dir string) map[string]grammarSource {
	raw, err := os.ReadFile(filepath.Join(dir, "_automation", "grammars.json"))
	if err != nil {
		return nil
	}
	var rows []grammarSource
	if json.Unmarshal(raw, &rows) != nil {
		return nil
	}
	m := map[string]grammarSource{}
	for _, r := range rows {
		m[r.Language] = r
	}
	if g, ok := m["typescript"]; ok {
		m["tsx"] = g
	}
	if g, ok := m["markdown"]; ok {
		m["tree-sitter-markdown"] = g
	}
	return m
}

// writeSums writes SHA256SUMS over every file in dir and its npm folder,
// as sha256sum -c reads it, and returns what it wrote.
func writeSums(dir string) (string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel != sumsFile {
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for _, n := range names {
		sum, err := sha256File(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(w, "%s  %s\n", sum, n)
	}
	w.Flush()
	return buf.String(), os.WriteFile(filepath.Join(dir, sumsFile), buf.Bytes(), 0o644)
}

const sumsFile = "SHA256SUMS"
