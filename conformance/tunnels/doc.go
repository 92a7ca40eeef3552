// Package tunnels holds the conformance checks of MCP tunnels and their certificates (spec 2.17,
// 3.3, 3.4, 4.9; gaps §9) and of /v1/tunnels (tunnels_v1.go), with the bugs that prove them
// (bugs_tunnels.go). Its checks register with the framework (package kit) from init; the public
// face, package conformance, imports it.
package tunnels
