package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"time"
)

// entry is one file of an archive.
type entry struct {
	name string // the path inside the archive's top directory, with /
	mode os.FileMode
	data []byte
}

// archiveEntries are the files of a target's archive: the binaries, the
// documents a user reads first, the completions and the service files of
// the target's service manager (systemd on Linux, launchd on macOS;
// Windows has none: docs/service.md).
func (b *builder) archiveEntries(bd *build, completions map[string][]byte) ([]entry, error) {
	var es []entry
	for _, bin := range bd.bins {
		data, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		es = append(es, entry{filepath.Base(bin), 0o755, data})
	}
	docs := []string{"LICENSE", "README.md", "CHANGELOG.md"}
	switch bd.goos {
	case "linux":
		docs = append(docs, "contrib/systemd/hostd.service")
	case "darwin":
		docs = append(docs, "contrib/launchd/dev.hostd.hostd.plist")
	}
	for _, name := range docs {
		data, err := os.ReadFile(filepath.Join(b.root, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		es = append(es, entry{name, 0o644, data})
	}
	for name, data := range completions {
		es = append(es, entry{name, 0o644, data})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].name < es[j].name })
	return es, nil
}

// archive writes a target's archive: a .tar.gz, or a .zip for Windows.
func (b *builder) archive(bd *build, completions map[string][]byte) error {
	es, err := b.archiveEntries(bd, completions)
	if err != nil {
		return err
	}
	stem := artifactName(b.src.version, bd.target)
	name := stem + ".tar.gz"
	write := writeTarGz
	if bd.goos == "windows" {
		name, write = stem+".zip", writeZip
	}
	f, err := os.Create(filepath.Join(b.out, name))
	if err != nil {
		return err
	}
	if err := write(f, stem, es, b.src.time); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(b.log, "%s\n", name)
	return nil
}

// writeTarGz writes es under the directory top, every header the same
// whatever the machine: the given time, owner 0, no user or group names,
// and a gzip header with neither a name nor a time.
func writeTarGz(w io.Writer, top string, es []entry, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	dirs := map[string]bool{}
	for _, e := range es {
		for _, d := range parents(path.Join(top, e.name)) {
			if dirs[d] {
				continue
			}
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
				return err
			}
		}
		h := &tar.Header{Typeflag: tar.TypeReg, Name: path.Join(top, e.name), Mode: int64(e.mode), Size: int64(len(e.data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes es under the directory top with the given time.
func writeZip(w io.Writer, top string, es []entry, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, e := range es {
		h := &zip.FileHeader{Name: path.Join(top, e.name), Method: zip.Deflate, Modified: mtime}
		h.SetMode(e.mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(e.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// parents are the directories above name, outermost first.
func parents(name string) []string {
	var ds []string
	for d := path.Dir(name); d != "." && d != "/"; d = path.Dir(d) {
		ds = append([]string{d}, ds...)
	}
	return ds
}
