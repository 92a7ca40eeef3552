// Package work holds the conformance checks of environments and the work queue (spec 2.16, 3.1,
// 4.8, 8; gaps §8), with the bugs that prove them (bugs_work.go). Its checks register with the
// framework (package kit) from init; the public face, package conformance, imports it. It exports
// what the checks across areas use: CreateEnv, Enqueue, GetItem, Req, EnvsRoute and
// ReplacesItemMetadata.
package work
