// Package consistency holds the cross-field consistency checks of what is read, across the
// admin, compliance, memory and tunnels areas, whose packages it uses. Its checks register with
// the framework (package kit) from init; the public face, package conformance, imports it.
package consistency
