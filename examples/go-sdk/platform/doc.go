// Package platform drives the official Go SDK (github.com/anthropics/anthropic-sdk-go) against the
// fake, for the platform routes: environments and the work queue, memory stores, and, with the
// newest release, administration and tunnels. Its tests are the proof that every operation the
// SDK has for these routes is answered 2xx with a body that decodes with no required field
// missing, once with every optional field set and once with only the required ones.
package platform
