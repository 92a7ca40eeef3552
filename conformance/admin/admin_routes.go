package admin

import (
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Validation of the administration routes and fields the official SDKs use beyond the reference
// (EXTENSIONS.md §11): the workspace rate-limit update, include_inherited and the write-once
// external_key_id; and the newest SDKs' model lifecycle fields (gaps §5b).

// modelLifecycles are the values of a model's lifecycle.
var modelLifecycles = []string{"active", "deprecated", "retired"}

func init() {
	wrl := "^/v1/organizations/workspaces/[^/]+/rate_limits$"
	kit.Register(
		kit.Check{ID: "models/lifecycle-fields", Clause: "gaps §5b", Labels: []kit.Label{kit.Models, kit.Extension},
			Title: "every model carries lifecycle (active, deprecated or retired), line, deprecated_at, retires_at and allowed_fallback_models, which the newest SDKs decode as required",
			Run: func(t *kit.T) {
				models := t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", 1000)
				t.Need("models", len(models), 1)
				for _, m := range models {
					for _, f := range []string{"lifecycle", "line", "deprecated_at", "retires_at", "allowed_fallback_models"} {
						t.Expect(m.Get(f).Exists()).To(BeTrue(), "model %s has no %s: %s", m.Get("id"), f, m.Raw)
					}
					t.Expect(modelLifecycles).To(ContainElement(m.Get("lifecycle").String()), "lifecycle of %s", m.Get("id"))
					t.Expect(m.Get("allowed_fallback_models").IsArray()).To(BeTrue(), "allowed_fallback_models of %s is an array: %s", m.Get("id"), m.Raw)
				}
			},
			Bug: &kit.Bug{Says: "models leave out retires_at", Want: "has no retires_at",
				Break: kit.DropsField(kit.On(http.MethodGet, "^/v1/models$"), "data.*.retires_at")}},
		kit.Check{ID: "models/lifecycle-agrees", Clause: "gaps §5b", Labels: []kit.Label{kit.Models, kit.Extension},
			Title: "a model's lifecycle fields agree: a deprecated or retired model names deprecated_at, a retired one retires_at, retires_at is not before deprecated_at, line is the line its ID names, and allowed_fallback_models are other listed models",
			Run: func(t *kit.T) {
				models := t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", 1000)
				t.Need("models", len(models), 1)
				listed := map[string]bool{}
				for _, m := range models {
					listed[m.Get("id").String()] = true
				}
				for _, m := range models {
					id := m.Get("id").String()
					life, dep, ret := m.Get("lifecycle").String(), m.Get("deprecated_at"), m.Get("retires_at")
					if life == "deprecated" || life == "retired" {
						t.Expect(dep.Type).To(Equal(gjson.String), "%s is %s, so it names deprecated_at: %s", id, life, m.Raw)
					}
					if life == "retired" {
						t.Expect(ret.Type).To(Equal(gjson.String), "%s is retired, so it names retires_at: %s", id, m.Raw)
					}
					if dep.Type == gjson.String && ret.Type == gjson.String {
						t.Expect(ret.Time().Before(dep.Time())).To(BeFalse(), "%s retires before it is deprecated: %s", id, m.Raw)
					}
					if line := m.Get("line"); line.Type == gjson.String {
						t.Expect(id).To(ContainSubstring("-"+line.String()+"-"), "the line of %s is the one its ID names: %s", id, m.Raw)
					}
					for _, f := range m.Get("allowed_fallback_models").Array() {
						t.Expect(f.String()).NotTo(Equal(id), "allowed_fallback_models of %s names the model itself", id)
						t.Expect(listed).To(HaveKey(f.String()), "allowed_fallback_models of %s names a listed model", id)
					}
				}
			},
			Bug: &kit.Bug{Says: "allowed_fallback_models names the model itself", Want: "names the model itself",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/v1/models$"), func(_ *http.Request, m map[string]any) {
					for _, x := range m["data"].([]any) {
						x := x.(map[string]any)
						if fb, ok := x["allowed_fallback_models"].([]any); ok {
							x["allowed_fallback_models"] = append(fb, x["id"])
						}
					}
				})}},
		kit.Check{ID: "admin/workspace-rate-limit-update-validation", Clause: "2.12", Labels: []kit.Label{kit.Admin, kit.Extension},
			Title: "a workspace rate-limit update naming a limiter type twice or one the group does not have is refused with 400 naming limits.N.type, an unknown rate_limit_id is 404, and a refused update changes nothing",
			Run: func(t *kit.T) {
				entries := OrgRateLimits(t)
				if len(entries) == 0 || entries[0].Get("id").String() == "" {
					t.Unsupported("the organization's rate limits have no entry with an id to update")
				}
				rl := entries[0]
				limiter := rl.Get("limits.0.type").String()
				ws := CreateWorkspace(t, map[string]any{"name": "conformance rate-limit validation"}).Get("id").String()
				path := "/v1/organizations/workspaces/" + ws + "/rate_limits"
				update := func(id string, limits ...map[string]any) *kit.Response {
					return t.Do(Req(http.MethodPost, path+"/"+id, "", map[string]any{"limits": limits}))
				}
				twice := update(rl.Get("id").String(), map[string]any{"type": limiter, "value": 7}, map[string]any{"type": limiter, "value": 8})
				kit.Served(t, twice, "POST /v1/organizations/workspaces/{workspace_id}/rate_limits/{rate_limit_id}")
				t.ExpectError(twice, http.StatusBadRequest, "invalid_request_error")
				t.Expect(twice.Get("error.message").String()).To(ContainSubstring("limits.1.type"), "a type named twice: %s", twice)
				unknown := update(rl.Get("id").String(), map[string]any{"type": "conformance_no_such_limiter", "value": 7})
				t.ExpectError(unknown, http.StatusBadRequest, "invalid_request_error")
				t.Expect(unknown.Get("error.message").String()).To(ContainSubstring("limits.0.type"), "a type the group does not have: %s", unknown)
				t.ExpectError(update("rl_conformance_no_such", map[string]any{"type": limiter, "value": 7}), http.StatusNotFound, "not_found_error")
				listed := t.OK(Req(http.MethodGet, path, "admin/workspace_rate_limit_list", nil))
				t.Expect(listed.Get("data").Array()).To(BeEmpty(), "refused updates leave the new workspace without overrides: %s", listed)
			},
			Bug: &kit.Bug{Says: "a limiter type named twice is taken once, the first value winning", Want: "-> 200",
				Break: kit.InRouteRequests(http.MethodPost, "^/v1/organizations/workspaces/[^/]+/rate_limits/[^/]+$", func(_ *http.Request, b map[string]any) {
					limits, _ := b["limits"].([]any)
					seen, kept := map[any]bool{}, []any{}
					for _, l := range limits {
						if typ := l.(map[string]any)["type"]; !seen[typ] {
							seen[typ], kept = true, append(kept, l)
						}
					}
					b["limits"] = kept
				})}},
		kit.Check{ID: "admin/workspace-rate-limits-include-inherited", Clause: "2.12", Labels: []kit.Label{kit.Admin, kit.Extension},
			Title: "with include_inherited=true a new workspace lists every organization group with the organization's values as source organization, without it none; a value that is not a boolean is refused with 400 naming include_inherited",
			Run: func(t *kit.T) {
				org := OrgRateLimits(t)
				t.Need("rate-limit entries", len(org), 1)
				ws := CreateWorkspace(t, map[string]any{"name": "conformance inherited"}).Get("id").String()
				path := "/v1/organizations/workspaces/" + ws + "/rate_limits"
				list := func(q url.Values) []gjson.Result {
					return t.WalkPages(kit.Request{Area: kit.Admin, Path: path, Query: q, Schema: "admin/workspace_rate_limit_list"}, 1000)
				}
				t.Expect(list(nil)).To(BeEmpty(), "without include_inherited a new workspace lists nothing")
				inherited := list(url.Values{"include_inherited": {"true"}})
				t.Expect(inherited).To(HaveLen(len(org)), "include_inherited=true lists every group of the organization")
				byID := map[string]gjson.Result{}
				for _, e := range inherited {
					byID[e.Get("rate_limit_id").String()] = e
				}
				for _, o := range org {
					e, ok := byID[o.Get("id").String()]
					t.Expect(ok).To(BeTrue(), "include_inherited=true lists the organization's entry %s", o.Get("id"))
					for _, l := range o.Get("limits").Array() {
						got := e.Get(`limits.#(type=="` + l.Get("type").String() + `")`)
						t.Expect(got.Get("value").Int()).To(Equal(l.Get("value").Int()), "inherited %s of %s: %s", l.Get("type"), o.Get("id"), e.Raw)
						t.Expect(got.Get("source.type").String()).To(Equal("organization"), "an inherited value's source: %s", e.Raw)
					}
				}
				bad := t.Do(kit.Request{Area: kit.Admin, Path: path, Query: url.Values{"include_inherited": {"sometimes"}}})
				t.ExpectError(bad, http.StatusBadRequest, "invalid_request_error")
				t.Expect(bad.Get("error.message").String()).To(ContainSubstring("include_inherited"))
			},
			Bug: &kit.Bug{Says: "include_inherited is ignored", Want: "include_inherited",
				Break: kit.IgnoresQuery(kit.On(http.MethodGet, wrl), "include_inherited")}},
		kit.Check{ID: "admin/workspace-external-key-write-once", Clause: "4.6", Labels: []kit.Label{kit.Admin, kit.Extension},
			Title: "external_key_id is write-once: once set it reads back, the same value again is accepted, another value is refused with 400 naming external_key_id and changes nothing",
			Run: func(t *kit.T) {
				w := CreateWorkspace(t, map[string]any{"name": "conformance external key"})
				t.Expect(w.Get("external_key_id").Exists()).To(BeTrue(), "a workspace answers external_key_id: %s", w.Raw)
				path := "/v1/organizations/workspaces/" + w.Get("id").String()
				key := "conformance-key-" + strings.ToLower(w.Get("id").String())
				set := t.OK(Req(http.MethodPost, path, "admin/workspace", map[string]any{"external_key_id": key}))
				t.Expect(set.Get("external_key_id").String()).To(Equal(key))
				t.OK(Req(http.MethodPost, path, "admin/workspace", map[string]any{"external_key_id": key}))
				other := t.Do(Req(http.MethodPost, path, "", map[string]any{"external_key_id": key + "-other"}))
				t.ExpectError(other, http.StatusBadRequest, "invalid_request_error")
				t.Expect(other.Get("error.message").String()).To(ContainSubstring("external_key_id"))
				t.Expect(t.OK(Req(http.MethodGet, path, "admin/workspace", nil)).Get("external_key_id").String()).To(Equal(key), "a refused replacement changes nothing")
			},
			Bug: &kit.Bug{Says: "a second, different external_key_id replaces the first", Want: "400",
				Break: admAnswersWithoutApplying("^/v1/organizations/workspaces/[^/]+$")}},
	)
}
