package compliance

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Compliance data (spec 2.2-2.7, gaps §10): what the fixtures hold and how a server copies it.
// Chats, messages and files change (deletion); generated files, artifact versions and projects
// never do, so servers share those records with the fixtures.

// HrefBase is where the web app shows a chat (spec 2.2 href).
const HrefBase = "https://app.platformkit.dev/chat/"

// User is a chat's or project's creator as the compliance API writes it.
type User struct {
	ID           string `json:"id"`
	EmailAddress string `json:"email_address"`
}

// ccText is one content block of a message: always {type: text, text} (spec 2.3).
type ccText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Chat is a chat with its messages, oldest first (created_at, then ID).
type Chat struct {
	ID        string
	Org       *core.Org
	User      User
	ProjectID string
	Name      string
	model     *string
	CreatedAt time.Time
	UpdatedAt time.Time
	deletedAt *time.Time // deleted by its end user: still listed (gaps §10)
	messages  []*ccMessage
	encoded   []byte // the list item, encoded once by encode
}

// Encode records the chat's list item as JSON. A chat's fields never change after load (deleting
// it through the API only takes it out of the lists), so list pages splice these bytes in
// instead of encoding every chat of every page again.
func (ch *Chat) Encode() (err error) {
	ch.encoded, err = core.EncodeRecord(ch.View())
	return err
}

// Key places the chat in the chat list.
func (ch *Chat) Key() core.ListKey { return core.ListKey{At: ch.CreatedAt, ID: ch.ID} }

// ccMessage is one message of a chat. files, generatedFiles and artifacts hold IDs; a file
// deletion removes its ID here.
type ccMessage struct {
	ID             string
	chat           *Chat
	role           string
	createdAt      time.Time
	updatedAt      time.Time // created_at until a file deletion changes the message
	content        []ccText
	files          []string
	generatedFiles []string
	artifacts      []string // artifact version IDs
}

// ccMessageKey places a message in its chat's list.
func ccMessageKey(m *ccMessage) core.ListKey { return core.ListKey{At: m.createdAt, ID: m.ID} }

// ccMessageID is a message's cursor.
func ccMessageID(m *ccMessage) string { return m.ID }

// File is an uploaded file (spec 2.4). data is nil for a file with no downloadable content.
type File struct {
	ID             string
	Org            *core.Org
	filename       string
	createdAt      time.Time
	uploadMimeType string  // the type the message lists (spec 2.3: type at upload time)
	mimeType       *string // of the preferred downloadable variant
	md5            *string // as recorded at upload
	sizeBytes      *int
	Data           []byte
	messageIDs     []string // every message that references the file, in chat order
}

// GeneratedFile is a file the assistant created by tool use (spec 2.5, gaps §10).
type GeneratedFile struct {
	ID        string
	chat      *Chat
	filename  string
	mimeType  string
	createdAt time.Time
	data      []byte
	md5       string
}

// ArtifactVersion is one version of an artifact (gaps §10).
type ArtifactVersion struct {
	artifactID   string
	versionID    string
	artifactType string
	title        string
	chat         *Chat
	createdAt    time.Time
	content      []byte
	md5          string
}

// Project is a project (spec 2.6). Projects are read-only.
type Project struct {
	ID        string
	org       *core.Org
	user      User
	name      string
	isPrivate bool
	createdAt time.Time
	updatedAt time.Time
	deletedAt *time.Time
	encoded   []byte // the list item, encoded once at load: list pages splice it in
}

// ccProjectKey places a project in the project list.
func ccProjectKey(p *Project) core.ListKey { return core.ListKey{At: p.createdAt, ID: p.ID} }

// complianceData is the parsed compliance fixture. Servers copy chats and files (see
// newComplianceStore); everything else is shared, read-only.
type Data struct {
	deletions []ccDeletionRecord // what the API deleted, in order (snapshots write it)
	Chats     []*Chat            // oldest first
	Files     map[string]*File
	Generated map[string]*GeneratedFile
	Artifacts map[string]*ArtifactVersion // by version ID
	Projects  map[*core.Org][]*Project    // oldest first
}

// complianceFixture is the JSON shape of fixtures/compliance.json (schemas/fixtures/compliance.json).
type complianceFixture struct {
	Projects []struct {
		ID             string     `json:"id"`
		OrganizationID string     `json:"organization_id"`
		UserID         string     `json:"user_id"`
		Name           string     `json:"name"`
		IsPrivate      bool       `json:"is_private"`
		CreatedAt      time.Time  `json:"created_at"`
		UpdatedAt      time.Time  `json:"updated_at"`
		DeletedAt      *time.Time `json:"deleted_at"`
	} `json:"projects"`
	Chats []struct {
		ID             string     `json:"id"`
		OrganizationID string     `json:"organization_id"`
		UserID         string     `json:"user_id"`
		ProjectID      string     `json:"project_id"`
		Name           string     `json:"name"`
		Model          *string    `json:"model"`
		CreatedAt      time.Time  `json:"created_at"`
		UpdatedAt      time.Time  `json:"updated_at"`
		DeletedAt      *time.Time `json:"deleted_at"`
		Messages       []struct {
			ID             string    `json:"id"`
			Role           string    `json:"role"`
			CreatedAt      time.Time `json:"created_at"`
			Content        []ccText  `json:"content"`
			Files          []string  `json:"files"`
			GeneratedFiles []string  `json:"generated_files"`
			Artifacts      []string  `json:"artifacts"`
		} `json:"messages"`
	} `json:"chats"`
	Files []struct {
		ID             string    `json:"id"`
		OrganizationID string    `json:"organization_id"`
		Filename       string    `json:"filename"`
		CreatedAt      time.Time `json:"created_at"`
		UploadMimeType string    `json:"upload_mime_type"`
		MimeType       *string   `json:"mime_type"`
		MD5            *string   `json:"md5"`
		SizeBytes      *int      `json:"size_bytes"`
		ContentBase64  *string   `json:"content_base64"`
	} `json:"files"`
	GeneratedFiles []struct {
		ID            string    `json:"id"`
		Filename      string    `json:"filename"`
		MimeType      string    `json:"mime_type"`
		CreatedAt     time.Time `json:"created_at"`
		ContentBase64 string    `json:"content_base64"`
	} `json:"generated_files"`
	Artifacts []struct {
		ID           string `json:"id"`
		ArtifactType string `json:"artifact_type"`
		Title        string `json:"title"`
		Versions     []struct {
			VersionID string    `json:"version_id"`
			CreatedAt time.Time `json:"created_at"`
			Content   string    `json:"content"`
		} `json:"versions"`
	} `json:"artifacts"`
	Deletions []ccDeletionRecord `json:"deletions"`
}

// ccDeletionRecord is one deletion through the API: a chat (with the files only it referenced)
// or a file, which also changes the updated_at of the messages that named it. A snapshot keeps
// the data as loaded and lists the deletions; loading it deletes them again, in order, so that
// the cursors the deleted chats remain and the messages' updated_at come out as they were.
type ccDeletionRecord struct {
	ChatID    string     `json:"chat_id,omitempty"`
	FileID    string     `json:"file_id,omitempty"`
	DeletedAt *time.Time `json:"deleted_at,omitempty"` // of a file
}

// ccMD5Hex is the lowercase hex MD5 of b, as metadata writes it (spec 2.4).
func ccMD5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// loadCompliance parses compliance.json and checks its references: creators are members of the
// chat's organization, projects and files belong to it, and each generated file and artifact
// version is referenced by exactly one message.
func loadCompliance(fsys fs.FS, fx *core.Fixtures) error {
	var file complianceFixture
	d := Data{Files: map[string]*File{}, Generated: map[string]*GeneratedFile{},
		Artifacts: map[string]*ArtifactVersion{}, Projects: map[*core.Org][]*Project{}}
	*Section.In(fx.Sections) = d
	found, err := core.ReadFixture(fsys, "compliance.json", &file)
	if err != nil || !found {
		return err
	}
	const name = "compliance.json"
	creator := func(what, id, orgID, userID string) (*core.Org, User, error) {
		o := fx.OrgByID(orgID)
		if o == nil {
			return nil, User{}, fmt.Errorf("%s: %s %s names unknown organization %s", name, what, id, orgID)
		}
		for _, u := range fx.Users {
			if u.ID == userID && u.Org == o {
				return o, User{u.ID, u.Email}, nil
			}
		}
		return nil, User{}, fmt.Errorf("%s: %s %s names %s, who is not a member of %s", name, what, id, userID, orgID)
	}
	projects := map[string]*Project{}
	for _, p := range file.Projects {
		o, u, err := creator("project", p.ID, p.OrganizationID, p.UserID)
		if err != nil {
			return err
		}
		if projects[p.ID] != nil {
			return fmt.Errorf("%s: project %s appears twice", name, p.ID)
		}
		pr := &Project{ID: p.ID, org: o, user: u, name: p.Name, isPrivate: p.IsPrivate,
			createdAt: p.CreatedAt.UTC(), updatedAt: p.UpdatedAt.UTC(), deletedAt: ccUTC(p.DeletedAt)}
		if pr.encoded, err = core.EncodeRecord(pr.View()); err != nil {
			return fmt.Errorf("%s: project %s: %w", name, p.ID, err)
		}
		projects[p.ID] = pr
		d.Projects[o] = append(d.Projects[o], pr)
	}
	for _, list := range d.Projects {
		slices.SortFunc(list, func(a, b *Project) int { return core.OldestFirst(ccProjectKey(a), ccProjectKey(b)) })
	}
	for _, f := range file.Files {
		o := fx.OrgByID(f.OrganizationID)
		if o == nil {
			return fmt.Errorf("%s: file %s names unknown organization %s", name, f.ID, f.OrganizationID)
		}
		cf := &File{ID: f.ID, Org: o, filename: f.Filename, createdAt: f.CreatedAt.UTC(), uploadMimeType: f.UploadMimeType,
			mimeType: f.MimeType, md5: f.MD5, sizeBytes: f.SizeBytes}
		if f.ContentBase64 != nil {
			if cf.Data, err = base64.StdEncoding.DecodeString(*f.ContentBase64); err != nil {
				return fmt.Errorf("%s: file %s: content_base64: %w", name, f.ID, err)
			}
		}
		if (cf.Data == nil) != (f.MimeType == nil) {
			return fmt.Errorf("%s: file %s: a file has a mime_type exactly when it has content", name, f.ID)
		}
		d.Files[f.ID] = cf
	}
	for _, g := range file.GeneratedFiles {
		data, err := base64.StdEncoding.DecodeString(g.ContentBase64)
		if err != nil {
			return fmt.Errorf("%s: generated file %s: content_base64: %w", name, g.ID, err)
		}
		d.Generated[g.ID] = &GeneratedFile{ID: g.ID, filename: g.Filename, mimeType: g.MimeType, createdAt: g.CreatedAt.UTC(), data: data, md5: ccMD5Hex(data)}
	}
	for _, a := range file.Artifacts {
		for _, v := range a.Versions {
			d.Artifacts[v.VersionID] = &ArtifactVersion{artifactID: a.ID, versionID: v.VersionID, artifactType: a.ArtifactType,
				title: a.Title, createdAt: v.CreatedAt.UTC(), content: []byte(v.Content), md5: ccMD5Hex([]byte(v.Content))}
		}
	}
	for _, c := range file.Chats {
		o, u, err := creator("chat", c.ID, c.OrganizationID, c.UserID)
		if err != nil {
			return err
		}
		if p := projects[c.ProjectID]; p == nil || p.org != o {
			return fmt.Errorf("%s: chat %s names project %s, which is not a project of %s", name, c.ID, c.ProjectID, c.OrganizationID)
		}
		ch := &Chat{ID: c.ID, Org: o, User: u, ProjectID: c.ProjectID, Name: c.Name, model: c.Model,
			CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(), deletedAt: ccUTC(c.DeletedAt)}
		for _, m := range c.Messages {
			msg := &ccMessage{ID: m.ID, chat: ch, role: m.Role, createdAt: m.CreatedAt.UTC(), updatedAt: m.CreatedAt.UTC(),
				content: m.Content, files: m.Files, generatedFiles: m.GeneratedFiles, artifacts: m.Artifacts}
			for _, id := range m.Files {
				if f := d.Files[id]; f == nil || f.Org != o {
					return fmt.Errorf("%s: message %s names file %s, which is not a file of %s", name, m.ID, id, c.OrganizationID)
				}
			}
			for _, id := range m.GeneratedFiles {
				g := d.Generated[id]
				if g == nil || g.chat != nil {
					return fmt.Errorf("%s: message %s names generated file %s, which is unknown or used by another message", name, m.ID, id)
				}
				g.chat = ch
			}
			for _, id := range m.Artifacts {
				v := d.Artifacts[id]
				if v == nil || v.chat != nil {
					return fmt.Errorf("%s: message %s names artifact version %s, which is unknown or used by another message", name, m.ID, id)
				}
				v.chat = ch
			}
			ch.messages = append(ch.messages, msg)
		}
		slices.SortFunc(ch.messages, func(a, b *ccMessage) int { return core.OldestFirst(ccMessageKey(a), ccMessageKey(b)) })
		if err := ch.Encode(); err != nil {
			return fmt.Errorf("%s: chat %s: %w", name, c.ID, err)
		}
		d.Chats = append(d.Chats, ch)
	}
	slices.SortFunc(d.Chats, func(a, b *Chat) int { return core.OldestFirst(a.Key(), b.Key()) })
	for _, ch := range d.Chats {
		for _, m := range ch.messages {
			for _, id := range m.files {
				d.Files[id].messageIDs = append(d.Files[id].messageIDs, m.ID)
			}
		}
	}
	for id, g := range d.Generated {
		if g.chat == nil {
			return fmt.Errorf("%s: generated file %s is not referenced by any message", name, id)
		}
	}
	for id, v := range d.Artifacts {
		if v.chat == nil {
			return fmt.Errorf("%s: artifact version %s is not referenced by any message", name, id)
		}
	}
	for i, del := range file.Deletions {
		if (del.ChatID == "") == (del.FileID == "") || (del.FileID != "") != (del.DeletedAt != nil) {
			return fmt.Errorf("%s: deletions.%d: give chat_id, or file_id with deleted_at", name, i)
		}
	}
	d.deletions = file.Deletions
	*Section.In(fx.Sections) = d
	return nil
}

// ccUTC returns t in UTC, keeping nil.
func ccUTC(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
