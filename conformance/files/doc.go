// Package files holds the conformance checks of the files API (/v1/files; gaps §12), with the
// bugs that prove them (bugs_files.go). Its checks register with the framework (package kit)
// from init; the public face, package conformance, imports it. It exports Upload, which checks
// of other areas use to put a file on the target for a file_id to refer to.
package files
