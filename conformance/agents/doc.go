// Package agents holds the conformance checks of managed agents and their sessions (the producer
// of the work queue: spec 2.16, "work items are queued when sessions are created"), with the bugs
// that prove them. The routes are not in the reference's table; the checks hold the fake to the
// official SDKs' types and helpers, so they carry the extension label beside their area's, agents. An agent can be archived but never deleted, so every check that
// creates one is destructive against a deployment. Its checks register with the framework (package
// kit) from init; the public face, package conformance, imports it.
package agents
