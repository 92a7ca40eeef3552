package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/platformkit/platformkit/internal/golist"
)

// module is the import path every package of the repository starts with.
const module = golist.Module

// areaImports is the layering of the suite: every package of the suite below conformance/ (by
// its path there), with the packages of the suite it may import. kit, the framework, imports
// none; an area imports kit, certgen if it needs certificates, and only the areas listed for it,
// one way (Go refuses a cycle); this package, the public face, imports kit and every area.
// A new area is a new package under conformance/, added here with what it may import; checks
// that need several areas at once go in a package of their own over them (consistency,
// filters), never in one of the areas.
var areaImports = map[string][]string{
	"kit":     {},
	"certgen": {},
	// The areas: each imports kit (and certgen) only.
	"admin":      {},
	"agents":     {},
	"batches":    {},
	"compliance": {},
	"core":       {},
	"files":      {},
	"memory":     {},
	"messages":   {},
	"models":     {},
	"skills":     {},
	"tunnels":    {},
	"vaults":     {},
	"work":       {},
	// Checks across areas, each over the areas it checks together.
	"consistency": {"admin", "compliance", "memory", "tunnels"},
	"filters":     {"admin", "compliance", "memory", "work"},
	"sdkroutes":   {"admin", "tunnels", "work"},
	"versions":    {"admin", "messages"},
}

// faceUsers may import the public face, package conformance, outside tests: its commands and
// the document generator. Any package's tests may.
var faceUsers = []string{"conformance/cmd/", "conformance/internal/"}

type listedPackage = golist.Package

// listPackages is `go list -e -json` of every package of the repository.
func listPackages(t *testing.T) []listedPackage {
	t.Helper()
	pkgs, err := golist.List(module + "/...")
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// layeringViolations states the rule of areaImports and faceUsers over the listed packages, one
// line per import that breaks it.
func layeringViolations(pkgs []listedPackage) []string {
	suite := module + "/conformance"
	var out []string
	for _, p := range pkgs {
		rel, inSuite := strings.CutPrefix(p.ImportPath, suite+"/")
		if p.ImportPath == suite {
			continue // the face may import kit and every area
		}
		for _, imp := range p.Imports {
			if imp == suite && !(inSuite && slices.ContainsFunc(faceUsers, func(u string) bool { return strings.HasPrefix("conformance/"+rel, u) })) {
				out = append(out, p.ImportPath+" imports the public face "+suite+": only its commands and conformance/internal/ may (and any package's tests)")
			}
		}
		if !inSuite || slices.ContainsFunc(faceUsers, func(u string) bool { return strings.HasPrefix("conformance/"+rel, u) }) {
			continue
		}
		allowed, known := areaImports[rel]
		if !known {
			out = append(out, p.ImportPath+" is a package of the suite that the layering does not name: add it to areaImports with what it may import")
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			dep, ok := strings.CutPrefix(imp, suite+"/")
			if imp == suite {
				out = append(out, p.ImportPath+" imports the public face "+suite+": a package of the suite uses kit and the areas it may, never the face")
				continue
			}
			if !ok || dep == rel {
				continue
			}
			if dep != "kit" && dep != "certgen" || rel == "kit" || rel == "certgen" {
				if !slices.Contains(allowed, dep) {
					out = append(out, p.ImportPath+" imports "+imp+", which areaImports does not allow it")
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestLayering holds the packages of the suite to their layers (areaImports, faceUsers): the
// framework imports no area, an area only kit, certgen and the areas it may, and only the
// commands import the public face.
func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	if !slices.ContainsFunc(pkgs, func(p listedPackage) bool { return p.ImportPath == module+"/conformance/kit" }) {
		t.Fatalf("go list did not list %s/conformance/kit: the test reads the wrong module", module)
	}
	for _, v := range layeringViolations(pkgs) {
		t.Error(v)
	}
}

// TestLayeringRule: the rule, over made-up packages, names each import that breaks it and none
// that keeps it.
func TestLayeringRule(t *testing.T) {
	s := module + "/conformance"
	saved := areaImports
	defer func() { areaImports = saved }()
	areaImports = map[string][]string{"kit": {}, "certgen": {}, "models": {}, "messages": {"models"}}
	pkgs := []listedPackage{
		{ImportPath: s, Imports: []string{s + "/kit", s + "/models", s + "/messages"}},
		{ImportPath: s + "/kit", Imports: []string{"net/http", s + "/certgen"}},
		{ImportPath: s + "/models", Imports: []string{s + "/kit", s + "/certgen", s + "/messages"}},
		{ImportPath: s + "/messages", Imports: []string{s + "/kit", s + "/models"}, XTestImports: []string{s}},
		{ImportPath: s + "/vaults", Imports: []string{s + "/kit"}},
		{ImportPath: s + "/cmd/platformconformance", Imports: []string{s}},
		{ImportPath: module + "/fake", Imports: []string{s}},
		{ImportPath: module, TestImports: []string{s}},
	}
	want := []string{
		module + "/fake imports the public face " + s + ": only its commands and conformance/internal/ may (and any package's tests)",
		s + "/kit imports " + s + "/certgen, which areaImports does not allow it",
		s + "/messages imports the public face " + s + ": a package of the suite uses kit and the areas it may, never the face",
		s + "/models imports " + s + "/messages, which areaImports does not allow it",
		s + "/vaults is a package of the suite that the layering does not name: add it to areaImports with what it may import",
	}
	slices.Sort(want)
	if got := layeringViolations(pkgs); !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
