package platform

import (
	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// NewClient returns an official SDK client for the fake at baseURL (a fake.TestServer's URL, or
// the binary's http://127.0.0.1:4010), unmodified but for no retries, so that a refusal shows at
// once: the fake reads the SDK's anthropic-version, anthropic-beta and anthropic-workspace-id
// headers as the reference's vendor- ones. opts add the credential of the interface called:
// option.WithAPIKey(fake.DefaultAPIKey) for environments, the work queue and memory stores,
// option.WithAPIKey(fake.DefaultAdminKey) for administration, and
// option.WithAuthToken(fake.DefaultBearerToken) (or the admin key) for /v1/tunnels.
func NewClient(baseURL string, opts ...option.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]option.RequestOption{
		option.WithBaseURL(baseURL),
		option.WithMaxRetries(0),
	}, opts...)...)
}
