package fake

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	"github.com/platformkit/platformkit/fake/internal/areas/models"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/gin-gonic/gin"

	"github.com/tidwall/gjson"
)

func TestModelsListNewestFirstWithTieByID(t *testing.T) {
	s := checked(t)
	w := send(t, s, "GET", "/v1/models?limit=1000", "", modelsHeaders...)
	data := gjson.Get(w.Body.String(), "data").Array()
	if len(data) != 11 {
		t.Fatalf("%d models, want the 11 of the fixtures", len(data))
	}
	var order []string
	for _, m := range data {
		order = append(order, m.Get("id").String())
	}
	// Sonnet 4 and Opus 4 were released the same day; the higher ID comes first. The model
	// whose release time is unknown (the Epoch()) comes last.
	if i, j := indexOf(order, "assistant-sonnet-4-20250514"), indexOf(order, "assistant-opus-4-20250514"); i+1 != j {
		t.Errorf("tie order: sonnet-4 at %d, opus-4 at %d", i, j)
	}
	if order[len(order)-1] != "assistant-mythos-preview" || data[len(data)-1].Get("created_at").String() != "1970-01-01T00:00:00Z" {
		t.Errorf("last model = %s, want the Epoch()-dated preview", order[len(order)-1])
	}
	if got := gjson.Get(send(t, s, "GET", "/v1/models", "", modelsHeaders...).Body.String(), "data.#").Int(); got != 11 {
		t.Errorf("default page holds %d models", got)
	}
	w = send(t, s, "GET", "/v1/models?limit=4", "", modelsHeaders...)
	if !gjson.Get(w.Body.String(), "has_more").Bool() || gjson.Get(w.Body.String(), "last_id").String() != order[3] {
		t.Errorf("limit=4 page: %s", w.Body)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestModelsGetByIDAndAlias(t *testing.T) {
	s := checked(t)
	for _, id := range []string{
		"assistant-opus-4-7", "assistant-mythos-preview", "assistant-opus-4-6", "assistant-sonnet-4-6",
		"assistant-haiku-4-5", "assistant-haiku-4-5-20251001", "assistant-opus-4-5", "assistant-opus-4-5-20251101",
		"assistant-sonnet-4-5", "assistant-sonnet-4-5-20250929", "assistant-opus-4-1", "assistant-opus-4-1-20250805",
		"assistant-opus-4-0", "assistant-opus-4-20250514", "assistant-sonnet-4-0", "assistant-sonnet-4-20250514",
		"assistant-3-haiku-20240307",
	} {
		w := send(t, s, "GET", "/v1/models/"+id, "", modelsHeaders...)
		if w.Code != 200 {
			t.Errorf("GET %s: %d", id, w.Code)
		}
	}
	w := send(t, s, "GET", "/v1/models/assistant-opus-4-0", "", modelsHeaders...)
	if got := gjson.Get(w.Body.String(), "id").String(); got != "assistant-opus-4-20250514" {
		t.Errorf("alias resolved to %q", got)
	}
	wantError(t, send(t, s, "GET", "/v1/models/assistant-nope", "", modelsHeaders...), 404, core.ErrNotFound, "assistant-nope")
}

// TestModelBodyIsTheListRecord: a model is encoded once at load and written as it is, so the
// single-model answer is byte for byte the record of the list, with its length declared.
func TestModelBodyIsTheListRecord(t *testing.T) {
	s := checked(t)
	list := send(t, s, "GET", "/v1/models?limit=1000", "", modelsHeaders...)
	for _, m := range gjson.Get(list.Body.String(), "data").Array() {
		w := send(t, s, "GET", "/v1/models/"+m.Get("id").String(), "", modelsHeaders...)
		if want := m.Raw + "\n"; w.Body.String() != want {
			t.Errorf("GET %s:\n got %q\nwant %q", m.Get("id"), w.Body, want)
		}
		if got, want := w.Header().Get("Content-Length"), strconv.Itoa(w.Body.Len()); got != want {
			t.Errorf("GET %s: Content-Length %q, want %q", m.Get("id"), got, want)
		}
	}
}

// TestModelPagesAsEncoded: list pages splice the records encoded at load into the page; the
// bytes are those of encoding the page whole, whatever the cursor.
func TestModelPagesAsEncoded(t *testing.T) {
	s := checked(t)
	fx, _ := core.DefaultFixtures()
	table := core.Routes()
	list := table[slices.IndexFunc(table, func(rt *core.Route) bool { return rt.Method == core.Get && rt.Path == "/v1/models" })]
	for _, q := range []string{"", "?limit=3", "?limit=2&after_id=assistant-opus-4-6", "?before_id=assistant-opus-4-6", "?after_id=assistant-mythos-preview"} {
		c := &core.Call{X: &core.Exchange{}, Context: &gin.Context{Request: httptest.NewRequest("GET", "/v1/models"+q, nil)}, Route: list}
		cq, err := c.CursorQuery()
		if err != nil {
			t.Fatal(err)
		}
		page, err := core.PageByCursor(models.ModelsSection.In(fx.Sections).List, models.ModelKey, models.ModelID, core.NewestFirst, cq, core.LookupIn(models.ModelsSection.In(fx.Sections).List, models.ModelKey))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := send(t, s, "GET", "/v1/models"+q, "", modelsHeaders...).Body.String(), encodedWhole(t, page); got != want {
			t.Errorf("GET /v1/models%s:\n got %s\nwant %s", q, got, want)
		}
	}
}

func TestModelsLimitRange(t *testing.T) {
	s := checked(t)
	for _, bad := range []string{"0", "1001", "x", "-5"} {
		wantError(t, send(t, s, "GET", "/v1/models?limit="+bad, "", modelsHeaders...), 400, core.ErrInvalidRequest, "limit")
	}
	wantError(t, send(t, s, "GET", "/v1/models?after_id=a&before_id=b", "", modelsHeaders...), 400, core.ErrInvalidRequest, "after_id and before_id")
	wantError(t, send(t, s, "GET", "/v1/models?after_id=assistant-nope", "", modelsHeaders...), 400, core.ErrInvalidRequest, "after_id")
}

// TestModelPagesAreKept: a page of the model list is assembled once and then answered from the
// catalogue's cache as the same bytes; a refused query is not kept, and the cache holds at most
// docCacheMax pages, answering the others as before.
func TestModelPagesAreKept(t *testing.T) {
	def, err := core.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	fx := def.Copy() // the default fixtures are shared by the process's servers: a cache of its own
	pages := &core.DocCache[models.ModelPageKey]{}
	models.ModelsSection.In(fx.Sections).Pages = pages
	s := New(WithFixtures(&Fixtures{fx: fx}))
	first := send(t, s, "GET", "/v1/models?limit=2", "", modelsHeaders...)
	kept := pages.Get(models.ModelPageKey{Limit: 2})
	if first.Code != 200 || string(kept) != first.Body.String() {
		t.Fatalf("kept %q for the answer %d %q", kept, first.Code, first.Body)
	}
	if again := send(t, s, "GET", "/v1/models?limit=2", "", modelsHeaders...); again.Body.String() != first.Body.String() {
		t.Errorf("the kept page answers %s, want %s", again.Body, first.Body)
	}
	n := len(pages.Docs)
	wantError(t, send(t, s, "GET", "/v1/models?limit=2&after_id=nope", "", modelsHeaders...), 400, "invalid_request_error", "after_id")
	if len(pages.Docs) != n || pages.Get(models.ModelPageKey{After: "nope", Limit: 2}) != nil {
		t.Errorf("a refused page was kept")
	}
	for i := range core.DocCacheMax + 10 {
		send(t, s, "GET", fmt.Sprintf("/v1/models?limit=%d", i+1), "", modelsHeaders...)
	}
	if len(pages.Docs) != core.DocCacheMax {
		t.Errorf("the cache holds %d pages, want %d", len(pages.Docs), core.DocCacheMax)
	}
	if w := send(t, s, "GET", fmt.Sprintf("/v1/models?limit=%d", core.DocCacheMax+5), "", modelsHeaders...); w.Code != 200 || w.Body.String() != send(t, s, "GET", "/v1/models?limit=1000", "", modelsHeaders...).Body.String() {
		t.Errorf("a page past the cache answers %d %s", w.Code, w.Body)
	}
}
