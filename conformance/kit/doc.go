// Package kit is the conformance suite's framework: everything a check runs with and nothing of
// any area. It holds the Check type with its declared Bug and its Labels, Register and the
// registry, T (assertions, cleanups, Need), the Client, Target and Config, the schema
// assertions, the SSE reader, the list walkers, the shared interface checks (InterfaceChecks),
// the bug builders that break the fake for a check's proof (InAnswers, SetsField, ...), and the
// run: the preflight (which finds the deployment's dialect, models and unserved routes:
// dialect.go), the causes that block checks (causes.go), the error envelope held once per area
// (envelope.go), ginkgo's wiring (RunSuite) and the reports.
//
// The layers, each importing only those below it:
//
//	conformance/cmd/..., conformance/internal/genchecks    commands
//	conformance                                            the public face: RunSuite, Checks, ...
//	conformance/consistency, filters, sdkroutes, versions  checks across areas, over those areas
//	conformance/admin, compliance, core, memory,           one package per area: its checks and
//	  messages, models, tunnels, work                      the bugs that prove them
//	conformance/kit, conformance/certgen                   the framework; certificates for checks
//
// kit imports no package of the suite. An area imports kit (and certgen if it needs
// certificates), never another area; a package of checks across areas imports the areas it
// checks, one way; conformance/layering_test.go lists what each may import and fails on any
// other import. Every package of checks registers them from init with Register; the public face
// imports them all, so that a program importing it has every check. A new area's checks go in a
// new package conformance/<area>, imported by the face and named in layering_test.go; a check
// that needs two areas at once goes in a package across them, not in either area.
package kit
