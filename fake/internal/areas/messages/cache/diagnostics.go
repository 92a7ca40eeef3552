package cache

import "github.com/platformkit/platformkit/fake/internal/areas/messages/wire"

// Cache diagnostics (conformance/EXTENSIONS.md, "Prompt caching"): a request with diagnostics
// names the previous response's id, and the answer says where the request diverged from the
// request that response answered: the earliest of model, system, tools and messages, or
// unavailable when only another prompt-affecting parameter differs.

// CacheFingerprint is what diagnostics compares of a request: hashes of its levels and the
// token counts where they end.
type CacheFingerprint struct {
	org, workspace string
	model          string // the resolved model and the speed
	tools, system  CacheKey
	Messages       []CacheKey // one per message
	MessageCum     []int      // tokens through each message
	toolsEnd       int        // tokens through the tools
	systemEnd      int        // tokens through the system
	other          CacheKey   // a hash of tool_choice, thinking, output_config, output_format, images
	cached         int        // tokens the request read or wrote at its breakpoints
}

// size is the fingerprint's estimated bytes, for the caches' byte bounds.
func (fp *CacheFingerprint) size() int {
	return cacheFingerprintBase + len(fp.org) + len(fp.workspace) + len(fp.model) +
		len(fp.Messages)*(len(CacheKey{})+8)
}

// remember keeps fp under the response id, dropping the oldest past cacheMaxFingerprints. The
// caller holds st.mu.
func (st *CacheStore) remember(id string, fp *CacheFingerprint) {
	if old, ok := st.Fps[id]; ok {
		st.Grow(-old.size())
	} else {
		st.fpOrder = append(st.fpOrder, id)
	}
	st.Fps[id] = fp
	st.Grow(fp.size())
	for len(st.fpOrder) > CacheMaxFingerprints {
		st.forgetOldest()
	}
}

// forgetOldest drops the oldest fingerprint. The caller holds st.mu.
func (st *CacheStore) forgetOldest() {
	id := st.fpOrder[0]
	st.fpOrder[0] = ""
	st.fpOrder = st.fpOrder[1:]
	if fp := st.Fps[id]; fp != nil {
		st.Grow(-fp.size())
		delete(st.Fps, id)
	}
}

// diagnose compares fp with the fingerprint of the request the previous message answered. The
// caller holds st.mu.
func (st *CacheStore) diagnose(prev any, fp *CacheFingerprint) *wire.Diagnostics {
	id, _ := prev.(string)
	if id == "" {
		return nil
	}
	old := st.Fps[id]
	if old == nil || old.org != fp.org || old.workspace != fp.workspace {
		return &wire.Diagnostics{CacheMissReason: &wire.CacheMissReason{Type: "previous_message_not_found"}}
	}
	missed := func(typ string, kept int) *wire.Diagnostics {
		n := max(old.cached-kept, 0)
		return &wire.Diagnostics{CacheMissReason: &wire.CacheMissReason{Type: typ, CacheMissedInputTokens: &n}}
	}
	switch {
	case old.model != fp.model:
		return missed("model_changed", 0)
	case old.system != fp.system:
		return missed("system_changed", old.toolsEnd)
	case old.tools != fp.tools:
		return missed("tools_changed", 0)
	}
	for i, h := range old.Messages {
		if i >= len(fp.Messages) || fp.Messages[i] != h {
			kept := old.systemEnd
			if i > 0 {
				kept = old.MessageCum[i-1]
			}
			return missed("messages_changed", kept)
		}
	}
	if old.other != fp.other {
		return &wire.Diagnostics{CacheMissReason: &wire.CacheMissReason{Type: "unavailable"}}
	}
	return nil
}
