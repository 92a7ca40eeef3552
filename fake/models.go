package fake

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"time"
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
	encoded        []byte         // the record as JSON, encoded once at load: the catalogue never changes
}

// MarshalJSON answers the record encoded at load time.
func (m *modelInfo) MarshalJSON() ([]byte, error) { return m.encoded, nil }

// modelCatalog holds the models newest first (created_at descending, id breaking ties) and
// resolves IDs and aliases.
type modelCatalog struct {
	list []*modelInfo
	byID map[string]*modelInfo // IDs and aliases
}

func modelKey(m *modelInfo) listKey { return listKey{m.CreatedAt, m.ID} }
func modelID(m *modelInfo) string   { return m.ID }

func loadModels(fsys fs.FS, fx *Fixtures) error {
	var file struct {
		Models  []*modelInfo      `json:"models"`
		Aliases map[string]string `json:"aliases"`
	}
	if _, err := readFixture(fsys, "models.json", &file); err != nil {
		return err
	}
	cat := modelCatalog{list: file.Models, byID: map[string]*modelInfo{}}
	slices.SortFunc(cat.list, func(a, b *modelInfo) int { return newestFirst(modelKey(a), modelKey(b)) })
	for _, m := range cat.list {
		type plain modelInfo // without the MarshalJSON method
		var err error
		if m.encoded, err = encodeRecord((*plain)(m)); err != nil {
			return fmt.Errorf("models.json: %s: %w", m.ID, err)
		}
		cat.byID[m.ID] = m
	}
	for alias, target := range file.Aliases {
		m, ok := cat.byID[target]
		if !ok {
			return fmt.Errorf("models.json: alias %q points at unknown model %q", alias, target)
		}
		cat.byID[alias] = m
	}
	fx.models = cat
	return nil
}

// model resolves a model ID or alias; nil when unknown.
func (fx *Fixtures) model(idOrAlias string) *modelInfo { return fx.models.byID[idOrAlias] }

func (s *Server) listModels(c *call) (any, error) {
	q, err := c.cursorQuery()
	if err != nil {
		return nil, err
	}
	if v, ok, err := s.fromTape(c, nil, false); ok {
		return v, err
	}
	list := c.st.fx.models.list
	page, err := pageByCursor(list, modelKey, modelID, newestFirst, q, lookupIn(list, modelKey))
	if err != nil {
		return nil, err
	}
	return encodedPage(page, func(m *modelInfo) []byte { return m.encoded }), nil
}

func (s *Server) getModel(c *call) (any, error) {
	if v, ok, err := s.fromTape(c, nil, false); ok {
		return v, err
	}
	id := c.Param("model_id")
	m := c.st.fx.model(id)
	if m == nil {
		return nil, notFound("model", id)
	}
	return json.RawMessage(m.encoded), nil
}
