package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machineSection states where the figures come from: they mean nothing
// without the CPU, the core count and the versions of every reference.
func machineSection(ctx context.Context, o options) *Section {
	s := &Section{Key: "machine", Title: "Machine", Quick: o.quick}
	t := Table{Header: []string{"what", "value"}}
	model, cores := cpuInfo()
	t.Add("date", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	t.Add("CPU", model)
	t.Add("cores (logical, as Go sees them)", strconv.Itoa(runtime.NumCPU())+" ("+strconv.Itoa(cores)+" in /proc/cpuinfo)")
	t.Add("memory", memTotal())
	t.Add("OS", runtime.GOOS+"/"+runtime.GOARCH+" "+firstLine(commandOutput(ctx, "", "uname", "-r")))
	t.Add("Go", runtime.Version())
	t.Add("hostd commit", firstLine(commandOutput(ctx, o.repo, "git", "rev-parse", "--short", "HEAD")))
	bun := filepath.Join(o.benchDir, "node_modules", ".bin", "bun")
	t.Add("Bun (bench/node_modules)", orAbsent(firstLine(commandOutput(ctx, "", bun, "--version"))))
	t.Add("ripgrep", orAbsent(firstLine(commandOutput(ctx, "", "rg", "--version"))))
	t.Add("openssl", orAbsent(firstLine(commandOutput(ctx, "", "openssl", "version"))))
	s.Tables = append(s.Tables, t)
	return s
}

// cpuInfo reads the CPU model and the number of processors listed in
// /proc/cpuinfo (Linux); elsewhere it reports what Go knows.
func cpuInfo() (model string, cores int) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH, runtime.NumCPU()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		case "processor":
			cores++
		}
	}
	if model == "" {
		model = runtime.GOARCH
	}
	return model, cores
}

func memTotal() string {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "MemTotal:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					return fmtBytes(kb << 10)
				}
			}
		}
	}
	return "unknown"
}

// commandOutput runs a short command and returns its output, or "" when
// it cannot run.
func commandOutput(ctx context.Context, dir, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}
