package wire

import (
	"strconv"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// A Messages answer writes its own JSON, byte for byte as an Encoder with SetEscapeHTML(false)
// writes it (TestMessageAppendsAsEncoded sets every field, so a field added to Message or Usage
// and not here fails it): encoding/json's reflection over the struct and its sort of each
// block's keys was a fifth of a short message's handler.

// MessageJSON is a message as a handler answers it: the core's encoder writes it through
// AppendJSON (core.JSONAppender), which Message, an exported type, keeps unexported.
type MessageJSON struct{ *Message }

func (m MessageJSON) AppendJSON(dst []byte) ([]byte, error) { return m.appendJSON(dst) }

func (m *Message) appendJSON(dst []byte) ([]byte, error) {
	dst = core.AppendJSONString(append(dst, `{"id":`...), m.ID, false)
	dst = core.AppendJSONString(append(dst, `,"type":`...), m.Type, false)
	dst = core.AppendJSONString(append(dst, `,"role":`...), m.Role, false)
	dst = append(dst, `,"content":`...)
	if m.Content == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, b := range m.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = core.AppendJSON(dst, b, false, nil); err != nil {
				return nil, err
			}
		}
		dst = append(dst, ']')
	}
	dst = core.AppendJSONString(append(dst, `,"model":`...), m.Model, false)
	dst = core.AppendStringOrNull(append(dst, `,"stop_reason":`...), m.StopReason)
	dst = core.AppendStringOrNull(append(dst, `,"stop_sequence":`...), m.StopSequence)
	dst, err := appendOrNull(append(dst, `,"stop_details":`...), m.StopDetails)
	if err != nil {
		return nil, err
	}
	if dst, err = m.Usage.appendJSON(append(dst, `,"usage":`...)); err != nil {
		return nil, err
	}
	if dst, err = appendOrNull(append(dst, `,"container":`...), m.Container); err != nil {
		return nil, err
	}
	if dst, err = appendOrNull(append(dst, `,"context_management":`...), m.ContextManagement); err != nil {
		return nil, err
	}
	if dst, err = appendOrNull(append(dst, `,"diagnostics":`...), m.Diagnostics); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

func (u *Usage) appendJSON(dst []byte) ([]byte, error) {
	dst = appendIntField(dst, `{"input_tokens":`, u.InputTokens)
	dst = appendIntField(dst, `,"output_tokens":`, u.OutputTokens)
	dst = appendIntField(dst, `,"cache_creation_input_tokens":`, u.CacheCreationInputTokens)
	dst = appendIntField(dst, `,"cache_read_input_tokens":`, u.CacheReadInputTokens)
	dst = appendIntField(dst, `,"cache_creation":{"ephemeral_5m_input_tokens":`, u.CacheCreation.Ephemeral5m)
	dst = appendIntField(dst, `,"ephemeral_1h_input_tokens":`, u.CacheCreation.Ephemeral1h)
	dst = appendIntField(dst, `},"server_tool_use":{"web_search_requests":`, u.ServerToolUse.WebSearchRequests)
	dst = appendIntField(dst, `,"web_fetch_requests":`, u.ServerToolUse.WebFetchRequests)
	dst = core.AppendJSONString(append(dst, `},"service_tier":`...), u.ServiceTier, false)
	dst = core.AppendJSONString(append(dst, `,"inference_geo":`...), u.InferenceGeo, false)
	dst = core.AppendJSONString(append(dst, `,"speed":`...), u.Speed, false)
	dst = appendIntField(dst, `,"output_tokens_details":{"thinking_tokens":`, u.OutputTokensDetails.ThinkingTokens)
	dst = append(dst, `},"iterations":`...)
	if u.Iterations == nil {
		dst = append(dst, "null"...)
	} else {
		var err error
		if dst, err = core.AppendJSON(dst, u.Iterations, false, nil); err != nil {
			return nil, err
		}
	}
	dst = append(dst, `,"fallback_credit":`...)
	if u.FallbackCredit == nil {
		return append(dst, "null}"...), nil
	}
	dst, err := core.AppendJSON(dst, *u.FallbackCredit, false, nil)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

func (ev MessageStartEvent) AppendJSON(dst []byte) ([]byte, error) {
	dst, err := ev.Message.appendJSON(append(dst, `{"message":`...))
	if err != nil {
		return nil, err
	}
	return append(core.AppendJSONString(append(dst, `,"type":`...), ev.Type, false), '}'), nil
}

func appendIntField(dst []byte, name string, n int) []byte {
	return strconv.AppendInt(append(dst, name...), int64(n), 10)
}

// appendOrNull appends a rarely set field: null, or encoding/json's encoding of *p.
func appendOrNull[T any](dst []byte, p *T) ([]byte, error) {
	if p == nil {
		return append(dst, "null"...), nil
	}
	return core.AppendJSON(dst, p, false, nil)
}
