package main

import (
	"strings"
	"testing"
)

// stream is a go test -json run of two packages: one passes a test and
// skips one, the other fails a subtest.
const stream = `{"Action":"start","Package":"a"}
{"Action":"run","Package":"a","Test":"TestOK"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"a","Test":"TestOK"}
{"Action":"run","Package":"a","Test":"TestCorpus"}
{"Action":"output","Package":"a","Test":"TestCorpus","Output":"=== RUN   TestCorpus\n"}
{"Action":"output","Package":"a","Test":"TestCorpus","Output":"    x_test.go:9: the shared corpus is missing\n"}
{"Action":"output","Package":"a","Test":"TestCorpus","Output":"--- SKIP: TestCorpus (0.00s)\n"}
{"Action":"skip","Package":"a","Test":"TestCorpus"}
{"Action":"output","Package":"a","Output":"PASS\n"}
{"Action":"output","Package":"a","Output":"ok  \ta\t0.01s\n"}
{"Action":"pass","Package":"a"}
{"Action":"run","Package":"b","Test":"TestTable"}
{"Action":"run","Package":"b","Test":"TestTable/row"}
{"Action":"output","Package":"b","Test":"TestTable/row","Output":"    b_test.go:3: got 1, want 2\n"}
{"Action":"output","Package":"b","Test":"TestTable/row","Output":"--- FAIL: TestTable/row (0.00s)\n"}
{"Action":"fail","Package":"b","Test":"TestTable/row"}
{"Action":"output","Package":"b","Test":"TestTable","Output":"--- FAIL: TestTable (0.00s)\n"}
{"Action":"fail","Package":"b","Test":"TestTable"}
{"Action":"output","Package":"b","Output":"FAIL\tb\t0.02s\n"}
{"Action":"fail","Package":"b"}
`

func TestSummarize(t *testing.T) {
	var out strings.Builder
	ok, err := summarize(strings.NewReader(stream), &out)
	if err != nil || ok {
		t.Fatalf("ok %v, err %v: a failed test must fail the run", ok, err)
	}
	got := out.String()
	for _, want := range []string{
		"ok  \ta\t0.01s\n",
		"b_test.go:3: got 1, want 2\n",
		"FAIL\tb\t0.02s\n",
		"  a TestCorpus: x_test.go:9: the shared corpus is missing\n",
		"tests: 2 ran (1 passed, 1 failed), 1 skipped; subtests: 1 ran, 0 skipped\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "--- PASS") || strings.Contains(got, "=== RUN") {
		t.Errorf("a passing test's output was shown:\n%s", got)
	}
}

func TestSummarizePassingRun(t *testing.T) {
	var out strings.Builder
	ok, err := summarize(strings.NewReader(strings.Join(strings.Split(stream, "\n")[:13], "\n")), &out)
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v:\n%s", ok, err, out.String())
	}
}

func TestSummarizeBuildFailure(t *testing.T) {
	in := `{"ImportPath":"c [c.test]","Action":"build-output","Output":"c/c.go:1:1: syntax error\n"}
{"ImportPath":"c [c.test]","Action":"build-fail"}
{"Action":"output","Package":"c","Output":"FAIL\tc [build failed]\n"}
{"Action":"fail","Package":"c"}
`
	var out strings.Builder
	ok, err := summarize(strings.NewReader(in), &out)
	if err != nil || ok || !strings.Contains(out.String(), "syntax error") {
		t.Fatalf("ok %v, err %v:\n%s", ok, err, out.String())
	}
}

func TestSummarizeRefusesOtherInput(t *testing.T) {
	if _, err := summarize(strings.NewReader("{not json\n"), &strings.Builder{}); err == nil {
		t.Fatal("accepted a line that is not test JSON")
	}
}
