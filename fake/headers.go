package fake

import (
	"net/http"
	"slices"
	"strings"
)

// APIVersion is the only vendor-version value the fake accepts (spec 9.1).
const APIVersion = "2023-06-01"

// checkVersionHeaders applies section 9 to a request of the interface: vendor-version where it
// is sent (or anthropic-version, the name the official SDKs send it under; vendor-version decides
// when both are sent), and the beta value the interface requires. It returns the beta values the request
// selected.
func checkVersionHeaders(r *http.Request, ifc *iface) ([]string, error) {
	if ifc.version {
		name, v := "vendor-version", r.Header.Get("Vendor-Version")
		if v == "" {
			name, v = "anthropic-version", r.Header.Get("Anthropic-Version")
		}
		switch v {
		case "":
			return nil, invalid("vendor-version: header is required (the official SDKs send it as anthropic-version)")
		case APIVersion:
		default:
			return nil, invalid("%s: %q is not a supported version; send %q", name, v, APIVersion)
		}
	}
	betas := parseBetas(r.Header)
	if ifc.beta != "" && !slices.Contains(betas, ifc.beta) {
		return nil, invalid("vendor-beta: the %s interface requires the beta value %q", ifc.name, ifc.beta)
	}
	return betas, nil
}

// betaHeaders are the headers beta values come in: the reference's vendor-beta, and the
// official SDKs' anthropic-beta, in which they send the betas of a call's parameters.
var betaHeaders = []string{"Vendor-Beta", "Anthropic-Beta"}

// parseBetas collects beta values from every header line of betaHeaders, each a comma-separated
// list (spec 9.2, gaps §2). Unknown values are kept: any string is allowed.
func parseBetas(h http.Header) []string {
	var out []string
	for _, name := range betaHeaders {
		for _, line := range h.Values(name) {
			for _, v := range strings.Split(line, ",") {
				if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// hasBeta reports whether the request selected the beta value.
func (c *call) hasBeta(v string) bool { return slices.Contains(c.betas, v) }
