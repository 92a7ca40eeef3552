package fake

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/importer"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/areas/messages/scenarios"

	"github.com/platformkit/platformkit/fake/internal/core"
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
	internal, err := internalPackages(fset, files)
	if err != nil {
		return nil, err
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
						line += " = " + internal.value(vspec.Values[i], src)
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
		if target := internal.alias(ts); target != nil {
			lines = append(lines, aliasAPI(t.Name, target)...)
			continue
		}
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

// internalAPI resolves what the package declares in the terms of its internal packages: an alias
// of an internal type is listed as the type itself, with its exported fields and methods, and a
// constant set to an internal one as its value, since a user sees them so (go doc does too).
type internalAPI struct {
	fset    *token.FileSet
	imports map[string]*types.Package // by the name a file uses
}

// internalPackages type-checks the internal packages the files import.
func internalPackages(fset *token.FileSet, files []*ast.File) (internalAPI, error) {
	api := internalAPI{fset: fset, imports: map[string]*types.Package{}}
	// The compiler's export data, which go list builds (or finds in the build cache): type
	// checking the packages from source would take seconds.
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		out, err := exec.Command("go", "list", "-export", "-f", "{{.Export}}", path).Output()
		if err != nil {
			return nil, fmt.Errorf("go list -export %s: %w", path, err)
		}
		return os.Open(strings.TrimSpace(string(out)))
	})
	for _, f := range files {
		for _, spec := range f.Imports {
			path := strings.Trim(spec.Path.Value, `"`)
			if !strings.Contains(path, "/internal/") {
				continue
			}
			pkg, err := imp.Import(path)
			if err != nil {
				return api, err
			}
			api.imports[pkg.Name()] = pkg
		}
	}
	return api, nil
}

// lookup is the object an expression pkg.Name names in an internal package, or nil.
func (api internalAPI) lookup(e ast.Expr) types.Object {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok || api.imports[x.Name] == nil {
		return nil
	}
	return api.imports[x.Name].Scope().Lookup(sel.Sel.Name)
}

// value is a constant's value as written, or an internal constant's value.
// An internal constant is written as its declaration writes it ("8 << 20"), read from the
// source file the export data names, or as its value when that is not at hand.
func (api internalAPI) value(e ast.Expr, src func(ast.Node) string) string {
	c, ok := api.lookup(e).(*types.Const)
	if !ok {
		return src(e)
	}
	if pos := api.fset.Position(c.Pos()); pos.Filename != "" {
		fset := token.NewFileSet()
		if f, err := parser.ParseFile(fset, pos.Filename, nil, 0); err == nil {
			var expr ast.Expr
			ast.Inspect(f, func(n ast.Node) bool {
				if vs, ok := n.(*ast.ValueSpec); ok {
					for i, name := range vs.Names {
						if name.Name == c.Name() && i < len(vs.Values) {
							expr = vs.Values[i]
						}
					}
				}
				return expr == nil
			})
			if _, internal := api.lookup(expr).(*types.Const); expr != nil && !internal {
				var b bytes.Buffer
				_ = printer.Fprint(&b, fset, expr)
				return b.String()
			}
		}
	}
	return c.Val().ExactString()
}

// alias is the internal named type an alias declaration names, or nil.
func (api internalAPI) alias(ts *ast.TypeSpec) *types.Named {
	if !ts.Assign.IsValid() {
		return nil
	}
	if tn, ok := api.lookup(ts.Type).(*types.TypeName); ok {
		n, _ := tn.Type().(*types.Named)
		return n
	}
	return nil
}

// aliasAPI lists an alias of an internal type as the type it names, under the alias's name:
// its exported struct fields, and its exported methods. Other internal types in them are
// written by their name alone, as the package's aliases of them name them.
func aliasAPI(name string, t *types.Named) []string {
	qual := func(p *types.Package) string {
		if strings.Contains(p.Path(), "/internal/") {
			return "" // the face names the internal types users see by aliases of the same names
		}
		return p.Name()
	}
	var lines []string
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return []string{"type " + name + " " + types.TypeString(t.Underlying(), qual)}
	}
	head := "type " + name + " struct"
	lines = append(lines, head)
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Exported() {
			continue
		}
		tag := ""
		if st.Tag(i) != "" {
			tag = " `" + st.Tag(i) + "`"
		}
		if f.Embedded() {
			lines = append(lines, head+", "+typeString(f.Type(), qual)+tag)
			continue
		}
		lines = append(lines, head+", "+f.Name()+" "+typeString(f.Type(), qual)+tag)
	}
	for i := range t.NumMethods() {
		m := t.Method(i)
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		r := name
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
			r = "*" + name
		}
		var b bytes.Buffer
		types.WriteSignature(&b, sig, qual)
		lines = append(lines, fmt.Sprintf("method (%s) %s%s", r, m.Name(), b.String()))
	}
	return lines
}

// typeString writes t as the listing of a declaration does: an inline struct as gofmt prints it
// on one line (struct { A int `json:"a"` B string }), anything else as go/types does.
func typeString(t types.Type, qual types.Qualifier) string {
	st, ok := t.(*types.Struct)
	if !ok {
		return types.TypeString(t, qual)
	}
	var b strings.Builder
	b.WriteString("struct {")
	for i := range st.NumFields() {
		f := st.Field(i)
		b.WriteString(" ")
		if !f.Embedded() {
			b.WriteString(f.Name() + " ")
		}
		b.WriteString(typeString(f.Type(), qual))
		if tag := st.Tag(i); tag != "" {
			b.WriteString(" `" + tag + "`")
		}
	}
	return b.String() + " }"
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
	e := core.Epoch()
	if got := e.Format(time.RFC3339Nano); got != "2026-01-01T00:00:00Z" {
		t.Errorf("Epoch() = %s, want 2026-01-01T00:00:00Z", got)
	}
	e = e.Add(time.Hour)
	if got := New().Now().Format(time.RFC3339Nano); got != "2026-01-01T00:00:00Z" || !core.Epoch().Before(e) {
		t.Errorf("a new server starts at %s, Epoch() = %s; want both 2026-01-01T00:00:00Z", got, core.Epoch())
	}
}

// TestScenariosShareNothingWithTheLibrary: what Scenarios returns is the caller's to change; the
// library every server built from the same fixtures reads stays as the fixtures say.
func TestScenariosShareNothingWithTheLibrary(t *testing.T) {
	first := func(list []scenarios.Scenario) scenarios.Scenario {
		for _, sc := range list {
			if sc.Match != nil {
				return sc
			}
		}
		t.Fatal("no scenario with a matching rule")
		return scenarios.Scenario{}
	}
	a := New()
	got := first(a.Scenarios())
	*got.Match.Contains = "changed by a caller"
	got.Match.Equals = new("also changed")
	for name, s := range map[string]*Server{"the same server": a, "another server": New()} {
		sc := first(s.Scenarios())
		if sc.Match.Equals != nil || sc.Match.Contains == nil || *sc.Match.Contains != "search the web" {
			t.Errorf("%s: the first rule is now %+v (equals set: %v); want contains \"search the web\" only", name, scenarios.PtrValue(sc.Match.Contains), sc.Match.Equals != nil)
		}
	}
}
