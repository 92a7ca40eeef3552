package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: curl is not installed\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: want 2, got 3\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"--- FAIL: TestB (0.00s)\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: noise of a passing test\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.100s\n"}`,
		`{"Action":"fail","Package":"p","Elapsed":0.1}`,
		`{"Action":"skip","Package":"q/nothing"}`,
		`{"Action":"pass","Package":"r","Elapsed":1.5}`,
		`# r/broken [build failed]`,
	}, "\n")
	var out strings.Builder
	failed, err := report(strings.NewReader(in), &out)
	want := "    b_test.go:3: want 2, got 3\n--- FAIL: TestB (0.00s)\n" +
		"FAIL\tp\t0.100s\n" +
		"ok  \tr\t1.500s\n" +
		"# r/broken [build failed]\n" +
		"\nskipped 1 test:\n  p TestA: a_test.go:9: curl is not installed\n"
	if err != nil || !failed || out.String() != want {
		t.Errorf("failed %v, err %v, output:\n%s\nwant:\n%s", failed, err, out.String(), want)
	}
}
