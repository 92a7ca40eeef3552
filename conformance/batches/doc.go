// Package batches holds the conformance checks of message batches (/v1/messages/batches; gaps
// §13), with the bugs that prove them (bugs_batches.go). Its checks carry the messages area
// label: a batch is Messages requests answered later. They register with the framework (package
// kit) from init; the public face, package conformance, imports it.
//
// Every check makes its own batches, of at most 20 short requests, and deletes them once they
// have ended. A batch ends on the target's own time, so the checks that wait for it are slow:
// against a deployment they run with CONFORMANCE_SLOW=1 and poll the batch, and one that has not
// ended within the run's patience (one request timeout, CONFORMANCE_TIMEOUT) ends the check as
// unsupported, naming that patience; where the run moves the target's clock (the fake's control
// API, Target.WaitFunc), they move it instead. The checks of malformed batches wait for nothing.
//
// A target that does not serve /v1/messages/batches (its create answered 404 or 405, the API's
// envelope or a web framework's) is found by the preflight, and every batch check ends blocked
// by that one cause rather than failing on the 404s.
package batches
