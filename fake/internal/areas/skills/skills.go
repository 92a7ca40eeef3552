package skills

import (
	"archive/zip"
	"bytes"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

const (
	// DefaultPage and MaxPage are the limit of the skill and version lists (the official SDKs:
	// "Ranges from 1 to 1000. Defaults to 20").
	DefaultPage = 20
	MaxPage     = 1000
	// MaxSkills is how many skills one server (or namespace) keeps; MaxVersions how many
	// versions one skill keeps.
	MaxSkills   = 500
	MaxVersions = 100
	// UploadBodyLimit bounds one upload's body; MaxFiles and MaxFileBytes one upload's files.
	UploadBodyLimit = 8 << 20
	MaxFiles        = 200
	MaxFileBytes    = 4 << 20
	// MaxBytes is what the skills of one server (or namespace) keep, their archives included, by
	// the heap estimate of core.HeldSize; MaxBytesAll is what every namespace's keep together.
	MaxBytes    = 64 << 20
	MaxBytesAll = 256 << 20
)

// Skill is a skill as the API answers it.
type Skill struct {
	ID              string    `json:"id"`
	Type            string    `json:"type"`
	CreatedAt       time.Time `json:"created_at"`
	DisplayName     string    `json:"display_name"`
	LatestVersionID string    `json:"latest_version_id"`
	Source          Source    `json:"source"`
	UpdatedAt       time.Time `json:"updated_at"`
}

// Source is where a skill comes from; the fake's are all custom.
type Source struct {
	Type string `json:"type"`
}

// Version is a skill version as the API answers it.
type Version struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"created_at"`
	Description string    `json:"description"`
	Name        string    `json:"name"`
	SkillID     string    `json:"skill_id"`
}

// owner is whom a skill belongs to: an organization's workspace ("" the default one).
type owner struct {
	org *core.Org
	ws  string
}

type skill struct {
	rec      Skill
	owner    owner
	versions []*version // oldest first; never empty
	seq      int        // versions made, for their order in the list
	bytes    int
}

type version struct {
	rec     Version
	seq     int
	archive []byte // the zip served as its content
}

func skillKey(s *skill) core.ListKey { return core.ListKey{At: s.rec.CreatedAt, ID: s.rec.ID} }
func versionKey(v *version) core.ListKey {
	return core.ListKey{At: time.Unix(int64(v.seq), 0), ID: v.rec.ID}
}

// Store is the area's state in one server (or namespace).
type Store struct {
	mu      sync.Mutex
	byID    map[string]*skill
	byOwner map[owner][]*skill // oldest first
	core.Charged
}

func storeOf(s *core.Server, st *core.State) *Store { return StoreOf(s, st) }

// StoreOf is the skills of a server's state st, built from its fixtures on first use.
func StoreOf(s *core.Server, st *core.State) *Store {
	return skillStores.In(st.Stores).Get(func() *Store { return build(st.Fx, s.Cfg.Budget(budget)) })
}

func newStore(b *core.ByteBudget) *Store {
	return &Store{byID: map[string]*skill{}, byOwner: map[owner][]*skill{}, Charged: core.Charged{Budget: b}}
}

// release gives back the store's bytes: its state was replaced or its namespace dropped.
func release(st *core.State) {
	a := skillStores.In(st.Stores).Get(func() *Store { return build(st.Fx, nil) })
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Leave()
	clear(a.byID)
	clear(a.byOwner)
}

// charge counts n more bytes kept by sk (n < 0 gives some back), or refuses them past the
// store's or the shared bound; the caller holds mu.
func (a *Store) charge(sk *skill, n int) error {
	if n > 0 && !a.Released && a.Bytes+n > MaxBytes {
		return core.Invalid("the skills of this server (or namespace) may keep at most %d bytes in memory together, their files included; delete skills (DELETE /v1/skills/{id}) or reset the server", MaxBytes).Because(core.ReasonOutOfRange)
	}
	if n > 0 && !a.Reserve(n) {
		return core.Invalid("the skills of every namespace of this server may keep at most %d bytes in memory together; delete skills or drop idle namespaces (DELETE /_fake/namespaces)", a.Budget.Limit).Because(core.ReasonOutOfRange)
	}
	if n <= 0 && !a.Released {
		a.Grow(n)
	}
	sk.bytes += n
	return nil
}

// find returns the caller's skill: another organization's, or (for an API key) another
// workspace's, is answered 404 like an unknown one. A worker's credential (an environment key,
// a sessions token) reads the skills of its organization's workspaces, as its agents name them.
func (a *Store) find(c *core.Call, id string) (*skill, error) {
	sk := a.byID[id]
	if sk == nil || sk.owner.org != c.Org || (c.Cred.Kind == core.KindAPIKey && sk.owner.ws != c.Cred.WorkspaceID) {
		return nil, core.NotFound("skill", id)
	}
	return sk, nil
}

// version finds a version of sk by ID or, where latest resolves, as latest.
func (sk *skill) version(id string, latest bool) (int, error) {
	if latest && id == "latest" {
		return len(sk.versions) - 1, nil
	}
	for i, v := range sk.versions {
		if v.rec.ID == id {
			return i, nil
		}
	}
	return 0, core.NotFound("version of skill "+sk.rec.ID, id)
}

func withSkill(s *core.Server, c *core.Call, f func(a *Store, sk *skill, now time.Time) (any, error)) (any, error) {
	a := storeOf(s, c.St)
	a.mu.Lock()
	defer a.mu.Unlock()
	sk, err := a.find(c, c.Param("skill_id"))
	if err != nil {
		return nil, err
	}
	return f(a, sk, s.Clock.Now())
}

// archive is the zip of an upload's files, each under its path (<name>/...), in upload order.
// Its times are the version's, so that the same upload makes the same bytes.
func archive(files []upFile, at time.Time) []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, f := range files {
		fw, _ := w.CreateHeader(&zip.FileHeader{Name: f.path, Method: zip.Deflate, Modified: at.UTC()})
		fw.Write(f.data)
	}
	w.Close()
	return b.Bytes()
}
