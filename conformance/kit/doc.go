// Package kit is the conformance suite's framework: everything a check runs with and nothing of
// any area. It holds the Check type with its declared Bug and its Labels, Register and the
// registry, T (assertions, cleanups, Need), the Client, Target and Config, the schema
// assertions, the SSE reader, the list walkers, the shared interface checks (InterfaceChecks),
// the bug builders that break the fake for a check's proof (InAnswers, SetsField, ...), and the
// run: the preflight, ginkgo's wiring (RunSuite) and the reports.
//
// The layers, each importing only those below it:
//
//	conformance/cmd/..., conformance/internal/genchecks   commands
//	conformance                                           the public face: RunSuite, Checks, ...
//	conformance/<area>                                    one package per area, its checks and their bugs
//	conformance/kit, conformance/certgen                  the framework; certificates for checks
//
// kit imports no package of the suite. An area imports kit (and certgen if it needs
// certificates) and, one way, only the areas conformance/layering_test.go allows it; it
// registers its checks from init with Register. The public face imports kit and every area,
// so that a program that imports it has every check registered.
package kit
