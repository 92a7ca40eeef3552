// Package compliance holds the conformance checks of the Compliance API (spec 2.2-2.7, 4.1-4.3;
// gaps §10), with the bugs that prove them (bugs_compliance.go). Its checks register with the
// framework (package kit) from init; the public face, package conformance, imports it.
package compliance
