package files

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// fileFixture is a file as files.json holds it: the record, its owner, and its content (base64,
// absent once the file expired). Snapshots write it; a hand-written data set may too.
type fileFixture struct {
	OrganizationID string     `json:"organization_id"`
	WorkspaceID    string     `json:"workspace_id,omitempty"`
	ID             string     `json:"id"`
	CreatedAt      time.Time  `json:"created_at"`
	Filename       string     `json:"filename"`
	MimeType       string     `json:"mime_type"`
	SizeBytes      int        `json:"size_bytes"`
	Downloadable   bool       `json:"downloadable"`
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`
	Scope          *Scope     `json:"scope,omitempty"`
	Content        []byte     `json:"content,omitempty"`
	org            *core.Org
}

// loadFiles reads files.json, whose records name organizations of organizations.json.
func loadFiles(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		Files []*fileFixture `json:"files"`
	}
	if _, err := core.ReadFixture(fsys, "files.json", &file); err != nil {
		return err
	}
	for i, f := range file.Files {
		if f.org = fx.OrgByID(f.OrganizationID); f.org == nil {
			return fmt.Errorf("files.json: files.%d names unknown organization %s", i, f.OrganizationID)
		}
		if f.Content == nil && f.ExpiresAt == nil {
			return fmt.Errorf("files.json: files.%d (%s) has no content and never expires; give its content in base64", i, f.ID)
		}
		if f.Content != nil && len(f.Content) != f.SizeBytes {
			return fmt.Errorf("files.json: files.%d (%s): size_bytes is %d, its content %d bytes", i, f.ID, f.SizeBytes, len(f.Content))
		}
	}
	*FilesSection.In(fx.Sections) = file.Files
	return nil
}

// build makes a server's store from its fixtures, charged to budget (nil: none).
func build(fx *core.Fixtures, budget *core.ByteBudget) *Store {
	fs := newStore(budget)
	for _, r := range *FilesSection.In(fx.Sections) {
		f := &File{ID: r.ID, CreatedAt: r.CreatedAt, Filename: r.Filename, MimeType: r.MimeType, SizeBytes: r.SizeBytes,
			Downloadable: r.Downloadable, ExpiresAt: r.ExpiresAt, Scope: r.Scope, Org: r.org, WorkspaceID: r.WorkspaceID,
			content: r.Content, fixture: true}
		fs.Grow(f.held())
		fs.put(f)
	}
	return fs
}

func newStore(budget *core.ByteBudget) *Store {
	return &Store{byID: map[string]*File{}, lists: map[owner][]*File{}, used: map[*core.Org]*usage{}, Charged: core.Charged{Budget: budget}}
}

// filesSnapshot is the area's part of a snapshot (files.json), with every file's content: files
// are data a test put there, which a continued world must still serve.
var filesSnapshot = &core.SnapshotArea{Lock: core.LockArea(FileStores, func(s *Store) *sync.Mutex { return &s.mu }), Export: exportFiles}

func exportFiles(st *core.State, out map[string]any) error {
	fs := FileStores.In(st.Stores).Built()
	list := []json.RawMessage{}
	for _, f := range core.OldestFirstOf(fs.byID, fileKey) {
		raw, err := json.Marshal(fileFixture{OrganizationID: f.Org.ID, WorkspaceID: f.WorkspaceID, ID: f.ID, CreatedAt: f.CreatedAt,
			Filename: f.Filename, MimeType: f.MimeType, SizeBytes: f.SizeBytes, Downloadable: f.Downloadable,
			ExpiresAt: f.ExpiresAt, Scope: f.Scope, Content: f.content})
		if err != nil {
			return err
		}
		list = append(list, raw)
	}
	out["files.json"] = struct {
		Files []json.RawMessage `json:"files"`
	}{list}
	return nil
}
