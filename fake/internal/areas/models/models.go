package models

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Models (spec 2.10, 4.5). The catalogue is read-only, so handlers read the fixtures directly.

// modelInfo is the model info record of spec 2.10.
type modelInfo struct {
	ID             string         `json:"id"`
	Type           string         `json:"type"`
	DisplayName    string         `json:"display_name"`
	CreatedAt      time.Time      `json:"created_at"`
	MaxInputTokens int            `json:"max_input_tokens"`
	MaxTokens      int            `json:"max_tokens"`
	Capabilities   map[string]any `json:"capabilities"`
	// The lifecycle fields of the newest SDKs' ModelInfo; a fixture may set them, and without
	// them a model is active, with no deprecation or retirement scheduled.
	Lifecycle    string     `json:"lifecycle"`
	Line         *string    `json:"line"`
	DeprecatedAt *time.Time `json:"deprecated_at"`
	RetiresAt    *time.Time `json:"retires_at"`
	// AllowedFallbackModels are the models a request for this one may name in fallbacks (the
	// beta's ModelInfo); the same line's other models when the fixture does not say.
	AllowedFallbackModels []string        `json:"allowed_fallback_models"`
	encoded               []byte          // the record as JSON, encoded once at load: the catalogue never changes
	doc                   core.EncodedDoc // encoded with its newline: the answer of a read, written as it is
}

// MarshalJSON answers the record encoded at load time.
func (m *modelInfo) MarshalJSON() ([]byte, error) { return m.encoded, nil }

// modelCatalog holds the models newest first (created_at descending, id breaking ties) and
// resolves IDs and aliases.
type modelCatalog struct {
	List []*modelInfo
	byID map[string]*modelInfo // IDs and aliases
	// Pages are the list pages answered so far, whole documents written as they are: the
	// catalogue never changes, so a page is assembled once, not once per request.
	Pages *core.DocCache[ModelPageKey]
}

// ModelPageKey is what a page of the model list depends on: its query.
type ModelPageKey struct {
	After, before string
	Limit         int
}

func ModelKey(m *modelInfo) core.ListKey { return core.ListKey{At: m.CreatedAt, ID: m.ID} }
func ModelID(m *modelInfo) string        { return m.ID }

func loadModels(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		Models  []*modelInfo      `json:"models"`
		Aliases map[string]string `json:"aliases"`
	}
	if _, err := core.ReadFixture(fsys, "models.json", &file); err != nil {
		return err
	}
	cat := modelCatalog{List: file.Models, byID: map[string]*modelInfo{}, Pages: &core.DocCache[ModelPageKey]{}}
	slices.SortFunc(cat.List, func(a, b *modelInfo) int { return core.NewestFirst(ModelKey(a), ModelKey(b)) })
	for _, m := range cat.List {
		completeModel(m, cat.List)
		type plain modelInfo // without the MarshalJSON method
		var err error
		if m.encoded, err = core.EncodeRecord((*plain)(m)); err != nil {
			return fmt.Errorf("models.json: %s: %w", m.ID, err)
		}
		m.doc = append(m.encoded, '\n')
		m.encoded = m.doc[: len(m.doc)-1 : len(m.doc)-1]
		cat.byID[m.ID] = m
	}
	for alias, target := range file.Aliases {
		m, ok := cat.byID[target]
		if !ok {
			return fmt.Errorf("models.json: alias %q points at unknown model %q", alias, target)
		}
		cat.byID[alias] = m
	}
	*ModelsSection.In(fx.Sections) = cat
	return nil
}

// modelLines are the model lines of the newest SDKs' ModelInfo.line.
var modelLines = []string{"haiku", "sonnet", "opus", "fable", "mythos"}

// completeModel fills what a fixture left out of m with the defaults the newest SDKs' ModelInfo
// needs: lifecycle active, the line its ID names (assistant-<line>-...), the same line's other
// models as fallbacks, and the capabilities derived from the ones the fixture states (the
// server tools follow code_execution, compaction follows compact_20260112, thinking can always
// be disabled and never runs between tools only).
func completeModel(m *modelInfo, all []*modelInfo) {
	line := func(id string) string {
		for _, l := range modelLines {
			if strings.HasPrefix(id, "assistant-"+l+"-") {
				return l
			}
		}
		return ""
	}
	if m.Lifecycle == "" {
		m.Lifecycle = "active"
	}
	if l := line(m.ID); m.Line == nil && l != "" {
		m.Line = &l
	}
	if m.AllowedFallbackModels == nil {
		m.AllowedFallbackModels = []string{}
		for _, o := range all {
			if o != m && m.Line != nil && line(o.ID) == *m.Line {
				m.AllowedFallbackModels = append(m.AllowedFallbackModels, o.ID)
			}
		}
	}
	caps := m.Capabilities
	if caps == nil {
		return
	}
	supported := func(path ...string) bool {
		var v any = caps
		for _, p := range path {
			mv, _ := v.(map[string]any)
			v = mv[p]
		}
		b, _ := v.(bool)
		return b
	}
	leaf := func(b bool) map[string]any { return map[string]any{"supported": b} }
	if _, ok := caps["server_tools"]; !ok {
		ce := supported("code_execution", "supported")
		caps["server_tools"] = map[string]any{"supported": true, "code_execution": leaf(ce), "web_search": leaf(true)}
	}
	if _, ok := caps["compaction"]; !ok {
		c := supported("context_management", "compact_20260112", "supported")
		caps["compaction"] = map[string]any{"supported": c, "summarize": leaf(c)}
	}
	if th, ok := caps["thinking"].(map[string]any); ok {
		if types, ok := th["types"].(map[string]any); ok {
			if _, ok := types["disabled"]; !ok {
				types["disabled"] = leaf(true)
			}
			if _, ok := types["between_tools"]; !ok {
				types["between_tools"] = leaf(false)
			}
		}
	}
}

// Find resolves a model ID or alias; nil when unknown.
func Find(fx *core.Fixtures, idOrAlias string) *modelInfo {
	return ModelsSection.In(fx.Sections).byID[idOrAlias]
}

func listModels(s *core.Server, c *core.Call) (any, error) {
	q, err := c.CursorQuery()
	if err != nil {
		return nil, err
	}
	if v, ok, err := core.Replayed(s, c); ok {
		return v, err
	}
	cat := ModelsSection.In(c.St.Fx.Sections)
	key := ModelPageKey{q.AfterID, q.BeforeID, q.Limit}
	if doc := cat.Pages.Get(key); doc != nil {
		return doc, nil
	}
	page, err := core.PageByCursor(cat.List, ModelKey, ModelID, core.NewestFirst, q, core.LookupIn(cat.List, ModelKey))
	if err != nil {
		return nil, err
	}
	return cat.Pages.Put(key, core.EncodedPage(page, func(m *modelInfo) []byte { return m.encoded })), nil
}

func getModel(s *core.Server, c *core.Call) (any, error) {
	if v, ok, err := core.Replayed(s, c); ok {
		return v, err
	}
	id := c.Param("model_id")
	m := Find(c.St.Fx, id)
	if m == nil {
		return nil, core.NotFound("model", id)
	}
	return m.doc, nil
}
