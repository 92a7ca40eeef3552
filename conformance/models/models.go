// Package models holds the conformance checks of the Models API (spec 2.10, 4.5): the model list,
// its order and pagination, and one model by ID. Its checks register with the framework (package
// kit) from init; the public face, package conformance, imports it.
package models

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/conformance/kit"
)

// walkModels pages through the whole list forwards with the given page size and returns the IDs.
func walkModels(t *kit.T, limit int) []string {
	return kit.IDsOf(t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", limit))
}

func init() {
	kit.Register(kit.InterfaceChecks(kit.Models, "/v1/models", "models/model_list")...)
	kit.Register(
		kit.Check{ID: "models/list-shape", Clause: "2.10", Labels: []kit.Label{kit.Models},
			Title: "every listed model has the fields of the reference (id, type model, display_name, created_at, max_input_tokens, max_tokens, capabilities), and the list has first_id, last_id and has_more",
			NoBug: "a schema check: proven by TestBrokenDeploymentsOneCause's model list of another shape, which it alone fails on",
			Run: func(t *kit.T) {
				data := t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", 1000)
				t.Need("models", len(data), 1)
			}},
		kit.Check{ID: "models/list-extension-fields", Clause: "gaps §5b", Labels: []kit.Label{kit.Models, kit.Extension},
			Title: "every listed model carries lifecycle, line, deprecated_at, retires_at, allowed_fallback_models and the capabilities the newest SDKs require",
			NoBug: "a schema check: proven by the shared schema mutations of the model list",
			Run: func(t *kit.T) {
				data := t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", 1000)
				t.Need("models", len(data), 1)
			}},
		kit.Check{ID: "models/list-newest-first", Clause: "4.5", Labels: []kit.Label{kit.Models},
			Title: "the model list is ordered by release time, most recent first",
			Run: func(t *kit.T) {
				data := t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", 1000)
				t.Need("models", len(data), 2)
				for i := 1; i < len(data); i++ {
					prev, cur := data[i-1].Get("created_at").Time(), data[i].Get("created_at").Time()
					t.Expect(prev.Before(cur)).To(BeFalse(), "%s is listed before the newer %s", data[i-1].Get("id"), data[i].Get("id"))
				}
			},
			Bug: &kit.Bug{Says: "the model list is oldest first", Want: "is listed before the newer",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/v1/models$"), func(_ *http.Request, m map[string]any) { slices.Reverse(m["data"].([]any)) })}},
		kit.Check{ID: "models/list-default-limit", Clause: "4.5", Labels: []kit.Label{kit.Models},
			Title: "without limit, a page holds at most 20 models",
			Run: func(t *kit.T) {
				all := len(walkModels(t, 1000))
				t.Need("models", all, 1)
				resp := t.OK(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"})
				t.Expect(resp.Get("data.#").Int()).To(BeNumerically("==", min(all, 20)), "a page without limit holds min(%d models, 20): %s", all, resp)
				t.Expect(resp.Get("has_more").Bool()).To(Equal(all > 20), "has_more says whether models are left after the first 20: %s", resp)
			},
			Bug: &kit.Bug{Says: "without limit, a page holds 10 models, not 20", Want: "min(",
				Break: kit.InQuery(kit.On(http.MethodGet, "^/v1/models$"), func(q url.Values) {
					if !q.Has("limit") {
						q.Set("limit", "10")
					}
				})}},
		kit.Check{ID: "models/list-pages-complete", Clause: "2.1", Labels: []kit.Label{kit.Models},
			Title: "paging forwards with after_id at every page size returns each model exactly once, in order",
			Run: func(t *kit.T) {
				all := walkModels(t, 1000)
				t.Need("models", len(all), 2)
				for _, size := range []int{1, 2, 3, 5, 7} {
					t.Expect(walkModels(t, size)).To(Equal(all), "page size %d", size)
				}
			},
			Bug: &kit.Bug{Says: "after_id is exclusive of one model too many: a model after each page boundary is skipped", Want: "page size",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/v1/models$"), func(r *http.Request, m map[string]any) {
					if data, _ := m["data"].([]any); r.URL.Query().Get("after_id") != "" && len(data) > 1 {
						m["data"], m["first_id"] = data[1:], data[1].(map[string]any)["id"]
					}
				})}},
		kit.Check{ID: "models/list-pages-backwards", Clause: "2.1", Labels: []kit.Label{kit.Models},
			Title: "paging backwards with before_id from the last model returns the models before it, in list order",
			Run: func(t *kit.T) {
				all := walkModels(t, 1000)
				t.Need("models", len(all), 3)
				got := kit.IDsOf(t.WalkCursorBackward(kit.Request{Area: kit.Models, Path: "/v1/models", Query: url.Values{"before_id": {all[len(all)-1]}}, Schema: "models/model_list"}, "data", 2))
				t.Expect(got).To(Equal(all[:len(all)-1]), "paging backwards from the last model gives every earlier model once, in list order")
			},
			Bug: &kit.Bug{Says: "has_more never turns false when paging backwards", Want: "has_more",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/v1/models$"), func(r *http.Request, m map[string]any) {
					if r.URL.Query().Get("before_id") != "" {
						m["has_more"] = true
					}
				})}},
		kit.Check{ID: "models/list-cursors", Clause: "gaps §3", Labels: []kit.Label{kit.Models, kit.Extension},
			Title: "first_id and last_id are the IDs of the first and last item, and null on an empty page",
			Run: func(t *kit.T) {
				all := walkModels(t, 1000)
				t.Need("models", len(all), 2)
				// A deployment may ignore limit and answer a longer page: the cursors name the
				// first and last item of the page it answered, whatever its length.
				resp := t.OK(kit.Request{Area: kit.Models, Path: "/v1/models", Query: url.Values{"limit": {"2"}}, Schema: "models/model_list"})
				page := kit.IDsOf(resp.Get("data").Array())
				t.Expect(page).NotTo(BeEmpty(), "the first page holds a model: %s", resp)
				t.Expect(resp.Get("first_id").String()).To(Equal(page[0]), "first_id is the first model's ID on the page: %s", resp)
				t.Expect(page[0]).To(Equal(all[0]), "the first page starts with the first model of the list: %s", resp)
				t.Expect(resp.Get("last_id").String()).To(Equal(page[len(page)-1]), "last_id is the last model's ID on the page: %s", resp)
				empty := t.OK(kit.Request{Area: kit.Models, Path: "/v1/models", Query: url.Values{"after_id": {all[len(all)-1]}}, Schema: "models/model_list"})
				t.Expect(empty.Get("data.#").Int()).To(BeZero())
				t.Expect(empty.Get("first_id").Type.String()).To(Equal("Null"))
				t.Expect(empty.Get("last_id").Type.String()).To(Equal("Null"))
				t.Expect(empty.Get("has_more").Bool()).To(BeFalse())
			},
			Bug: &kit.Bug{Says: "last_id is null on a full page", Want: "last_id",
				Break: kit.SetsField(kit.On(http.MethodGet, "^/v1/models$"), "last_id", nil)}},
		kit.Check{ID: "models/list-limit-range", Clause: "gaps §3", Labels: []kit.Label{kit.Models, kit.Extension},
			Title: "a limit outside 1 to 1000 is refused with 400 naming limit",
			Run: func(t *kit.T) {
				t.NoItemsNeeded()
				for _, bad := range []string{"0", "1001", "-1", "ten"} {
					resp := t.Do(kit.Request{Area: kit.Models, Path: "/v1/models", Query: url.Values{"limit": {bad}}})
					t.ExpectError(resp, http.StatusBadRequest, "invalid_request_error")
					t.Expect(resp.Get("error.message").String()).To(ContainSubstring("limit"))
				}
				t.OK(kit.Request{Area: kit.Models, Path: "/v1/models", Query: url.Values{"limit": {"1"}}, Schema: "models/model_list"})
				t.OK(kit.Request{Area: kit.Models, Path: "/v1/models", Query: url.Values{"limit": {"1000"}}, Schema: "models/model_list"})
			},
			Bug: &kit.Bug{Says: "a limit above 1000 is served, clamped, instead of refused", Want: "400",
				Break: kit.InQuery(kit.On(http.MethodGet, "^/v1/models$"), func(q url.Values) {
					if q.Get("limit") == "1001" {
						q.Set("limit", "1000")
					}
				})}},
		kit.Check{ID: "models/get-each-listed", Clause: "4.5", Labels: []kit.Label{kit.Models},
			Title: "every listed model can be read by its ID and reads the same as in the list",
			Run: func(t *kit.T) {
				listed := t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", 1000)
				t.Need("models", len(listed), 1)
				for _, m := range listed {
					one := t.OK(kit.Request{Area: kit.Models, Path: "/v1/models/" + url.PathEscape(m.Get("id").String()), Schema: "models/model"})
					t.Expect(one.JSON().Raw).To(MatchJSON(m.Raw), "model %s reads as it is listed", m.Get("id"))
				}
			},
			Bug: &kit.Bug{Says: "a model read by its ID has another display_name than in the list", Want: "reads as it is listed",
				Break: kit.SetsField(kit.On(http.MethodGet, "^/v1/models/[^/]+$"), "display_name", "Another name")}},
		kit.Check{ID: "models/get-alias", Clause: "2.10", Labels: []kit.Label{kit.Models},
			Title: "an alias resolves to a listed model whose ID is the dated identifier; an alias whose dated model is listed must resolve",
			Run: func(t *kit.T) {
				listed := map[string]bool{}
				for _, m := range t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", 1000) {
					listed[m.Get("id").String()] = true
				}
				resolved, tried := 0, 0
				for dated := range listed {
					for _, alias := range aliasesOf(dated) {
						tried++
						resp := t.Do(kit.Request{Area: kit.Models, Path: "/v1/models/" + url.PathEscape(alias.name), Schema: "models/model"})
						if resp.Status == http.StatusNotFound && !alias.documented {
							continue // an alias the reference does not name, which the deployment does not offer
						}
						t.Expect(resp.Status).To(Equal(http.StatusOK), "%s is listed, so its alias %s resolves (spec 2.10): %s", dated, alias.name, resp)
						t.Expect(resp.Get("id").String()).To(Equal(dated), "alias %s", alias.name)
						resolved++
					}
				}
				t.Need(fmt.Sprintf("resolved aliases of listed dated models (IDs ending -YYYYMMDD, of which it lists %d; %d aliases asked)", len(datedOf(listed)), tried), resolved, 1)
			},
			Bug: &kit.Bug{Says: "an alias reads as a model whose ID is the alias, not the dated identifier",
				Break: kit.InOKAnswers(kit.On(http.MethodGet, "^/v1/models/[^/]+$"), func(r *http.Request, m map[string]any) {
					m["id"] = strings.TrimPrefix(r.URL.Path, "/v1/models/")
				})}},
		kit.Check{ID: "models/release-time-is-a-timestamp", Clause: "gaps §5b", Labels: []kit.Label{kit.Models, kit.Extension},
			Title: "created_at is an RFC 3339 string for every model, the epoch when the release time is unknown, never a number",
			Run: func(t *kit.T) {
				models := t.WalkCursor(kit.Request{Area: kit.Models, Path: "/v1/models", Schema: "models/model_list"}, "data", 1000)
				t.Need("models", len(models), 1)
				for _, m := range models {
					at := m.Get("created_at")
					t.Expect(at.Type).To(Equal(gjson.String), "%s: created_at %s", m.Get("id"), at.Raw)
					_, err := time.Parse(time.RFC3339, at.String())
					t.Expect(err).NotTo(HaveOccurred(), "%s: created_at %s", m.Get("id"), at.Raw)
				}
			},
			Bug: &kit.Bug{Says: "created_at is a number of seconds", Want: "created_at",
				Break: kit.SetsField(kit.On(http.MethodGet, "^/v1/models$"), "data.*.created_at", 1776297600)}},
		kit.Check{ID: "models/get-unknown-404", Clause: "gaps §1", Labels: []kit.Label{kit.Models, kit.Extension},
			Title: "an unknown model ID is answered 404 not_found_error",
			Run: func(t *kit.T) {
				t.ExpectError(t.Do(kit.Request{Area: kit.Models, Path: "/v1/models/conformance-no-such-model"}), http.StatusNotFound, "not_found_error")
			},
			Bug: &kit.Bug{Says: "an unknown model ID is answered 400", Want: "404",
				Break: kit.AnswersStatus(kit.On(http.MethodGet, "^/v1/models/[^/]+$"), http.StatusNotFound, http.StatusBadRequest)}},
	)
}

// documentedAliases are the aliases the reference names (2.10), by the dated identifier they
// resolve to, in the family's words without the maker's prefix (assistant- in the reference,
// claude- on real deployments): a listed model of these must resolve by its alias.
var documentedAliases = map[string]string{
	"haiku-4-5-20251001": "haiku-4-5", "opus-4-5-20251101": "opus-4-5", "sonnet-4-5-20250929": "sonnet-4-5",
	"opus-4-1-20250805": "opus-4-1", "opus-4-20250514": "opus-4-0", "sonnet-4-20250514": "sonnet-4-0",
}

var datedID = regexp.MustCompile(`^(.*)-(20[0-9]{6})$`)

type alias struct {
	name       string
	documented bool
}

// aliasesOf are the aliases a dated model ID may have: the documented one of its family, and its
// ID without the date, under the model's own prefix.
func aliasesOf(id string) []alias {
	m := datedID.FindStringSubmatch(id)
	if m == nil {
		return nil
	}
	prefix, family, _ := strings.Cut(id, "-")
	if a, ok := documentedAliases[family]; ok {
		if a == strings.TrimPrefix(m[1], prefix+"-") {
			return []alias{{prefix + "-" + a, true}}
		}
		return []alias{{prefix + "-" + a, true}, {m[1], false}}
	}
	return []alias{{m[1], false}}
}

func datedOf(listed map[string]bool) []string {
	var out []string
	for id := range listed {
		if datedID.MatchString(id) {
			out = append(out, id)
		}
	}
	return out
}
