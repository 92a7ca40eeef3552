package core

import (
	"net/http"
	"slices"
	"strings"
)

// checkVersionHeaders applies section 9 to a request of the interface: the API version where the
// interface requires one (requestVersion, versions.go), and the beta value the interface
// requires. It returns the version (nil where none is required) and the beta values the request
// selected, read on work (parseBetas).
func checkVersionHeaders(r *http.Request, ifc *Iface, work *Meter) (*apiVersion, []string, error) {
	var v *apiVersion
	if ifc.Version {
		var err error
		if v, err = requestVersion(func(name string) string { return headerOf(r.Header, name) }); err != nil {
			return nil, nil, err
		}
	}
	betas, err := ParseBetas(r.Header, work)
	if err != nil {
		return nil, nil, err
	}
	if ifc.Beta != "" && !slices.Contains(betas, ifc.Beta) {
		return nil, nil, Invalid("vendor-beta: the %s interface requires the beta value %q", ifc.Name, ifc.Beta)
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
	HeaderVendorVersion    = "Vendor-Version"
	HeaderAnthropicVersion = "Anthropic-Version"
)

// BetaHeaders are the headers beta values come in: the reference's vendor-beta, and the
// official SDKs' anthropic-beta, in which they send the betas of a call's parameters.
var BetaHeaders = []string{"Vendor-Beta", "Anthropic-Beta"}

// MaxBetaSteps bounds the work of reading a request's beta values, on the request's meter: a
// value costs a step, and one more per stepBytes of it (about 10,000 values, or 600 KB of
// header). A real request sends a handful.
const MaxBetaSteps = 10_000

// ParseBetas collects beta values from every header line of betaHeaders, each a comma-separated
// list (spec 9.2, gaps §2), each value once, in the order first sent, charging work (started
// with maxBetaSteps). Unknown values are kept: any string is allowed. Past the allowance it is
// a 400 naming the header that went over.
func ParseBetas(h http.Header, work *Meter) ([]string, error) {
	var out []string
	var seen map[string]bool // once out is past a handful: a scan of a few is cheaper than a map
	for _, name := range BetaHeaders {
		for _, line := range h[name] { // h.Values(name), name being canonical
			for v := range strings.SplitSeq(line, ",") {
				if !work.ChargeBytes(len(v)) {
					return nil, work.Refusal(strings.ToLower(name), "reading its beta values takes more than %d steps (a value one step, and one more per %d bytes); send each beta once", MaxBetaSteps, StepBytes)
				}
				if v = strings.TrimSpace(v); v == "" {
					continue
				}
				if seen == nil && len(out) < 8 {
					if !slices.Contains(out, v) {
						out = append(out, v)
					}
					continue
				}
				if seen == nil {
					seen = make(map[string]bool, 2*len(out))
					for _, x := range out {
						seen[x] = true
					}
				}
				if !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
		}
	}
	return out, nil
}

// HasBeta reports whether the request selected the beta value.
func (c *Call) HasBeta(v string) bool { return slices.Contains(c.betas, v) }
