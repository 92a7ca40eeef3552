// Package platform drives Go SDK v2 (github.com/anthropics/anthropic-sdk-go/v2) against the
// fake, for the platform routes: environments and the work queue, memory stores, administration
// and tunnels. Its tests are the proof that every operation v2 has for these routes is answered
// 2xx with a body that decodes with no required field missing, once with every optional field
// set and once with only the required ones.
package platform
