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

// startMachine records where the figures come from, at the start of a
// run: they mean nothing without the CPU, the core count, the load and
// the versions of every reference. The function it returns completes the
// block at the end of the run, with the run's time and the load then.
func startMachine(ctx context.Context, o options) func() Table {
	start := time.Now()
	load := loadAverage()
	model, cores := cpuInfo()
	commit := firstLine(commandOutput(ctx, o.repo, "git", "rev-parse", "--short", "HEAD"))
	if commit != "" && commandOutput(ctx, o.repo, "git", "status", "--porcelain", "--untracked-files=no") != "" {
		commit += " with uncommitted changes"
	}
	bun := filepath.Join(o.benchDir, "node_modules", ".bin", "bun")
	rows := [][]string{
		{"CPU, cores (as Go sees them), memory", model + ", " + strconv.Itoa(runtime.NumCPU()) + " (" + strconv.Itoa(cores) + " in /proc/cpuinfo), " + memTotal()},
		{"OS, Go", runtime.GOOS + "/" + runtime.GOARCH + " " + firstLine(commandOutput(ctx, "", "uname", "-r")) + ", " + runtime.Version()},
		{"hostd commit", orAbsent(commit)},
		{"base build (the parse section; -compare)", o.base.describe(ctx)},
	}
	return func() Table {
		t := Table{Header: []string{"what", "value"}}
		t.Add("date", start.UTC().Format("2006-01-02 15:04 UTC"))
		t.Add("run time", fmtElapsed(time.Since(start)))
		t.Add("load average (1, 5, 15 min) at the start; at the end", load+"; "+loadAverage())
		for _, r := range rows {
			t.Add(r...)
		}
		// Read at the end: the reference section installs Bun when it is
		// absent.
		t.Add("Bun (bench/node_modules), ripgrep, openssl", orAbsent(firstLine(commandOutput(ctx, "", bun, "--version")))+", "+
			orAbsent(firstLine(commandOutput(ctx, "", "rg", "--version")))+", "+
			orAbsent(firstLine(commandOutput(ctx, "", "openssl", "version"))))
		return t
	}
}

// loadAverage is /proc/loadavg's three averages, or "unknown".
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
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
