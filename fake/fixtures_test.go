package fake

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platformkit/platformkit/fake/internal/core"

	"github.com/platformkit/platformkit/fixtures"
)

func TestDefaultFixturesLoad(t *testing.T) {
	fx, err := core.DefaultFixtures()
	if err != nil {
		t.Fatal(err)
	}
	if len(fx.Orgs) != 2 || fx.Creds["test-api-key-2"].Org != fx.Orgs[1] {
		t.Fatalf("want two organizations, the second owning test-api-key-2")
	}
}

// TestEmbeddedFixturesConform is the schema check that DefaultFixtures skips at start-up: every
// embedded file is a known fixture file and conforms to its schema.
func TestEmbeddedFixturesConform(t *testing.T) {
	if err := core.CheckFixtureFiles(fixtures.FS()); err != nil {
		t.Fatal(err)
	}
	if err := core.CheckFixtureFiles(fstest.MapFS{"organizations.json": {Data: []byte(`{"organizations":[{"id":1}]}`)}}); err == nil {
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
			fx, err := core.LoadFixtures(tc.files)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := New(WithFixtures(&Fixtures{fx: fx}))
			w := send(t, s, "GET", "/v1/models", "", "X-Api-Key", "my-key", "vendor-version", core.APIVersion)
			if w.Code != 200 || !strings.Contains(w.Body.String(), `"data":[]`) {
				t.Fatalf("models over a set without models.json: %d %s", w.Code, w.Body)
			}
			wantError(t, send(t, s, "GET", "/v1/models", "", modelsHeaders...), 401, core.ErrAuthentication, "")
		})
	}
}

// TestFixtureLoadErrors: the errors a person editing a data set meets name the file and the place.
func TestFixtureLoadErrors(t *testing.T) {
	orgs, err := fs.ReadFile(fixtures.FS(), "organizations.json")
	if err != nil {
		t.Fatal(err)
	}
	users, err := fs.ReadFile(fixtures.FS(), "users.json")
	if err != nil {
		t.Fatal(err)
	}
	// A credential whose ID is a user's: the duplicate spans two files.
	clash := strings.Replace(string(orgs), "apikey_01AcmeDefaultKey00000001", "user_01AcmeAdaAdmin000000000001", 1)
	for name, tc := range map[string]struct {
		files fstest.MapFS
		want  []string
	}{
		"syntax error": {fstest.MapFS{"organizations.json": {Data: orgs}, "models.json": {Data: []byte("{\n  \"models\": [\n    {\"id\": \"m\",}\n  ]\n}\n")}},
			[]string{"models.json:3:16:", "not valid JSON"}},
		"duplicate ID in one file": {fstest.MapFS{"organizations.json": {Data: orgs}, "environments.json": {Data: []byte(`{"environments": [
{"organization_id": "org_01AcmeCorporation00000001", "id": "env_a", "name": "a", "created_at": "2025-01-01T00:00:00Z"},
{"organization_id": "org_01AcmeCorporation00000001", "id": "env_a", "name": "b", "created_at": "2025-01-01T00:00:00Z"}]}`)}},
			[]string{`id "env_a" is used twice`, "environments.json:2:", "(environments.0.id)", "environments.json:3:", "(environments.1.id)"}},
		"duplicate ID across files": {fstest.MapFS{"organizations.json": {Data: []byte(clash)}, "users.json": {Data: users}},
			[]string{`id "user_01AcmeAdaAdmin000000000001" is used twice`, "organizations.json:9:", "(organizations.0.credentials.0.id)", "users.json:3:", "(users.0.id)"}},
		"no organizations": {fstest.MapFS{"users.json": {Data: users}},
			[]string{"no organizations.json", "no credential would work"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := core.LoadFixtures(tc.files)
			if err == nil {
				t.Fatal("LoadFixtures accepted the data set")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to mention %q", err, w)
				}
			}
		})
	}
}
