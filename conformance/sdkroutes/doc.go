// Package sdkroutes holds the conformance checks of routes the official SDKs call that the
// reference does not describe (EXTENSIONS.md §11), across the admin, tunnels and work areas, whose
// packages it uses. Its checks register with the framework (package kit) from init; the public
// face, package conformance, imports it.
package sdkroutes
