package fake

import (
	"slices"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/internal/golist"
)

// serverImports is the layering of the server (ARCHITECTURE.md): every package of the fake
// below fake/internal/ that serves requests (the core and the areas), with the packages of the
// server it may import. The core imports none; an area imports the core and only the areas
// listed for it, one way (Go refuses a cycle); package fake, the face, imports the core and
// every area, and lists them in order (areas.go). A new area is a package under
// fake/internal/areas/, added here with what it may import.
var serverImports = map[string][]string{
	"core":                     {},
	"areas/admin":              {"core"},
	"areas/agents":             {"core"},
	"areas/batches":            {"core", "areas/messages", "areas/messages/scenarios"},
	"areas/compliance":         {"core"},
	"areas/files":              {"core"},
	"areas/memory":             {"core"},
	"areas/messages":           {"core", "areas/admin", "areas/files", "areas/models", "areas/ratelimit", "areas/messages/wire", "areas/messages/model", "areas/messages/stubs", "areas/messages/cache", "areas/messages/threads", "areas/messages/scenarios", "areas/messages/tape"},
	"areas/messages/cache":     {"core", "areas/files", "areas/models", "areas/ratelimit", "areas/messages/wire", "areas/messages/model"},
	"areas/messages/model":     {"core", "areas/messages/wire"},
	"areas/messages/scenarios": {"core", "areas/admin", "areas/messages/wire", "areas/messages/model", "areas/messages/stubs", "areas/messages/cache"},
	"areas/messages/stubs":     {"core", "areas/messages/wire"},
	"areas/messages/tape":      {"core", "areas/messages/wire", "areas/messages/cache", "areas/messages/scenarios", "areas/messages/stubs"},
	"areas/messages/threads":   {"core", "areas/messages/wire", "areas/messages/cache"},
	"areas/messages/wire":      {"core"},
	"areas/models":             {"core"},
	"areas/ratelimit":          {"core", "areas/admin", "areas/models"},
	"areas/sessions":           {"core", "areas/agents", "areas/files", "areas/messages", "areas/messages/stubs", "areas/messages/wire", "areas/vaults", "areas/work"},
	"areas/skills":             {"core"},
	"areas/vaults":             {"core"},
	"areas/tunnels":            {"core", "areas/admin"},
	"areas/work":               {"core"},
}

// toolDirs are the packages over the face: the binary and the tools that drive a server. They
// import the face, never the core or an area.
var toolDirs = []string{"fake/cmd/", "fake/internal/hostile", "fake/internal/proc", "fake/internal/loadtest", "fake/internal/soak", "fake/internal/openapicheck"}

// serverViolations states the rule of serverImports and toolDirs over the listed packages, one
// line per import that breaks it.
func serverViolations(pkgs []golist.Package) []string {
	face := golist.Module + "/fake"
	internal := face + "/internal/"
	var out []string
	for _, p := range pkgs {
		rel, inFake := strings.CutPrefix(p.ImportPath, golist.Module+"/")
		if !inFake || p.ImportPath == face || !strings.HasPrefix(rel, "fake/") {
			continue // the face may import the core and every area
		}
		if slices.ContainsFunc(toolDirs, func(d string) bool { return strings.HasPrefix(rel, d) }) {
			for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
				if dep, ok := strings.CutPrefix(imp, internal); ok && serverPart(dep) {
					out = append(out, p.ImportPath+" imports "+imp+": a tool over the face uses package fake only")
				}
			}
			continue
		}
		name, ok := strings.CutPrefix(p.ImportPath, internal)
		allowed, known := serverImports[name]
		if !ok || !known {
			out = append(out, p.ImportPath+" is a package of the fake that the layering does not name: add it to serverImports (or toolDirs) with what it may import")
			continue
		}
		for _, imp := range p.Imports {
			if imp == face {
				out = append(out, p.ImportPath+" imports the face "+face+": the server's packages use the core and the areas they may, never the face")
			}
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports) {
			if dep, ok := strings.CutPrefix(imp, internal); ok && dep != name && !slices.Contains(allowed, dep) {
				out = append(out, p.ImportPath+" imports "+imp+", which serverImports does not allow it")
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// serverPart reports whether a package below fake/internal/ is part of the server.
func serverPart(rel string) bool { return rel == "core" || strings.HasPrefix(rel, "areas/") }

// TestServerLayering holds the fake's packages to their layers (serverImports, toolDirs): the
// core imports no area, an area only the core and the areas it may, the tools only the face.
func TestServerLayering(t *testing.T) {
	pkgs, err := golist.List(golist.Module + "/fake/...")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(pkgs, func(p golist.Package) bool { return p.ImportPath == golist.Module+"/fake/internal/core" }) {
		t.Fatalf("go list did not list %s/fake/internal/core: the test reads the wrong module", golist.Module)
	}
	for _, v := range serverViolations(pkgs) {
		t.Error(v)
	}
}

// TestServerLayeringRule: the rule, over made-up packages, names each import that breaks it and
// none that keeps it.
func TestServerLayeringRule(t *testing.T) {
	saved := serverImports
	defer func() { serverImports = saved }()
	serverImports = map[string][]string{"core": {}, "areas/admin": {"core"}, "areas/tunnels": {"core", "areas/admin"}}
	f := golist.Module + "/fake"
	in := f + "/internal/"
	pkgs := []golist.Package{
		{ImportPath: f, Imports: []string{in + "core", in + "areas/admin", in + "areas/tunnels"}},
		{ImportPath: in + "core", Imports: []string{"net/http", in + "areas/admin"}},
		{ImportPath: in + "areas/admin", Imports: []string{in + "core", in + "areas/tunnels"}},
		{ImportPath: in + "areas/tunnels", Imports: []string{in + "core", in + "areas/admin"}, XTestImports: []string{f}},
		{ImportPath: in + "areas/vaults", Imports: []string{in + "core", f}},
		{ImportPath: f + "/cmd/platformfake", Imports: []string{f, in + "core"}},
		{ImportPath: in + "soak", Imports: []string{f}},
	}
	want := []string{
		f + "/cmd/platformfake imports " + in + "core: a tool over the face uses package fake only",
		in + "areas/admin imports " + in + "areas/tunnels, which serverImports does not allow it",
		in + "areas/vaults is a package of the fake that the layering does not name: add it to serverImports (or toolDirs) with what it may import",
		in + "core imports " + in + "areas/admin, which serverImports does not allow it",
	}
	slices.Sort(want)
	if got := serverViolations(pkgs); !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
