package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fixtures"
	"github.com/platformkit/platformkit/schemas"
)

// Fixtures is the data set of the face's Fixtures (package fake), which documents it.
type Fixtures struct {
	Orgs     []*Org
	Creds    map[string]*Credential // by secret
	Users    []Member               // every organization's members, in file order
	Sections []any                  // each area's data (newSection), filled by its loader
	Files    map[string][]byte      // every file as loaded, which a snapshot copies for areas no request changed
	start    worldStart             // snapshot.json: where the clock and the counters start
}

// loaders parse the files, in order: organizations and users, every area's in the order of
// the areas (later ones may refer to the earlier), then where the world starts. A file that is
// missing leaves its area empty, so a custom data set may hold only what a test needs.
func loaders() []func(fs.FS, *Fixtures) error {
	l := []func(fs.FS, *Fixtures) error{loadOrganizations, loadUsers}
	for _, a := range areaList {
		if a.Load != nil {
			l = append(l, a.Load)
		}
	}
	return append(l, loadSnapshotState, readFixtureFiles)
}

// LoadFixtures is the face's LoadFixtures (package fake), which documents it.
func LoadFixtures(fsys fs.FS) (*Fixtures, error) {
	if err := CheckFixtureFiles(fsys); err != nil {
		return nil, err
	}
	return parseFixtures(fsys)
}

// DefaultFixtures is the face's DefaultFixtures (package fake), which documents it.
func DefaultFixtures() (*Fixtures, error) { return defaultFixtures() }

var defaultFixtures = sync.OnceValues(func() (*Fixtures, error) {
	return parseFixtures(fixtures.FS())
})

// CheckFixtureFiles checks that every JSON file of fsys is a fixture file the fake knows and
// conforms to its schema.
func CheckFixtureFiles(fsys fs.FS) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return fmt.Errorf("fixtures: %w", err)
	}
	known := schemas.Names()
	ids := map[string]fixturePlace{}
	hasOrgs := false
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".json" {
			continue
		}
		schema := "fixtures/" + strings.TrimSuffix(name, ".json")
		if _, known := slices.BinarySearch(known, schema); !known {
			return fmt.Errorf("fixtures: %s: not a fixture file the fake knows", name)
		}
		hasOrgs = hasOrgs || name == "organizations.json"
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return fmt.Errorf("fixtures: %w", err)
		}
		if err := CheckSyntax(name, raw); err != nil {
			return fmt.Errorf("fixtures: %w", err)
		}
		if err := schemas.Validate(schema, raw, schemas.Strict); err != nil {
			return fmt.Errorf("fixtures: %s: %w", name, err)
		}
		if err := checkUniqueIDs(ids, name, raw); err != nil {
			return fmt.Errorf("fixtures: %w", err)
		}
	}
	if !hasOrgs {
		return errors.New("fixtures: the data set has no organizations.json, so no credential would work " +
			"and every API request would answer 401; copy fixtures/organizations.json into it")
	}
	return nil
}

// parseFixtures runs every area's loader over fsys, whose files conform to their schemas.
func parseFixtures(fsys fs.FS) (*Fixtures, error) {
	fx := &Fixtures{Creds: map[string]*Credential{}}
	fx.Sections = sectionSlots.fill(fx)
	for _, load := range loaders() {
		if err := load(fsys, fx); err != nil {
			return nil, fmt.Errorf("fixtures: %w", err)
		}
	}
	return fx, nil
}

// fixturePlace is where a value sits in a fixture file, for error messages. The line and column
// are worked out only when an error is written: counting lines for every ID would cost more than
// the rest of the check.
type fixturePlace struct {
	file   string
	raw    []byte // the file's content
	offset int
	path   string // the JSON path, as in schema errors ("users.3.id")
}

func (p fixturePlace) String() string {
	line, col := placeAt(p.raw, p.offset)
	return fmt.Sprintf("%s:%d:%d (%s)", p.file, line, col, p.path)
}

// placeAt returns the line and column (both from 1, the column in bytes) of offset in raw.
func placeAt(raw []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(raw))
	before := raw[:offset]
	return bytes.Count(before, []byte("\n")) + 1, offset - bytes.LastIndexByte(before, '\n')
}

// CheckSyntax refuses a file that is not valid JSON, naming the line and column where reading
// it failed.
func CheckSyntax(name string, raw []byte) error {
	if json.Valid(raw) {
		return nil
	}
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: not valid JSON: %v", name, err)
	}
	line, col := placeAt(raw, int(se.Offset)-1) // Offset counts the offending byte
	return fmt.Errorf("%s:%d:%d: not valid JSON: %v", name, line, col, se)
}

// notRecords are the fields whose value is no record, whatever "id" it holds: an agent's model
// ({"id": "assistant-opus-4-7", ...}) names a model that many agents share, and multiagent and a
// tool's input_schema are the caller's JSON, kept as given.
var notRecords = map[string]bool{"model": true, "multiagent": true, "input_schema": true}

// checkUniqueIDs adds the place of every string "id" field of a file to ids, and refuses an ID that
// is already there: two records with one ID would make lookups by ID pick one silently.
func checkUniqueIDs(ids map[string]fixturePlace, name string, raw []byte) error {
	var err error
	var walk func(v gjson.Result, path string)
	walk = func(v gjson.Result, path string) {
		i := 0
		v.ForEach(func(key, val gjson.Result) bool {
			p := key.String()
			if v.IsArray() {
				p = strconv.Itoa(i)
				i++
			}
			if path != "" {
				p = path + "." + p
			}
			if v.IsObject() && key.String() == "id" && val.Type == gjson.String {
				here := fixturePlace{name, raw, val.Index, p}
				if first, dup := ids[val.String()]; dup {
					err = fmt.Errorf("id %q is used twice: at %s and at %s", val.String(), first, here)
					return false
				}
				ids[val.String()] = here
			}
			if (val.IsObject() || val.IsArray()) && !(v.IsObject() && notRecords[key.String()]) {
				walk(val, p)
			}
			return err == nil
		})
	}
	walk(gjson.ParseBytes(raw), "")
	return err
}

// ReadFixture decodes the named file into v. A missing file is not an error: found is false.
func ReadFixture(fsys fs.FS, name string, v any) (found bool, err error) {
	raw, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	return true, nil
}

// Org is an organization: the tenant that owns data and credentials.
type Org struct {
	ID        string // tagged ID, "org_..." (compliance)
	UUID      string // the ID of the administration API (gaps §6)
	Name      string
	CreatedAt time.Time
}

func loadOrganizations(fsys fs.FS, fx *Fixtures) error {
	var file struct {
		Organizations []struct {
			ID          string       `json:"id"`
			UUID        string       `json:"uuid"`
			Name        string       `json:"name"`
			CreatedAt   time.Time    `json:"created_at"`
			Credentials []Credential `json:"credentials"`
		} `json:"organizations"`
	}
	if _, err := ReadFixture(fsys, "organizations.json", &file); err != nil {
		return err
	}
	for _, o := range file.Organizations {
		og := &Org{ID: o.ID, UUID: o.UUID, Name: o.Name, CreatedAt: o.CreatedAt}
		fx.Orgs = append(fx.Orgs, og)
		for _, c := range o.Credentials {
			if _, dup := fx.Creds[c.Secret]; dup {
				return fmt.Errorf("organizations.json: credential secret of %s is used twice", c.ID)
			}
			c.Org = og
			fx.Creds[c.Secret] = &c
		}
	}
	return nil
}

// OrgByID finds an organization by its tagged ID or its UUID.
func (fx *Fixtures) OrgByID(id string) *Org {
	for _, o := range fx.Orgs {
		if o.ID == id || o.UUID == id {
			return o
		}
	}
	return nil
}

// RecordOwner checks the owner a record of a fixture file names (at: the record's path in its
// file, what: the record, for the error): an organization of organizations.json and, if ws is given, a
// workspace that an API key of that organization belongs to, since no other credential could
// reach a record of a workspace.
func (fx *Fixtures) RecordOwner(at, what, orgID, ws string) (*Org, error) {
	o := fx.OrgByID(orgID)
	if o == nil {
		return nil, fmt.Errorf("%s.organization_id: %s names unknown organization %s", at, what, orgID)
	}
	if ws == "" {
		return o, nil
	}
	for _, c := range fx.Creds {
		if c.Org == o && c.Kind == KindAPIKey && c.WorkspaceID == ws {
			return o, nil
		}
	}
	return nil, fmt.Errorf("%s.workspace_id: %s names workspace %s, which no API key of organization %s belongs to (organizations.json), so no request could reach it", at, what, ws, orgID)
}

// Member is a user of an organization (spec 2.11). Administration serves and changes them;
// compliance refers to them by ID (chat and project creators).
type Member struct {
	OrganizationID string    `json:"organization_id"`
	ID             string    `json:"id"`
	Email          string    `json:"email"`
	Name           string    `json:"name"`
	Role           string    `json:"role"`
	AddedAt        time.Time `json:"added_at"`
	// Removed marks a user removed through the API: compliance still names them, and their ID
	// stays a valid cursor of the user list (a snapshot writes it; the API never answers it).
	Removed bool       `json:"removed,omitempty"`
	Org     *Org       `json:"-"`
	Encoded RecordJSON `json:"-"` // the user record (view), encoded once per change
}

func loadUsers(fsys fs.FS, fx *Fixtures) error {
	var file struct {
		Users []Member `json:"users"`
	}
	if _, err := ReadFixture(fsys, "users.json", &file); err != nil {
		return err
	}
	for _, u := range file.Users {
		if u.Org = fx.OrgByID(u.OrganizationID); u.Org == nil {
			return fmt.Errorf("users.json: user %s names unknown organization %s", u.ID, u.OrganizationID)
		}
		fx.Users = append(fx.Users, u)
	}
	return nil
}
