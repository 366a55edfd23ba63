//go:build unix

package linewindow

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// BenchmarkTailOpensslRatio alternates the two runs above, one of each per
// iteration, and reports their ratio: on a shared machine the load changes
// between two separate benchmarks, and alternating cancels most of it. It
// also reports the ratio of CPU time (user+system, from getrusage), which
// load does not inflate: the pass uses two goroutines, openssl one thread.
func BenchmarkTailOpensslRatio(b *testing.B) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		b.Skip("openssl not installed")
	}
	path, lines, _ := makeBigFile(b)
	opt := defaults()
	opt.Offset, opt.Limit = lines-49, 50
	var ours, theirs, oursCPU, theirsCPU time.Duration
	for b.Loop() {
		start, startCPU := time.Now(), cpuTime(syscall.RUSAGE_SELF)
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		_, err = Read(f, opt)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		mid, midCPU, childCPU := time.Now(), cpuTime(syscall.RUSAGE_SELF), cpuTime(syscall.RUSAGE_CHILDREN)
		if out, err := exec.Command(bin, "dgst", "-sha256", path).CombinedOutput(); err != nil {
			b.Fatalf("openssl: %v: %s", err, out)
		}
		ours, theirs = ours+mid.Sub(start), theirs+time.Since(mid)
		oursCPU, theirsCPU = oursCPU+midCPU-startCPU, theirsCPU+cpuTime(syscall.RUSAGE_CHILDREN)-childCPU
	}
	b.ReportMetric(float64(ours)/float64(theirs), "x-openssl")
	b.ReportMetric(float64(oursCPU)/float64(theirsCPU), "cpu-x-openssl")
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "linewindow-ns/op")
	b.ReportMetric(float64(theirs.Nanoseconds())/float64(b.N), "openssl-ns/op")
}

func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
