package fake

import (
	"net/http"
	"slices"
	"strings"
)

// checkVersionHeaders applies section 9 to a request of the interface: the API version where the
// interface requires one (requestVersion, versions.go), and the beta value the interface
// requires. It returns the version (nil where none is required) and the beta values the request
// selected.
func checkVersionHeaders(r *http.Request, ifc *iface) (*apiVersion, []string, error) {
	var v *apiVersion
	if ifc.version {
		var err error
		if v, err = requestVersion(func(name string) string { return headerOf(r.Header, name) }); err != nil {
			return nil, nil, err
		}
	}
	betas := parseBetas(r.Header)
	if ifc.beta != "" && !slices.Contains(betas, ifc.beta) {
		return nil, nil, invalid("vendor-beta: the %s interface requires the beta value %q", ifc.name, ifc.beta)
	}
	return v, betas, nil
}

// headerOf is h.Get(name) for a name in canonical form (TestHeaderNamesAreCanonical): the same
// lookup without canonicalising the name again, which Get does on every call of every request.
func headerOf(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// The version headers: the reference's, and the official SDKs'.
const (
	headerVendorVersion    = "Vendor-Version"
	headerAnthropicVersion = "Anthropic-Version"
)

// betaHeaders are the headers beta values come in: the reference's vendor-beta, and the
// official SDKs' anthropic-beta, in which they send the betas of a call's parameters.
var betaHeaders = []string{"Vendor-Beta", "Anthropic-Beta"}

// parseBetas collects beta values from every header line of betaHeaders, each a comma-separated
// list (spec 9.2, gaps §2). Unknown values are kept: any string is allowed.
func parseBetas(h http.Header) []string {
	var out []string
	for _, name := range betaHeaders {
		for _, line := range h[name] { // h.Values(name), name being canonical
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
