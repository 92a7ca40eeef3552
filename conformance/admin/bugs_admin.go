package admin

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Defects of the administration interface, for the bug declarations of the admin checks.

// The routes of the administration interface, as patterns of on.
const (
	admMe                = `^/v1/organizations/me$`
	InvitesRoute         = `^/v1/organizations/invites$`
	admInvite            = `^/v1/organizations/invites/[^/]+$`
	admUsers             = `^/v1/organizations/users$`
	admUser              = `^/v1/organizations/users/[^/]+$`
	WorkspacesRoute      = `^/v1/organizations/workspaces$`
	admWorkspace         = `^/v1/organizations/workspaces/[^/]+$`
	RateLimitsRoute      = `^/v1/organizations/rate_limits$`
	WorkspaceLimitsRoute = `^/v1/organizations/workspaces/[^/]+/rate_limits$`
)

// admInviteEmail is the bug of an invite create that reads the email wrongly: edit rewrites it.
func admInviteEmail(edit func(email string) string) func(http.Handler) http.Handler {
	return kit.InRouteRequests(http.MethodPost, InvitesRoute, func(_ *http.Request, b map[string]any) {
		if e, ok := b["email"].(string); ok {
			b["email"] = edit(e)
		}
	})
}

// admFresh is an address no member or invite has, for a bug that accepts what it should refuse.
func admFresh(string) string { return freshEmail("bug") }

// admHasUpper reports whether s has an upper-case letter.
func admHasUpper(s string) bool { return strings.ToLower(s) != s }

// admShift moves the timestamp at key of an answer's object by d.
func admShift(key string, d time.Duration) func(_ *http.Request, m map[string]any) {
	return func(_ *http.Request, m map[string]any) { kit.ShiftTime(m, key, d) }
}

// admRearchives is the bug of an archive that archives an archived workspace again: the second
// archive answers a later archived_at (a second after the first).
func admRearchives(h http.Handler) http.Handler {
	isArchive := kit.On(http.MethodPost, `^/v1/organizations/workspaces/[^/]+/archive$`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isArchive(r) {
			h.ServeHTTP(w, r)
			return
		}
		ws := strings.TrimSuffix(r.URL.Path, "/archive")
		before := kit.ReadState(h, r, ws)
		if before == nil || before["archived_at"] == nil {
			h.ServeHTTP(w, r)
			return
		}
		kit.InOKAnswers(func(*http.Request) bool { return true }, func(_ *http.Request, m map[string]any) {
			kit.SecondLater(m, "archived_at")
		})(h).ServeHTTP(w, r)
	})
}

// admNotFoundAsEmpty is the bug of a rate-limit list that answers a model filter it has no
// entry for with an empty page instead of 404.
func admNotFoundAsEmpty(h http.Handler) http.Handler {
	isList := kit.On(http.MethodGet, RateLimitsRoute)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isList(r) || !r.URL.Query().Has("model") {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusNotFound {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"data":[],"next_page":null}`))
			return
		}
		kit.CopyAnswer(w, rec)
	})
}

// admOverridesEverything is the bug of a workspace rate-limit list that lists the organization's
// entries as overrides of a workspace that has none.
func admOverridesEverything(h http.Handler) http.Handler {
	return kit.EditAnswers(h, kit.On(http.MethodGet, WorkspaceLimitsRoute), func(r *http.Request, status int, _ http.Header, b []byte) []byte {
		var m map[string]any
		if status != http.StatusOK || json.Unmarshal(b, &m) != nil {
			return b
		}
		if d, _ := m["data"].([]any); len(d) > 0 {
			return b
		}
		org := kit.ReadState(h, r, "/v1/organizations/rate_limits")
		data := []any{}
		kit.EachDataItem(org, func(e map[string]any) {
			limits := []any{}
			ls, _ := e["limits"].([]any)
			for _, l := range ls {
				if lm, ok := l.(map[string]any); ok {
					limits = append(limits, map[string]any{"type": lm["type"], "value": lm["value"], "org_limit": lm["value"], "source": map[string]any{"type": "workspace"}})
				}
			}
			data = append(data, map[string]any{"type": "workspace_rate_limit", "group": e["group"], "group_type": e["group_type"], "models": e["models"], "limits": limits,
				"rate_limit_id": e["id"], "workspace_id": strings.Split(r.URL.Path, "/")[4]})
		})
		m["data"] = data
		out, _ := json.Marshal(m)
		return out
	})
}

// admPagesOfTwoSkip is the bug of a list (of paths matching pattern) whose pages of two, after
// the first (the request carries cursor), leave out their first item.
func admPagesOfTwoSkip(pattern, cursor string) func(http.Handler) http.Handler {
	return kit.InOKAnswers(func(r *http.Request) bool {
		q := r.URL.Query()
		return kit.On(http.MethodGet, pattern)(r) && q.Has(cursor) && q.Get("limit") == "2"
	}, func(_ *http.Request, m map[string]any) {
		if d, _ := m["data"].([]any); len(d) == 2 {
			m["data"] = d[1:]
		}
	})
}

// admKeepsRole is the bug of a user update that answers 200 but keeps the user's old role.
func admKeepsRole(h http.Handler) http.Handler {
	return kit.InRouteRequests(http.MethodPost, admUser, func(r *http.Request, b map[string]any) {
		if cur := kit.ReadState(h, r, r.URL.Path); cur != nil && b["role"] != nil {
			b["role"] = cur["role"]
		}
	})(h)
}

// DefaultOutsideAllowed gives a workspace with an explicit allowed_inference_geos list a
// default_inference_geo that list leaves out.
func DefaultOutsideAllowed(w map[string]any) {
	dr, _ := w["data_residency"].(map[string]any)
	allowed, ok := dr["allowed_inference_geos"].([]any)
	if !ok {
		return
	}
	for _, g := range []string{"us", "global"} {
		if !slices.Contains(allowed, any(g)) {
			dr["default_inference_geo"] = g
			return
		}
	}
}

// admDeletes is the bug of a delete (of paths matching pattern) that takes what it should
// refuse: an answer of status from is replaced by the confirmation {id, type: kind}.
func admDeletes(pattern string, from int, kind string) func(http.Handler) http.Handler {
	return kit.InAnswers(kit.On(http.MethodDelete, pattern), func(r *http.Request, status int, hd http.Header, b []byte) []byte {
		if status != from {
			return b
		}
		out, _ := json.Marshal(map[string]any{"id": r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], "type": kind})
		hd.Set("Content-Type", "application/json")
		return out
	})
}

// admStatusOK is the bug of a delete that confirms, with 200 and {id, type: kind}, what it
// should refuse with status from.
func admStatusOK(pattern string, from int, kind string) func(http.Handler) http.Handler {
	return kit.Both(admDeletes(pattern, from, kind), kit.RouteAnswersStatus(http.MethodDelete, pattern, from, http.StatusOK))
}

// admCapArchivesOldest is the bug of an organization that takes a 101st active workspace by
// archiving one of its active workspaces instead of refusing the create.
func admCapArchivesOldest(h http.Handler) http.Handler {
	isCreate := kit.On(http.MethodPost, WorkspacesRoute)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isCreate(r) {
			h.ServeHTTP(w, r)
			return
		}
		body := kit.ReadBody(r)
		rec := kit.Replay(h, r, body, nil)
		if rec.Code == http.StatusBadRequest && strings.Contains(rec.Body.String(), "100") {
			if list := kit.ReadState(h, r, "/v1/organizations/workspaces?limit=1"); list != nil {
				kit.EachDataItem(list, func(ws map[string]any) {
					kit.CallState(h, r, http.MethodPost, "/v1/organizations/workspaces/"+kit.Str(ws, "id")+"/archive", nil)
				})
				rec = kit.Replay(h, r, body, nil)
			}
		}
		kit.CopyAnswer(w, rec)
	})
}

// admAnswersWithoutApplying is the bug of a target that answers a POST update to a path matching
// pattern as if it applied the fields sent, but changes nothing: the answer is the object as
// read before, with the fields sent written over it.
func admAnswersWithoutApplying(pattern string) func(http.Handler) http.Handler {
	match := kit.On(http.MethodPost, pattern)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				h.ServeHTTP(w, r)
				return
			}
			var sent map[string]any
			if b, err := io.ReadAll(r.Body); err != nil || json.Unmarshal(b, &sent) != nil {
				h.ServeHTTP(w, r)
				return
			}
			get := r.Clone(r.Context())
			get.Method, get.Body, get.ContentLength = http.MethodGet, http.NoBody, 0
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, get)
			var obj map[string]any
			if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &obj) != nil {
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
				return
			}
			for k, v := range sent {
				obj[k] = v
			}
			out, _ := json.Marshal(obj)
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.Header().Del("Content-Length")
			w.Write(out)
		})
	}
}
