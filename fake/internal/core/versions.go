package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// API versions. A request names the version whose rules answer it in anthropic-version (the name
// the official SDKs send) or vendor-version (the reference's name; it decides when both are
// sent). apiVersions is the one table of the versions the fake serves, and every rule that
// differs between them is a field of it: the places that apply a rule read the field of the
// request's version (call.version), never compare version names. Those places are:
//
//   - the parse stage of Messages and count_tokens (parseMessage → checkMessageBody);
//   - the encoder of the admin rate-limit entries (rateLimitGroupType);
//   - the OpenAPI document, which lists each version's differences (versionNotes).
//
// Conformance/EXTENSIONS.md, "API versions", records what each route does at each version and why.

// The versions served, oldest first.
const (
	// APIVersion is the oldest version the fake serves, which the fake's own clients (the
	// Transport of this package, the conformance suite by default) send.
	APIVersion = "2023-06-01"
	// APIVersion20261021 is the version the official SDK majors released on 2026-10-21 send
	// (TypeScript 1.x, Python 2.x, Go v2, Java 3.x).
	APIVersion20261021 = "2026-10-21"
)

// apiVersion is one served version and the rules it answers by.
type apiVersion struct {
	name string
	// removedMessageFields are Messages/count_tokens body fields refused whatever their value
	// ("temperature: Extra inputs are not permitted"), even at the default.
	removedMessageFields []string
	// assistantDocuments: a document block may sit directly in an assistant message.
	assistantDocuments bool
	// userCitations: a text block of a user message may carry a non-empty citations array,
	// directly or inside a search_result block.
	userCitations bool
	// rateLimitGroupType: admin rate-limit entries carry group_type (equal to group.type).
	rateLimitGroupType bool
}

// apiVersions is every version the fake serves, oldest first.
var apiVersions = []*apiVersion{
	{name: APIVersion, assistantDocuments: true, userCitations: true, rateLimitGroupType: true},
	{name: APIVersion20261021, removedMessageFields: []string{"temperature", "top_p", "top_k"}},
}

// APIVersions is the face's APIVersions (package fake), which documents it.
func APIVersions() []string {
	out := make([]string, len(apiVersions))
	for i, v := range apiVersions {
		out[i] = v.name
	}
	return out
}

// findVersion is the served version named v, or nil.
func findVersion(v string) *apiVersion {
	for _, av := range apiVersions {
		if av.name == v {
			return av
		}
	}
	return nil
}

// requestVersion reads the version a request names. It answers the platform's 400s: a missing
// header ("anthropic-version: header is required") and a value the fake does not serve, echoed
// under the header name the request used.
func requestVersion(get func(string) string) (*apiVersion, error) {
	name, v := "vendor-version", get(HeaderVendorVersion)
	if v == "" {
		name, v = "anthropic-version", get(HeaderAnthropicVersion)
	}
	if v == "" {
		return nil, Invalid("anthropic-version: header is required").Because(ReasonVersion)
	}
	av := findVersion(v)
	if av == nil {
		return nil, Invalid("%s: %s is not a valid version", name, Quoted(v, MaxExcerpt)).Because(ReasonVersion)
	}
	return av, nil
}

// versionName is the name of the request's version, "" for an interface without one (compliance,
// the control API).
func (c *Call) versionName() string {
	if c.Version == nil {
		return ""
	}
	return c.Version.name
}

// CheckMessageBody applies the version's rules to a Messages or count_tokens body that passed
// the request schema (raw is the decoded body), naming the field path of the first refusal.
func (v *apiVersion) CheckMessageBody(raw map[string]any) error {
	for _, f := range v.removedMessageFields {
		if _, ok := raw[f]; ok {
			return InvalidField(f, "Extra inputs are not permitted").Because(ReasonVersion)
		}
	}
	if v.assistantDocuments && v.userCitations {
		return nil
	}
	msgs, _ := raw["messages"].([]any)
	for i, m := range msgs {
		m, _ := m.(map[string]any)
		blocks, _ := m["content"].([]any) // a string content holds no block
		role, _ := m["role"].(string)
		for j, b := range blocks {
			b, _ := b.(map[string]any)
			path := fmt.Sprintf("messages.%d.content.%d", i, j)
			switch {
			case role == "assistant" && !v.assistantDocuments && b["type"] == "document":
				return InvalidField(path, "a document block cannot be sent in an assistant message at API version %s; send documents in user messages", v.name).Because(ReasonVersion)
			case role == "user" && !v.userCitations:
				if err := v.checkUserCitations(path, b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// SchemaError is the error for a Messages or count_tokens body the request schema refused: a
// field the version removed, which a schema does not name (count_tokens never took the sampling
// fields), is refused as the version refuses it, not as an unknown field.
func (v *apiVersion) SchemaError(err error) error {
	var ae *APIError
	if errors.As(err, &ae) && ae.reason == ReasonUnknownField && slices.Contains(v.removedMessageFields, ae.field) {
		return InvalidField(ae.field, "Extra inputs are not permitted").Because(ReasonVersion)
	}
	return err
}

// checkUserCitations refuses a non-empty citations array on a text block of a user message: on
// the block itself, inside a search_result's content, and inside the search results of a
// tool_result's content.
func (v *apiVersion) checkUserCitations(path string, b map[string]any) error {
	switch b["type"] {
	case "text":
		if cs, ok := b["citations"].([]any); ok && len(cs) > 0 {
			return InvalidField(path+".citations", "text blocks of user messages cannot carry citations at API version %s; send them without citations", v.name).Because(ReasonVersion)
		}
	case "search_result", "tool_result":
		inner, _ := b["content"].([]any)
		for k, ib := range inner {
			ib, _ := ib.(map[string]any)
			if b["type"] == "tool_result" && ib["type"] != "search_result" {
				continue
			}
			if err := v.checkUserCitations(fmt.Sprintf("%s.content.%d", path, k), ib); err != nil {
				return err
			}
		}
	}
	return nil
}

// RateLimitGroupType is the group_type of an admin rate-limit entry of the group type t: t, or ""
// (left out) at a version without the field.
func (c *Call) RateLimitGroupType(t string) string {
	if c.Version != nil && !c.Version.rateLimitGroupType {
		return ""
	}
	return t
}

// versionNotes says, per schema of the route table, what differs between the versions: the
// OpenAPI document marks each operation whose request or 200 schema is named here.
func versionNotes() map[string][]string {
	notes := map[string][]string{}
	for _, v := range apiVersions {
		var msg []string
		if len(v.removedMessageFields) > 0 {
			msg = append(msg, fmt.Sprintf("refuses %s (400 \"<field>: Extra inputs are not permitted\"), whatever the value", strings.Join(v.removedMessageFields, ", ")))
		}
		if !v.assistantDocuments {
			msg = append(msg, "refuses a document block directly in an assistant message (nested ones are accepted)")
		}
		if !v.userCitations {
			msg = append(msg, "refuses a non-empty citations array on a text block of a user message, also inside search_result content (an empty array and citations {\"enabled\": true} are accepted)")
		}
		for _, m := range msg {
			for _, s := range []string{"messages/create_message_request", "messages/count_tokens_request"} {
				notes[s] = append(notes[s], "At "+v.name+": "+m+".")
			}
		}
		if !v.rateLimitGroupType {
			for _, s := range []string{"admin/rate_limit_list", "admin/workspace_rate_limit_list", "admin/workspace_rate_limit"} {
				notes[s] = append(notes[s], "At "+v.name+": entries leave out group_type (read group.type).")
			}
		}
	}
	return notes
}
