// Package versions holds the conformance checks of the rules that differ between API versions
// (EXTENSIONS.md, "API versions"), across the admin and messages areas, whose packages it uses.
// Its checks register with the framework (package kit) from init; the public face, package
// conformance, imports it.
package versions
