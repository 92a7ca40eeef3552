package fake

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platformkit/platformkit/fixtures"
)

func TestDefaultFixturesLoad(t *testing.T) {
	fx, err := DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.orgs) != 2 || fx.creds["test-api-key-2"].org != fx.orgs[1] {
		t.Fatalf("want two organizations, the second owning test-api-key-2")
	}
}

// TestEmbeddedFixturesConform is the schema check that DefaultFixtures skips at start-up: every
// embedded file is a known fixture file and conforms to its schema.
func TestEmbeddedFixturesConform(t *testing.T) {
	if err := checkFixtureFiles(fixtures.FS()); err != nil {
		t.Fatal(err)
	}
	if err := checkFixtureFiles(fstest.MapFS{"organizations.json": {Data: []byte(`{"organizations":[{"id":1}]}`)}}); err == nil {
		t.Fatal("a file outside its schema passed the check")
	}
}

func TestCustomFixtures(t *testing.T) {
	orgs := `{"organizations":[{"id":"org_x","uuid":"3f1c2a9e-5b7d-4e21-9c3a-1d2e3f4a5b6c","name":"X","created_at":"2024-01-01T00:00:00Z",
		"credentials":[{"id":"k1","kind":"api_key","name":"k","secret":"my-key"}]}]}`
	for name, tc := range map[string]struct {
		files   fstest.MapFS
		wantErr string
	}{
		"only organizations: other areas are empty": {fstest.MapFS{"organizations.json": {Data: []byte(orgs)}}, ""},
		"unknown file":        {fstest.MapFS{"organisations.json": {Data: []byte(orgs)}}, "organisations.json: not a fixture file"},
		"schema violation":    {fstest.MapFS{"organizations.json": {Data: []byte(strings.Replace(orgs, `"api_key"`, `"api-key"`, 1))}}, "organizations.0.credentials.0.kind"},
		"unknown field":       {fstest.MapFS{"organizations.json": {Data: []byte(strings.Replace(orgs, `"name":"X"`, `"name":"X","nmae":"Y"`, 1))}}, "nmae: unknown field"},
		"other files ignored": {fstest.MapFS{"organizations.json": {Data: []byte(orgs)}, "README.md": {Data: []byte("hi")}}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			fx, err := LoadFixtures(tc.files)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := New(WithFixtures(fx))
			w := send(t, s, "GET", "/v1/models", "", "X-Api-Key", "my-key", "vendor-version", APIVersion)
			if w.Code != 200 || !strings.Contains(w.Body.String(), `"data":[]`) {
				t.Fatalf("models over a set without models.json: %d %s", w.Code, w.Body)
			}
			wantError(t, send(t, s, "GET", "/v1/models", "", modelsHeaders...), 401, errAuthentication, "")
		})
	}
}
