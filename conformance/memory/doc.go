// Package memory holds the conformance checks of memory stores, their memories and versions
// (spec 2.13-2.15, 3.5, 4.7, 8; gaps §7), with the bugs that prove them (bugs_memory.go). Its
// checks register with the framework (package kit) from init; the public face, package
// conformance, imports it.
package memory
