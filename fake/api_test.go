package fake

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// apiFile holds the exported API of package fake, one declaration a line: what a user's code can
// name. A change of it is a reviewed diff of this file (go test ./fake -run TestExportedAPI
// -update rewrites it).
const apiFile = "testdata/api.txt"

// TestExportedAPI keeps the exported API of the package equal to testdata/api.txt: every exported
// constant, variable, function, type, method, struct field and interface method, with its type or
// signature. It fails with the lines added (+) and removed (-).
func TestExportedAPI(t *testing.T) {
	got, err := exportedAPI(".")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(apiFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(apiFile)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if diff := lineDiff(want, got); diff != "" {
		t.Errorf("the exported API of package fake differs from %s (- there, + in the code):\n%s\n"+
			"If the change is meant, rewrite the file with\n\tgo test ./fake -run TestExportedAPI -update\n"+
			"and name every removed or renamed identifier in CHANGELOG.md.", apiFile, diff)
	}
}

// TestExportedAPIListsWhatChanges: the listing sees an exported name of every kind, a change of a
// signature and a struct tag, and leaves out what a user cannot name.
func TestExportedAPIListsWhatChanges(t *testing.T) {
	dir := t.TempDir()
	src := `package fake

import "time"

const A, b = 1, 2
const (
	K1 Kind = "one"
	K2 Kind = "two"
)

type Kind string

var V = time.Second

type T struct {
	Name string ` + "`json:\"name\"`" + `
	hidden int
	*Embedded
	F, G func(x int) (bool, error)
}

type Embedded struct{ X int }

type I interface {
	M(ctx string) error
	m()
}

func New(opts ...Option) *T { return nil }
func (t *T) Do(n int, s ...string) (int, error) { return 0, nil }
func (t T) Value() string { return "" }
func (t *T) hidden2() {}
func helper() {}

type Option func(*T)

type hiddenT struct{ Exported int }
`
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package fake\n\nfunc Test() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen.go"), []byte("//go:build ignore\n\npackage main\n\nfunc Generated() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := exportedAPI(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"const A = 1",
		"const K1 Kind = \"one\"",
		"const K2 Kind = \"two\"",
		"func New(opts ...Option) *T",
		"method (*T) Do(n int, s ...string) (int, error)",
		"method (T) Value() string",
		"type Embedded struct",
		"type Embedded struct, X int",
		"type I interface",
		"type I interface, M(ctx string) error",
		"type I interface, unexported methods",
		"type Kind string",
		"type Option func(*T)",
		"type T struct",
		"type T struct, *Embedded",
		"type T struct, F func(x int) (bool, error)",
		"type T struct, G func(x int) (bool, error)",
		"type T struct, Name string `json:\"name\"`",
		"var V = time.Second",
	}
	if diff := lineDiff(want, got); diff != "" {
		t.Errorf("listing of the sample package (- wanted, + listed):\n%s", diff)
	}
	if d := lineDiff([]string{"a", "b", "c"}, []string{"a", "c", "d"}); d != "-b\n+d" {
		t.Errorf("lineDiff = %q, want %q", d, "-b\n+d")
	}
}

// exportedAPI lists the exported API of the package in dir (its files that are not tests), one
// sorted line per constant, variable, function, method, type, and struct field or interface
// method ("type T struct, Field type").
func exportedAPI(dir string) ([]string, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok { // build constraints
			if err != nil {
				return nil, err
			}
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	var lines []string
	src := func(n ast.Node) string {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ") // one line
	}
	values := func(kind string, vs []*doc.Value) {
		for _, v := range vs {
			for _, spec := range v.Decl.Specs {
				vspec := spec.(*ast.ValueSpec)
				for i, name := range vspec.Names {
					if !name.IsExported() {
						continue
					}
					line := kind + " " + name.Name
					if vspec.Type != nil {
						line += " " + src(vspec.Type)
					}
					if i < len(vspec.Values) {
						line += " = " + src(vspec.Values[i])
					}
					lines = append(lines, line)
				}
			}
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			sig := strings.TrimPrefix(src(f.Decl.Type), "func")
			if f.Recv != "" {
				lines = append(lines, fmt.Sprintf("method (%s) %s%s", f.Recv, f.Name, sig))
				continue
			}
			lines = append(lines, "func "+f.Name+sig)
		}
	}
	d, err := doc.NewFromFiles(fset, files, "github.com/platformkit/platformkit/fake") // exported only
	if err != nil {
		return nil, err
	}
	values("const", d.Consts)
	values("var", d.Vars)
	funcs(d.Funcs)
	for _, t := range d.Types {
		values("const", t.Consts)
		values("var", t.Vars)
		funcs(t.Funcs)
		funcs(t.Methods)
		ts := t.Decl.Specs[0].(*ast.TypeSpec)
		switch typ := ts.Type.(type) {
		case *ast.StructType:
			head := "type " + t.Name + " struct"
			lines = append(lines, head)
			for _, f := range typ.Fields.List {
				tag := ""
				if f.Tag != nil {
					tag = " " + f.Tag.Value
				}
				if len(f.Names) == 0 {
					lines = append(lines, head+", "+src(f.Type)+tag)
				}
				for _, n := range f.Names {
					lines = append(lines, head+", "+n.Name+" "+src(f.Type)+tag)
				}
			}
		case *ast.InterfaceType:
			head := "type " + t.Name + " interface"
			lines = append(lines, head)
			for _, m := range typ.Methods.List {
				for _, n := range m.Names {
					lines = append(lines, head+", "+n.Name+strings.TrimPrefix(src(m.Type), "func"))
				}
			}
			if typ.Incomplete {
				lines = append(lines, head+", unexported methods")
			}
		default:
			assign := " "
			if ts.Assign.IsValid() {
				assign = " = "
			}
			lines = append(lines, "type "+t.Name+assign+src(ts.Type))
		}
	}
	slices.Sort(lines)
	return lines, nil
}

// lineDiff is the lines only in want ("-") and only in got ("+"), for sorted lines, or "".
func lineDiff(want, got []string) string {
	var out []string
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || (i < len(want) && want[i] < got[j]):
			out = append(out, "-"+want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			out = append(out, "+"+got[j])
			j++
		default:
			i++
			j++
		}
	}
	return strings.Join(out, "\n")
}

// TestEpochIsTheDocumentedStart: Epoch is 2026-01-01T00:00:00Z, where a new server's clock
// starts, and a caller changing the value it got changes neither.
func TestEpochIsTheDocumentedStart(t *testing.T) {
	e := Epoch()
	if got := e.Format(time.RFC3339Nano); got != "2026-01-01T00:00:00Z" {
		t.Errorf("Epoch() = %s, want 2026-01-01T00:00:00Z", got)
	}
	e = e.Add(time.Hour)
	if got := New().Now().Format(time.RFC3339Nano); got != "2026-01-01T00:00:00Z" || !Epoch().Before(e) {
		t.Errorf("a new server starts at %s, Epoch() = %s; want both 2026-01-01T00:00:00Z", got, Epoch())
	}
}

// TestScenariosShareNothingWithTheLibrary: what Scenarios returns is the caller's to change; the
// library every server built from the same fixtures reads stays as the fixtures say.
func TestScenariosShareNothingWithTheLibrary(t *testing.T) {
	first := func(list []Scenario) Scenario {
		for _, sc := range list {
			if sc.Match != nil {
				return sc
			}
		}
		t.Fatal("no scenario with a matching rule")
		return Scenario{}
	}
	a := New()
	got := first(a.Scenarios())
	*got.Match.Contains = "changed by a caller"
	got.Match.Equals = new("also changed")
	for name, s := range map[string]*Server{"the same server": a, "another server": New()} {
		sc := first(s.Scenarios())
		if sc.Match.Equals != nil || sc.Match.Contains == nil || *sc.Match.Contains != "search the web" {
			t.Errorf("%s: the first rule is now %+v (equals set: %v); want contains \"search the web\" only", name, ptrValue(sc.Match.Contains), sc.Match.Equals != nil)
		}
	}
}
