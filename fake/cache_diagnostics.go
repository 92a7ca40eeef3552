package fake

// Cache diagnostics (conformance/EXTENSIONS.md, "Prompt caching"): a request with diagnostics
// names the previous response's id, and the answer says where the request diverged from the
// request that response answered: the earliest of model, system, tools and messages, or
// unavailable when only another prompt-affecting parameter differs.

// Diagnostics is the diagnostics field of a message: nil (null) when the request asked for none,
// sent previous_message_id null, or diverged nowhere.
type Diagnostics struct {
	CacheMissReason *CacheMissReason `json:"cache_miss_reason"`
}

// CacheMissReason is why the cache missed: model_changed, system_changed, tools_changed and
// messages_changed carry the tokens that would have been read had the prefix matched;
// previous_message_not_found and unavailable carry nothing.
type CacheMissReason struct {
	Type                   string `json:"type"`
	CacheMissedInputTokens *int   `json:"cache_missed_input_tokens,omitempty"`
}

// cacheFingerprint is what diagnostics compares of a request: hashes of its levels and the
// token counts where they end.
type cacheFingerprint struct {
	org, workspace string
	model          string // the resolved model and the speed
	tools, system  cacheKey
	messages       []cacheKey // one per message
	messageCum     []int      // tokens through each message
	toolsEnd       int        // tokens through the tools
	systemEnd      int        // tokens through the system
	other          cacheKey   // a hash of tool_choice, thinking, output_config, output_format, images
	cached         int        // tokens the request read or wrote at its breakpoints
}

// size is the fingerprint's estimated bytes, for the caches' byte bounds.
func (fp *cacheFingerprint) size() int {
	return cacheFingerprintBase + len(fp.org) + len(fp.workspace) + len(fp.model) +
		len(fp.messages)*(len(cacheKey{})+8)
}

// remember keeps fp under the response id, dropping the oldest past cacheMaxFingerprints. The
// caller holds st.mu.
func (st *cacheStore) remember(id string, fp *cacheFingerprint) {
	if old, ok := st.fps[id]; ok {
		st.Grow(-old.size())
	} else {
		st.fpOrder = append(st.fpOrder, id)
	}
	st.fps[id] = fp
	st.Grow(fp.size())
	for len(st.fpOrder) > cacheMaxFingerprints {
		st.forgetOldest()
	}
}

// forgetOldest drops the oldest fingerprint. The caller holds st.mu.
func (st *cacheStore) forgetOldest() {
	id := st.fpOrder[0]
	st.fpOrder[0] = ""
	st.fpOrder = st.fpOrder[1:]
	if fp := st.fps[id]; fp != nil {
		st.Grow(-fp.size())
		delete(st.fps, id)
	}
}

// diagnose compares fp with the fingerprint of the request the previous message answered. The
// caller holds st.mu.
func (st *cacheStore) diagnose(prev any, fp *cacheFingerprint) *Diagnostics {
	id, _ := prev.(string)
	if id == "" {
		return nil
	}
	old := st.fps[id]
	if old == nil || old.org != fp.org || old.workspace != fp.workspace {
		return &Diagnostics{&CacheMissReason{Type: "previous_message_not_found"}}
	}
	missed := func(typ string, kept int) *Diagnostics {
		n := max(old.cached-kept, 0)
		return &Diagnostics{&CacheMissReason{Type: typ, CacheMissedInputTokens: &n}}
	}
	switch {
	case old.model != fp.model:
		return missed("model_changed", 0)
	case old.system != fp.system:
		return missed("system_changed", old.toolsEnd)
	case old.tools != fp.tools:
		return missed("tools_changed", 0)
	}
	for i, h := range old.messages {
		if i >= len(fp.messages) || fp.messages[i] != h {
			kept := old.systemEnd
			if i > 0 {
				kept = old.messageCum[i-1]
			}
			return missed("messages_changed", kept)
		}
	}
	if old.other != fp.other {
		return &Diagnostics{&CacheMissReason{Type: "unavailable"}}
	}
	return nil
}
