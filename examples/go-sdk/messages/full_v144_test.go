//go:build !sdknewest

package messages

import "github.com/anthropics/anthropic-sdk-go"

// The optional fields only the pinned release (v1.44.1) spells this way.

func addMessageFields(p *anthropic.MessageNewParams) {
	p.Container = anthropic.String("container_01example")
}

func addBetaFields(*anthropic.BetaMessageNewParams) {}

func addBetaCountFields(*anthropic.BetaMessageCountTokensParams) {}
