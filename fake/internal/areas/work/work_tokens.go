package work

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The per-item sessions token. A polled work item's secret is URL-safe base64 of
// {"sessions_token": "<token>"}, which the official SDKs' worker decodes and then presents as
// "Authorization: Bearer <token>" for that item's calls instead of the environment key: the
// item's heartbeats and stop, and its session's reads, events and tool results (and the skills
// its agent mounts). The token names its item and carries a MAC of it, so the fake issues it
// without storing it; it is good while its item exists and has not stopped. Elsewhere it is
// refused: another item or session is 404 to it (as to a key of another environment), a route
// of no item (poll, list, stats) or one that changes or ends a session is 403.

// tokenKey keys the MACs of secrets and tokens, fixed so that answers are the same from run to
// run.
var tokenKey = []byte("platformkit work secrets v1")

// tokenPrefix starts every sessions token; the item's ID follows, then "." and the MAC.
const tokenPrefix = "sktok_"

func mac(id string) string {
	m := hmac.New(sha256.New, tokenKey)
	m.Write([]byte(id))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// SessionsToken is the sessions token of the work item with the ID.
func SessionsToken(id string) string { return tokenPrefix + id + "." + mac(id) }

// workSecret is the secret of the work item with the ID: its sessions token, wrapped as the
// official SDKs' worker unwraps it.
func workSecret(id string) string {
	b, _ := json.Marshal(map[string]string{"sessions_token": SessionsToken(id)})
	return base64.RawURLEncoding.EncodeToString(b)
}

// tokenItem returns the work item ID a token names when its MAC is right.
func tokenItem(token string) (string, bool) {
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return "", false
	}
	id, sum, ok := strings.Cut(rest, ".")
	return id, ok && hmac.Equal([]byte(sum), []byte(mac(id)))
}

// admitToken is the area's Admit: a bearer token the fixtures do not know that is a live item's
// sessions token becomes a credential of kind KindSessionsToken, for the interfaces that take
// one; others refuse it with 403, as any credential of the wrong kind. Any other request keeps
// its error.
func admitToken(s *core.Server, _ *core.Route, r *http.Request, ifc *core.Iface, err error) (*core.Credential, string, error) {
	var e *core.APIError
	if !errors.As(err, &e) || e.Typ != "authentication_error" {
		return nil, "", err
	}
	id, ok := tokenItem(core.Presented(r, core.HeaderAuthorization))
	if !ok {
		return nil, "", err
	}
	cred, live := tokenCredential(StoreOf(s.State()), id)
	if cred == nil {
		return nil, "", err
	}
	if !live {
		return nil, "", core.NewError("authentication_error", "the sessions token of work item %s lapsed: the item stopped; poll for new work", id)
	}
	if !ifc.Takes(core.KindSessionsToken) {
		return nil, "", ifc.Refuse(cred)
	}
	return cred, core.HeaderAuthorization, nil
}

// tokenCredential is the credential of the sessions token of item id, and whether the item has
// not stopped; nil when no environment holds the item.
func tokenCredential(st *Store, id string) (*core.Credential, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, env := range st.envs {
		if it := env.byID[id]; it != nil {
			return &core.Credential{ID: "sessions_token_" + id, Kind: core.KindSessionsToken, Name: "sessions token of " + id,
				EnvironmentID: env.rec.ID, Org: env.org, WorkID: id, SessionID: it.rec.Data.ID}, it.rec.State != workStopped
		}
	}
	return nil, false
}

// tokenScope refuses a sessions token on a work route that is not its own item's: another
// environment's or item's is 404, a route of no item 403. Nil for any other credential.
func tokenScope(c *core.Call) error {
	if c.Cred.Kind != core.KindSessionsToken {
		return nil
	}
	env, id := c.Param("environment_id"), c.Param("work_id")
	switch {
	case id == "":
		return core.PermissionDenied("a work item's sessions token serves that item's lease (heartbeat, stop) and its session; %s %s takes the environment key or the API key", c.Request.Method, c.Route.Path)
	case env != c.Cred.EnvironmentID:
		return core.NotFound("environment", env)
	case id != c.Cred.WorkID:
		return core.NotFound("work item", id)
	}
	return nil
}
