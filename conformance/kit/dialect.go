package kit

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/schemas"
)

// The two spellings of the maker's name in header names: the reference writes vendor-version
// and vendor-beta; real deployments and the official SDKs send anthropic-version and
// anthropic-beta. The preflight finds which one a deployment reads (Target.discover), and every
// request of the run uses it.
const (
	VendorVersion = "vendor-version"
	MakerVersion  = "anthropic-version"

	KeyInXAPIKey       = "x-api-key"
	KeyInAuthorization = "authorization"
)

// dialectHeader is the name header h goes out under: vendor-version and vendor-beta (as the
// checks write them, in the reference's words) in the maker's spelling when the run sends
// anthropic-version. Other vendor-* request headers (Vendor-Worker-ID) go as written: no client
// of the maker's shows another name for them.
func (c Config) dialectHeader(h string) string {
	if c.VersionHeader != MakerVersion {
		return h
	}
	switch strings.ToLower(h) {
	case "vendor-version":
		return MakerVersion
	case "vendor-beta":
		return "anthropic-beta"
	}
	return h
}

// probeScore ranks an answer to GET /v1/models by how much of the API it shows: a list of
// models in its schema, a list of another shape, the API's error envelope, or nothing of the API.
func probeScore(resp *Response) int {
	switch {
	case resp.Status == http.StatusOK && resp.mediaType() == "application/json" && notAModelList(resp) == "":
		score := 3
		if resp.Get("data.0.type").String() == "model" {
			score++ // the reference's model objects, not another API's list of names
		}
		if schemas.Validate("models/model_list", resp.Body, schemas.Lenient) == nil {
			score++
		}
		return score
	case resp.Status >= 400 && resp.notAPIError() == "" && versionRefused("", "", resp) == "":
		return 2
	}
	return 0
}

// discover finds how the deployment speaks before the first check: which version header it
// reads, which header takes the API key, the models it lists, and which routes of Messages and
// Models it does not serve (each a Cause that blocks the checks needing it). Each setting
// (CONFORMANCE_VERSION_HEADER, CONFORMANCE_KEY_HEADER, CONFORMANCE_MODEL) replaces what would be
// found. It returns one line when the run must stop (the target is not the API, the API key is
// refused, the target cannot be reached), else "".
func (tg *Target) discover(ctx context.Context) string {
	cfg := &tg.Config
	versions := []string{VendorVersion, MakerVersion}
	if cfg.VersionHeader != "" {
		versions = []string{cfg.VersionHeader}
	}
	keys := []string{KeyInXAPIKey, KeyInAuthorization}
	if cfg.KeyHeader != "" || cfg.APIKey == "" {
		keys = []string{cmp.Or(cfg.KeyHeader, KeyInXAPIKey)}
	}
	get := func(vh, kh string) (*Response, error) {
		c := *tg.Client
		c.Config.VersionHeader, c.Config.KeyHeader = vh, kh
		return c.Do(ctx, &Request{Area: Models, Path: "/v1/models"})
	}
	var best *Response
	bestScore := -1
	found := [2]string{versions[0], keys[0]}
	for _, kh := range keys {
		for _, vh := range versions {
			resp, err := get(vh, kh)
			if err != nil {
				return fmt.Sprintf("cannot reach %s: %v", cfg.BaseURL, transportCause(err))
			}
			// A version refused under the header the target reads stops the run, whatever the
			// other header got.
			if line := versionRefused(cfg.BaseURL, cfg.APIVersion, resp); line != "" {
				return line
			}
			if s := probeScore(resp); s > bestScore {
				best, bestScore, found = resp, s, [2]string{vh, kh}
			}
		}
		// Another key header is tried only when this one's key was refused.
		if best.Status != http.StatusUnauthorized && best.Status != http.StatusForbidden {
			break
		}
	}
	cfg.VersionHeader, cfg.KeyHeader = found[0], found[1]
	tg.Client.Config = *cfg
	if cfg.APIKey != "" && (best.Status == http.StatusUnauthorized || best.Status == http.StatusForbidden) {
		tried := make([]string, len(keys))
		for i, k := range keys {
			tried[i] = keyHeaderName(k)
		}
		return fmt.Sprintf("CONFORMANCE_API_KEY rejected: GET /v1/models answered %s with %s: %s",
			best.kind(), strings.Join(tried, " and with "), bounded(best.Body, 500))
	}
	switch {
	case bestScore >= 3:
		tg.models = best.Get("data").Array()
		if err := schemas.Validate("models/model_list", best.Body, schemas.Lenient); err != nil && !extensionDeviation("models/model_list", err) {
			tg.addCause(schemaCause("models/model_list", err), fmt.Sprintf("GET /v1/models answers a model list of another shape (reference 2.10, 4.5): %v", err), "models/list-shape", deviationFields(err)...)
		}
		// A listed model read by its ID: a 404 or 405 that is not the API's error envelope (a web
		// framework's "no such route") says the route is not served; the API's own 404 for a
		// model it lists is the deviation models/get-each-listed holds.
		if id := best.Get("data.0.id").String(); id != "" {
			resp, err := tg.Client.Do(ctx, &Request{Area: Models, Path: "/v1/models/" + url.PathEscape(id)})
			if err == nil && (resp.Status == http.StatusNotFound || resp.Status == http.StatusMethodNotAllowed) && resp.Get("error.type").Type != gjson.String {
				tg.addCause(routeCause(http.MethodGet, itemRoute("/v1/models")), fmt.Sprintf("GET %s is not served (%s): the checks that read a model by its ID do not run", itemRoute("/v1/models"), resp.kind()), "")
			}
		}
	case best.Status == http.StatusNotFound || best.Status == http.StatusMethodNotAllowed:
		// No model list: the API all the same if it serves Messages.
		if !tg.serves(ctx, http.MethodPost, "/v1/messages") {
			return tg.notTheAPI(best, "no list of models")
		}
		tg.addCause(routeCause(http.MethodGet, "/v1/models"), fmt.Sprintf("GET /v1/models is not served (%s): the model list and the checks that read it do not run%s", best.kind(), withoutList(cfg.Model)), "")
	case bestScore < 2:
		return tg.notTheAPI(best, whyNotModels(best))
	}
	for _, route := range []string{"/v1/messages", "/v1/messages/count_tokens", "/v1/complete"} {
		if !tg.serves(ctx, http.MethodPost, route) {
			tg.addCause(routeCause(http.MethodPost, route), fmt.Sprintf("POST %s is not served: the checks that send it do not run", route), "")
		}
	}
	// Message batches: a target that does not create them serves none of their routes, so one
	// cause blocks every batch check, whichever route it sends first (a malformed batch's checks
	// read the list before they create).
	if !tg.serves(ctx, http.MethodPost, batchesRoute) {
		c := tg.addCause(routeCause(http.MethodPost, batchesRoute), fmt.Sprintf("%s is not served (POST answered 404 or 405): the checks of message batches do not run", batchesRoute), "")
		tg.causes.LoadOrStore(routeCause(http.MethodGet, batchesRoute), c)
	}
	// count_tokens computes without generating: asked of the model, it shows whether the route
	// takes this key (a proxy may lack the upstream credential it needs), at no cost.
	if id, _ := tg.model(); id != "" && cfg.APIKey != "" && tg.Serves(http.MethodPost, "/v1/messages/count_tokens") {
		r := Request{Area: Messages, Method: http.MethodPost, Path: "/v1/messages/count_tokens",
			Body: map[string]any{"model": id, "messages": []any{map[string]any{"role": "user", "content": "Hello"}}}}
		if resp, err := tg.Client.Do(ctx, &r); err == nil && (resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden) {
			tg.addCause("refused POST /v1/messages/count_tokens", fmt.Sprintf("POST /v1/messages/count_tokens refuses the API key the preflight's GET /v1/models accepted: %s: %s",
				resp.kind(), bounded(resp.Body, 300)), "")
		}
	}
	return ""
}

// withoutList is what the cause of a missing model list adds: how the Messages checks run
// without it, when nothing names a model yet.
func withoutList(model string) string {
	if model != "" {
		return ""
	}
	return ", nor do the Messages checks, which need a model: CONFORMANCE_MODEL names one"
}

// batchesRoute is the collection of message batches, whose create the preflight probes.
const batchesRoute = "/v1/messages/batches"

// keyHeaderName is how a key header is written in a line for people.
func keyHeaderName(h string) string {
	if h == KeyInAuthorization {
		return "Authorization: Bearer"
	}
	return "X-Api-Key"
}

// serves reports whether the target answers method path with anything but 404 or 405: an empty
// body, which every route of the API refuses without doing anything, tells a route that exists.
func (tg *Target) serves(ctx context.Context, method, path string) bool {
	resp, err := tg.Client.Do(ctx, &Request{Area: Messages, Method: method, Path: path, Body: map[string]any{}})
	return err != nil || resp.Status != http.StatusNotFound && resp.Status != http.StatusMethodNotAllowed
}

// whyNotModels says why an answer to GET /v1/models is not the API's.
func whyNotModels(resp *Response) string {
	switch {
	case resp.Status == http.StatusOK && resp.mediaType() != "application/json":
		return "not JSON"
	case resp.Status == http.StatusOK:
		return notAModelList(resp)
	case resp.Status >= 400:
		return resp.notAPIError()
	}
	return "neither a list of models nor an error"
}

// notTheAPI is the line of a target that is not the API's root: the answer, and the likely mistake.
func (tg *Target) notTheAPI(resp *Response, wrong string) string {
	line := fmt.Sprintf("GET /v1/models answered %s (%s): ", resp.kind(), wrong)
	if u, err := url.Parse(tg.Config.BaseURL); err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") {
		return line + "is CONFORMANCE_BASE_URL the API's root, without /v1?"
	}
	return line + fmt.Sprintf("is %s the Platform API? CONFORMANCE_BASE_URL must be the API's root, the URL its paths /v1/... are under", tg.Config.BaseURL)
}

// bounded is at most n bytes of b for a line, with the size of what was cut.
func bounded(b []byte, n int) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(s[:n], ""), len(b))
}

// DialectLine is the preflight's one line of how the run speaks to the target.
func (tg *Target) DialectLine() string {
	model := "no model (CONFORMANCE_MODEL names one)"
	if id, _ := tg.model(); id != "" {
		model = "model " + id
		if tg.Config.Model == "" {
			model += fmt.Sprintf(" (the newest of %d listed; CONFORMANCE_MODEL names another)", len(tg.models))
		}
	}
	return fmt.Sprintf("conformance: sending the API version in %s and the API key in %s, to %s",
		tg.Config.VersionHeader, keyHeaderName(tg.Config.KeyHeader), model)
}

// model is the model the Messages checks talk to and its max_tokens (0 when not listed).
func (tg *Target) model() (string, int64) {
	for _, m := range tg.models {
		if tg.Config.Model == "" || m.Get("id").String() == tg.Config.Model {
			return m.Get("id").String(), m.Get("max_tokens").Int()
		}
	}
	return tg.Config.Model, 0
}

// Models are the models the deployment listed in the preflight (its first page), newest first.
func (tg *Target) Models() []gjson.Result { return tg.models }

// Model is the model the check talks to and its max_tokens (0 when the list does not say it):
// CONFORMANCE_MODEL, else the newest the deployment listed in the preflight. Without one, the
// check ends blocked by the missing model list, or unsupported when the list holds no model.
func (t *T) Model() (string, int64) {
	id, max := t.Target.model()
	if id != "" {
		return id, max
	}
	if c := t.Target.causeOf(routeCause(http.MethodGet, "/v1/models")); c != nil {
		t.blockedBy(c)
	}
	// The preflight found none (its answer was a refusal, say): the list, asked again, is what
	// the check meets.
	m := t.OK(Request{Area: Models, Path: "/v1/models", Query: url.Values{"limit": {"1"}}, Schema: "models/model_list"}).Get("data.0")
	if m.Exists() {
		return m.Get("id").String(), m.Get("max_tokens").Int()
	}
	t.Unsupported("needs a model to send messages to: GET /v1/models lists none, and CONFORMANCE_MODEL names none")
	return "", 0
}

// ModelMaxTokens is Model for a check that needs the model's max_tokens (2.10): when the model
// list does not say it, the check ends blocked by the list's shape, or unsupported.
func (t *T) ModelMaxTokens() (string, int64) {
	id, max := t.Model()
	if max > 0 {
		return id, max
	}
	t.Target.causes.Range(func(k, v any) bool {
		if strings.HasPrefix(k.(string), "schema models/model_list") {
			t.blockedBy(v.(*cause))
		}
		return true
	})
	t.Unsupported("needs the max_tokens of model %s, which the model list does not give", id)
	return "", 0
}
