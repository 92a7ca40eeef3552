package schemas

import "strings"

// The two dialects' words. The reference writes a neutral word where the interface carries the
// maker's name (`vendor` in header names, `assistant` in ID prefixes, type constants, model
// names and role values); real clients and the official SDKs write the maker's (`claude_code_user`,
// `claude-sonnet-4-5`). Words is the one table of every such value: the fake reads and writes
// through it (fake/internal/core/dialect.go), and every schema accepts both forms of each (an
// enum or const holding a reference word takes the maker's too, an ID pattern either prefix), so
// the conformance kit judges a deployment of either dialect by the same documents.
//
// Header names are not in it: the fake reads vendor-version and anthropic-version, vendor-beta
// and anthropic-beta, and writes none. The message role "assistant" is the role of a turn, not
// the maker's name: no row holds it, and it never changes.

// Word is one row of Words: a value the reference writes Ref and the maker writes Maker, under
// the JSON keys (and parameter names) Keys.
type Word struct {
	// Keys are the keys whose values the row applies to; "*_id" matches every key ending in
	// _id; nil matches every key (the ID prefixes, distinctive wherever they appear).
	Keys []string
	Ref  string
	// Maker is the maker's form of Ref.
	Maker string
	// Prefix: Ref and Maker start a value (ID prefixes, model names, display names); else each
	// is a whole value.
	Prefix bool
	// Source is where the maker's form is taken from; Inferred, that no source shows it and the
	// row writes `claude` for `assistant` (conformance/EXTENSIONS.md, "The maker's words").
	Source   string
	Inferred bool
}

var (
	roleKeys = []string{"role", "roles"}
	// model_id, and the list cursors first_id, last_id, after_id, before_id; models and
	// *_models: the rate limits' models, a model's allowed_fallback_models.
	modelKeys = []string{"model", "models", "id", "*_id", "*_model", "*_models"}
)

// Words is the table (see above), in the order rows are tried: a longer prefix before a shorter
// one it starts with.
var Words = []Word{
	{Keys: roleKeys, Ref: "assistant_code_user", Maker: "claude_code_user",
		Source: "Python SDK anthropic 2.14.0: types/organization_role.py, organization/invite_create_params.py, user_update_params.py, user_list_params.py"},
	{Keys: modelKeys, Ref: "assistant-", Maker: "claude-", Prefix: true,
		Source: "Python SDK anthropic 2.14.0: types/model_param.py (claude-sonnet-4-5, claude-sonnet-4-5-20250929, ...)"},
	{Keys: []string{"display_name"}, Ref: "Assistant ", Maker: "Claude ", Prefix: true,
		Source: "Python SDK anthropic 2.14.0: types/model_info.py, display_name (\"Claude Sonnet 4\")"},
	{Ref: "assistant_chat_msg_", Maker: "claude_chat_msg_", Prefix: true, Inferred: true},
	{Ref: "assistant_chat_", Maker: "claude_chat_", Prefix: true, Inferred: true},
	{Ref: "assistant_proj_", Maker: "claude_proj_", Prefix: true, Inferred: true},
	{Ref: "assistant_file_", Maker: "claude_file_", Prefix: true, Inferred: true},
	{Ref: "assistant_gen_file_", Maker: "claude_gen_file_", Prefix: true, Inferred: true},
	{Ref: "assistant_artifact_version_", Maker: "claude_artifact_version_", Prefix: true, Inferred: true},
	{Ref: "assistant_artifact_", Maker: "claude_artifact_", Prefix: true, Inferred: true},
	{Keys: []string{"type"}, Ref: "assistant_chat_deleted", Maker: "claude_chat_deleted", Inferred: true},
	{Keys: []string{"type"}, Ref: "assistant_file_deleted", Maker: "claude_file_deleted", Inferred: true},
}

// BothDialects rewrites a schema document (decoded JSON) so that it accepts both dialects'
// form of every word of Words: an enum holding a Ref value takes its Maker value too, a const
// of one becomes an enum of both, and a pattern "^<Ref prefix>..." matches either prefix.
func BothDialects(schema any) {
	switch s := schema.(type) {
	case []any:
		for _, v := range s {
			BothDialects(v)
		}
	case map[string]any:
		for k, v := range s {
			switch k {
			case "enum":
				if vals, ok := v.([]any); ok {
					for _, x := range vals {
						if m := makerWord(x); m != "" {
							vals = append(vals, m)
						}
					}
					s[k] = vals
				}
				continue
			case "const":
				if m := makerWord(v); m != "" {
					delete(s, "const")
					s["enum"] = []any{v, m}
				}
				continue
			case "pattern":
				if p, ok := v.(string); ok {
					s[k] = makerPattern(p)
				}
				continue
			}
			BothDialects(v)
		}
	}
}

// makerWord is the maker's form of v when v is a whole-value word of Words, else "".
func makerWord(v any) string {
	str, ok := v.(string)
	if !ok {
		return ""
	}
	for _, w := range Words {
		if !w.Prefix && w.Ref == str {
			return w.Maker
		}
	}
	return ""
}

// makerPattern is the pattern p that starts with a Ref prefix of Words taking the Maker prefix
// too.
func makerPattern(p string) string {
	rest, ok := strings.CutPrefix(p, "^")
	if !ok {
		return p
	}
	for _, w := range Words {
		if w.Prefix && strings.HasPrefix(rest, w.Ref) {
			return "^(?:" + w.Ref + "|" + w.Maker + ")" + rest[len(w.Ref):]
		}
	}
	return p
}

// InReferenceWords is v, a value in either dialect, in the reference's words: a maker's word of
// Words (whole, or a prefix) replaced by its Ref. A check compares what a deployment of either
// dialect answered with what it sent in the reference's words by it.
func InReferenceWords(v string) string {
	for _, w := range Words {
		switch {
		case !w.Prefix && v == w.Maker:
			return w.Ref
		case w.Prefix && len(v) > len(w.Maker) && strings.HasPrefix(v, w.Maker):
			return w.Ref + v[len(w.Maker):]
		}
	}
	return v
}
