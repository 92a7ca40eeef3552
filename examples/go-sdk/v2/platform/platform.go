package platform

import (
	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// NewClient returns a Go SDK v2 client for the fake at baseURL (a fake.TestServer's URL, or the
// binary's http://127.0.0.1:4010) with the key given, configured as the SDK's README says and
// nothing else: v2 sends anthropic-version 2026-10-21 and every key as Authorization: Bearer
// (it has no separate option for admin keys or tokens). key is the credential of the interface
// called: fake.DefaultAPIKey for environments, the work queue and memory stores,
// fake.DefaultAdminKey for administration, fake.DefaultBearerToken for /v1/tunnels.
func NewClient(baseURL, key string) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(baseURL), option.WithAPIKey(key))
}
