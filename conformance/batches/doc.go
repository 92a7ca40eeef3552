// Package batches holds the conformance checks of message batches (/v1/messages/batches; gaps
// §13), with the bugs that prove them (bugs_batches.go). Its checks carry the messages area
// label: a batch is Messages requests answered later. They register with the framework (package
// kit) from init; the public face, package conformance, imports it.
//
// Every check makes its own batches, of a few short requests, and deletes them once they have
// ended. A batch ends on the target's own time: against the fake the suite moves its clock;
// against a deployment it polls, and a batch that has not ended within the run's patience (one
// request timeout, CONFORMANCE_TIMEOUT) ends the check as unsupported, naming that patience.
package batches
