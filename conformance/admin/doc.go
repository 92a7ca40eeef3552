// Package admin holds the conformance checks of the Admin API (spec 2.11, 2.12, 3.2, 4.6, 8;
// gaps §6) and of the administration routes the official SDKs use beyond the reference
// (admin_routes.go), with the bugs that prove them (bugs_admin.go). Its checks register with the
// framework (package kit) from init; the public face, package conformance, imports it.
package admin
