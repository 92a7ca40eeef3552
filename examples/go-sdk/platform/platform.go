package platform

import (
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// NewClient returns an official SDK client for the fake at baseURL (a fake.TestServer's URL, or
// the binary's http://127.0.0.1:4010): the SDK's headers renamed as the fake reads them, no
// retries, so that a refusal shows at once. opts add the credential of the interface called:
// option.WithAPIKey(fake.DefaultAPIKey) for environments, the work queue and memory stores,
// option.WithAPIKey(fake.DefaultAdminKey) for administration, and
// option.WithAuthToken(fake.DefaultBearerToken) (or the admin key) for /v1/tunnels.
func NewClient(baseURL string, opts ...option.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]option.RequestOption{
		option.WithBaseURL(baseURL),
		option.WithHTTPClient(&http.Client{Transport: VendorHeaders{}}),
		option.WithMaxRetries(0),
	}, opts...)...)
}

// VendorHeaders is an http.RoundTripper that sends the SDK's "anthropic-" headers
// (anthropic-version, anthropic-beta, anthropic-workspace-id, ...) under the "vendor-" prefix
// the fake reads, as the Platform API reference spells them.
type VendorHeaders struct {
	// Base carries the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
}

const sdkPrefix = "Anthropic-"

// RoundTrip implements http.RoundTripper. It never changes req: it sends a copy.
func (v VendorHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	base := v.Base
	if base == nil {
		base = http.DefaultTransport
	}
	req = req.Clone(req.Context())
	for name, values := range req.Header {
		if rest, ok := strings.CutPrefix(http.CanonicalHeaderKey(name), sdkPrefix); ok {
			req.Header.Del(name)
			for _, val := range values {
				req.Header.Add("Vendor-"+rest, val)
			}
		}
	}
	return base.RoundTrip(req)
}
