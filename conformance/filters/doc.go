// Package filters holds the negative filter checks of every list, across the admin, compliance,
// memory and work areas, whose packages it uses: a filter must drop what does not match. Its
// checks register with the framework (package kit) from init; the public face, package
// conformance, imports it.
package filters
