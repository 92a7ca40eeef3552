package compliance

import (
	"crypto/md5"
	"encoding/base64"
	"slices"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Compliance review (spec 2.2-2.7, 4.1-4.3, gaps §10): an organization's chats, messages, files,
// generated files, artifacts and projects, read and permanently deleted with the compliance key.

// compliance returns the server's compliance store, built from the fixtures on first use.
func StoreOf(s *core.Server, c *core.Call) *Store {
	return complianceStores.In(c.St.Stores).Get(func() *Store { return newComplianceStore(Section.In(c.St.Fx.Sections)) })
}

// ChatJSON is a chat list item (spec 2.2).
type ChatJSON struct {
	ID               string     `json:"id"`
	CreatedAt        time.Time  `json:"created_at"`
	DeletedAt        *time.Time `json:"deleted_at"`
	Href             string     `json:"href"`
	Model            *string    `json:"model"`
	Name             string     `json:"name"`
	OrganizationID   string     `json:"organization_id"`
	OrganizationUUID string     `json:"organization_uuid"`
	ProjectID        string     `json:"project_id"`
	UpdatedAt        time.Time  `json:"updated_at"`
	User             User       `json:"user"`
}

// View writes the chat as a list item.
func (ch *Chat) View() ChatJSON {
	return ChatJSON{ID: ch.ID, CreatedAt: ch.CreatedAt, DeletedAt: ch.deletedAt, Href: HrefBase + ch.ID, Model: ch.model,
		Name: ch.Name, OrganizationID: ch.Org.ID, OrganizationUUID: ch.Org.UUID, ProjectID: ch.ProjectID, UpdatedAt: ch.UpdatedAt, User: ch.User}
}

// ccAttachment is a file or generated file as a message lists it (spec 2.3).
type ccAttachment struct {
	ID       string `json:"id"`
	Filename string `json:"filename"`
	MimeType string `json:"mime_type"`
}

// ccArtifactRef is an artifact version as a message lists it (spec 2.3).
type ccArtifactRef struct {
	ID           string `json:"id"`
	ArtifactType string `json:"artifact_type"`
	Title        string `json:"title"`
	VersionID    string `json:"version_id"`
}

// ccMessageJSON is a message of spec 2.3. The attachment lists are null, and content empty, in a
// chat its end user deleted (gaps §10).
type ccMessageJSON struct {
	ID             string          `json:"id"`
	Role           string          `json:"role"`
	CreatedAt      time.Time       `json:"created_at"`
	Content        []ccText        `json:"content"`
	Artifacts      []ccArtifactRef `json:"artifacts"`
	Files          []ccAttachment  `json:"files"`
	GeneratedFiles []ccAttachment  `json:"generated_files"`
}

// ccChatWithMessages is the response of the messages operation (spec 2.3).
type ccChatWithMessages struct {
	ChatJSON
	ChatMessages []ccMessageJSON `json:"chat_messages"`
	FirstID      *string         `json:"first_id"`
	HasMore      bool            `json:"has_more"`
	LastID       *string         `json:"last_id"`
}

// view writes a message; the caller holds the store's lock (files can be deleted meanwhile).
func (m *ccMessage) view(st *Store, d *Data) ccMessageJSON {
	v := ccMessageJSON{ID: m.ID, Role: m.role, CreatedAt: m.createdAt, Content: []ccText{}}
	if m.chat.deletedAt != nil {
		return v
	}
	v.Content = append(v.Content, m.content...)
	v.Artifacts, v.Files, v.GeneratedFiles = []ccArtifactRef{}, []ccAttachment{}, []ccAttachment{}
	for _, id := range m.artifacts {
		a := d.Artifacts[id]
		v.Artifacts = append(v.Artifacts, ccArtifactRef{ID: a.artifactID, ArtifactType: a.artifactType, Title: a.title, VersionID: a.versionID})
	}
	for _, id := range m.files {
		if f := st.files[id]; f != nil {
			v.Files = append(v.Files, ccAttachment{ID: f.ID, Filename: f.filename, MimeType: f.uploadMimeType})
		}
	}
	for _, id := range m.generatedFiles {
		g := d.Generated[id]
		v.GeneratedFiles = append(v.GeneratedFiles, ccAttachment{ID: g.ID, Filename: g.filename, MimeType: g.mimeType})
	}
	return v
}

// ccFileJSON is file metadata (spec 2.4).
type ccFileJSON struct {
	ID         string    `json:"id"`
	CreatedAt  time.Time `json:"created_at"`
	Filename   string    `json:"filename"`
	MD5        *string   `json:"md5"`
	MessageIDs []string  `json:"message_ids"`
	MimeType   *string   `json:"mime_type"`
	SizeBytes  *int      `json:"size_bytes"`
}

// ccGeneratedFileJSON is generated-file metadata (spec 2.5, gaps §10).
type ccGeneratedFileJSON struct {
	ID        string    `json:"id"`
	ChatID    string    `json:"chat_id"`
	CreatedAt time.Time `json:"created_at"`
	Filename  string    `json:"filename"`
	MD5       string    `json:"md5"`
	MimeType  string    `json:"mime_type"`
	SizeBytes int       `json:"size_bytes"`
}

// ccArtifactJSON is artifact version metadata (gaps §10).
type ccArtifactJSON struct {
	ID           string    `json:"id"`
	ArtifactType string    `json:"artifact_type"`
	ChatID       string    `json:"chat_id"`
	CreatedAt    time.Time `json:"created_at"`
	MD5          string    `json:"md5"`
	SizeBytes    int       `json:"size_bytes"`
	Title        string    `json:"title"`
	VersionID    string    `json:"version_id"`
}

// ProjectJSON is a project list item (spec 2.6).
type ProjectJSON struct {
	ID               string     `json:"id"`
	CreatedAt        time.Time  `json:"created_at"`
	DeletedAt        *time.Time `json:"deleted_at"`
	IsPrivate        bool       `json:"is_private"`
	Name             string     `json:"name"`
	OrganizationID   string     `json:"organization_id"`
	OrganizationUUID string     `json:"organization_uuid"`
	UpdatedAt        time.Time  `json:"updated_at"`
	User             User       `json:"user"`
}

// View writes the project as a list item.
func (p *Project) View() ProjectJSON {
	return ProjectJSON{ID: p.ID, CreatedAt: p.createdAt, DeletedAt: p.deletedAt, IsPrivate: p.isPrivate, Name: p.name,
		OrganizationID: p.org.ID, OrganizationUUID: p.org.UUID, UpdatedAt: p.updatedAt, User: p.user}
}

// ccDeletion is a deletion confirmation (spec 2.7).
type ccDeletion struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// TokenList is a page of the page-token family with has_more, as the compliance lists write it.
type TokenList[T any] struct {
	core.TokenPage[T]
	HasMore bool `json:"has_more"`
}

// ccWithHasMore adds has_more, true exactly when next_page is set.
func ccWithHasMore[T any](p core.TokenPage[T]) TokenList[T] {
	return TokenList[T]{p, p.NextPage != nil}
}

// ccDownload answers bytes with the Content-MD5 of spec 4.2 (base64 of the MD5, RFC 1864),
// computed over exactly the bytes served.
func ccDownload(contentType string, data []byte) core.RawBody {
	sum := md5.Sum(data)
	return core.RawBody{ContentType: contentType, Data: data, Header: map[string]string{"Content-MD5": base64.StdEncoding.EncodeToString(sum[:])}}
}

// ccUserIDs reads user_ids: required, 1 to 10 distinct IDs (spec 4.1, 8), in any array form (gaps §2).
func ccUserIDs(c *core.Call) ([]string, error) {
	ids, most := c.QueryStrings("user_ids"), c.DeclaredParam("user_ids", core.PStrings).MaxItems
	slices.Sort(ids)
	ids = slices.Compact(ids)
	switch {
	case len(ids) == 0:
		return nil, core.InvalidField("user_ids", "required: give 1 to %d user IDs, as user_ids[]=user_... or user_ids=user_...,user_...", most)
	case len(ids) > most:
		return nil, core.InvalidField("user_ids", "at most %d user IDs per request, got %d", most, len(ids))
	}
	return ids, nil
}

// ccInOrganizations applies organization_ids, which accepts org_ IDs and UUIDs: false when the
// parameter is given and names neither of the caller's organization's identifiers.
func ccInOrganizations(c *core.Call) bool {
	ids := c.QueryStrings("organization_ids")
	return len(ids) == 0 || slices.Contains(ids, c.Org.ID) || slices.Contains(ids, c.Org.UUID)
}

// listComplianceChats answers GET /v1/compliance/apps/chats (spec 4.1): the chats of 1 to 10
// users in created_at order, id breaking ties, by after_id/before_id cursors. A malformed
// parameter, or a cursor that is not a chat of the organization, is a 400 naming it.
func listComplianceChats(s *core.Server, c *core.Call) (any, error) {
	f := ChatFilter{Org: c.Org}
	var err error
	if f.Users, err = ccUserIDs(c); err != nil {
		return nil, err
	}
	q, err := c.CursorQuery()
	if err != nil {
		return nil, err
	}
	if f.created, err = c.QueryTimeRange("created_at"); err != nil {
		return nil, err
	}
	if f.updated, err = c.QueryTimeRange("updated_at"); err != nil {
		return nil, err
	}
	if ps := c.QueryStrings("project_ids"); len(ps) > 0 {
		f.projects = map[string]bool{}
		for _, p := range ps {
			f.projects[p] = true
		}
	}
	if !ccInOrganizations(c) {
		f.Users = nil
	}
	st := StoreOf(s, c)
	st.mu.Lock()
	defer st.mu.Unlock()
	var cursor *core.ListKey
	if id := q.AfterID + q.BeforeID; id != "" {
		ch := st.Chats[id]
		if ch == nil {
			ch = st.gone[id]
		}
		if ch == nil || ch.Org != c.Org {
			name := "after_id"
			if q.BeforeID != "" {
				name = "before_id"
			}
			return nil, core.InvalidField(name, "%s is not a chat of this organization; pass the last_id or first_id of a previous response", core.Quoted(id, core.MaxExcerpt))
		}
		k := ch.Key()
		cursor = &k
	}
	return core.EncodedPage(st.PageChats(f, q, cursor), func(ch *Chat) []byte { return ch.encoded }), nil
}

// getChatMessages answers GET .../chats/{chat_id}/messages (spec 4.1, 2.3): the chat with its
// messages, the whole chat when limit is absent. Another organization's chat is a 404.
func getChatMessages(s *core.Server, c *core.Call) (any, error) {
	q, err := c.CursorQuery()
	if err != nil {
		return nil, err
	}
	created, err := c.QueryTimeRange("created_at")
	if err != nil {
		return nil, err
	}
	updated, err := c.QueryTimeRange("updated_at")
	if err != nil {
		return nil, err
	}
	order, err := c.QueryEnum("order")
	if err != nil {
		return nil, err
	}
	return withComplianceChat(s, c, func(st *Store, ch *Chat) (any, error) {
		var msgs []*ccMessage
		for _, m := range ch.messages {
			if created.Contains(m.createdAt) && updated.Contains(m.updatedAt) {
				msgs = append(msgs, m)
			}
		}
		cmp := core.OldestFirst
		if order == "desc" {
			cmp = core.NewestFirst
			slices.Reverse(msgs)
		}
		page, err := core.PageByCursor(msgs, ccMessageKey, ccMessageID, cmp, q, core.LookupIn(ch.messages, ccMessageKey))
		if err != nil {
			return nil, err
		}
		out := ccChatWithMessages{ChatJSON: ch.View(), ChatMessages: make([]ccMessageJSON, len(page.Data)),
			FirstID: page.FirstID, HasMore: page.HasMore, LastID: page.LastID}
		for i, m := range page.Data {
			out.ChatMessages[i] = m.view(st, Section.In(c.St.Fx.Sections))
		}
		return out, nil
	})
}

// deleteComplianceChat answers DELETE .../chats/{chat_id} (spec 4.1, 2.7); see deleteChat.
func deleteComplianceChat(s *core.Server, c *core.Call) (any, error) {
	return withComplianceChat(s, c, func(st *Store, ch *Chat) (any, error) {
		st.deleteChat(ch)
		return ccDeletion{ID: ch.ID, Type: "assistant_chat_deleted"}, nil
	})
}

// withComplianceChat runs f under the store's lock on the caller's live chat named by the path; another
// organization's chat, or one deleted through the API, is a 404.
func withComplianceChat(s *core.Server, c *core.Call, f func(st *Store, ch *Chat) (any, error)) (any, error) {
	st := StoreOf(s, c)
	st.mu.Lock()
	defer st.mu.Unlock()
	id := c.Param("chat_id")
	ch := st.chat(c.Org, id)
	if ch == nil {
		return nil, core.NotFound("chat", id)
	}
	return f(st, ch)
}

// withComplianceFile runs f under the store's lock on the caller's file named by the path.
func withComplianceFile(s *core.Server, c *core.Call, f func(st *Store, file *File) (any, error)) (any, error) {
	st := StoreOf(s, c)
	st.mu.Lock()
	defer st.mu.Unlock()
	id := c.Param("file_id")
	file := st.file(c.Org, id)
	if file == nil {
		return nil, core.NotFound("file", id)
	}
	return f(st, file)
}

// getComplianceFile answers file metadata (spec 2.4, 4.2).
func getComplianceFile(s *core.Server, c *core.Call) (any, error) {
	return withComplianceFile(s, c, func(_ *Store, f *File) (any, error) {
		return ccFileJSON{ID: f.ID, CreatedAt: f.createdAt, Filename: f.filename, MD5: f.md5,
			MessageIDs: slices.Clone(f.messageIDs), MimeType: f.mimeType, SizeBytes: f.sizeBytes}, nil
	})
}

// getComplianceFileContent answers the stored bytes with Content-MD5 (spec 4.2); a file with no
// downloadable content is a 404.
func getComplianceFileContent(s *core.Server, c *core.Call) (any, error) {
	return withComplianceFile(s, c, func(_ *Store, f *File) (any, error) {
		if f.Data == nil {
			return nil, core.NewError(core.ErrNotFound, "file %q has no downloadable content (its mime_type is null)", f.ID)
		}
		return ccDownload(*f.mimeType, f.Data), nil
	})
}

// deleteComplianceFile answers DELETE .../files/{file_id} (spec 4.2, 2.7); see deleteFile.
func deleteComplianceFile(s *core.Server, c *core.Call) (any, error) {
	return withComplianceFile(s, c, func(st *Store, f *File) (any, error) {
		st.deleteFile(f, s.Clock.Now())
		return ccDeletion{ID: f.ID, Type: "assistant_file_deleted"}, nil
	})
}

// liveComplianceChat reports whether ch is a live chat of the caller's organization: generated files and
// artifact versions are served only while their chat is.
func liveComplianceChat(s *core.Server, c *core.Call, ch *Chat) bool {
	st := StoreOf(s, c)
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.chat(c.Org, ch.ID) != nil
}

// generatedFile resolves the generated file of the path, or 404.
func generatedFile(s *core.Server, c *core.Call) (*GeneratedFile, error) {
	id := c.Param("generated_file_id")
	if g := Section.In(c.St.Fx.Sections).Generated[id]; g != nil && liveComplianceChat(s, c, g.chat) {
		return g, nil
	}
	return nil, core.NotFound("generated file", id)
}

// getGeneratedFile answers generated-file metadata (spec 2.5, gaps §10).
func getGeneratedFile(s *core.Server, c *core.Call) (any, error) {
	g, err := generatedFile(s, c)
	if err != nil {
		return nil, err
	}
	return ccGeneratedFileJSON{ID: g.ID, ChatID: g.chat.ID, CreatedAt: g.createdAt, Filename: g.filename,
		MD5: g.md5, MimeType: g.mimeType, SizeBytes: len(g.data)}, nil
}

// getGeneratedFileContent answers a generated file's bytes (spec 4.2), with Content-MD5 as for files.
func getGeneratedFileContent(s *core.Server, c *core.Call) (any, error) {
	g, err := generatedFile(s, c)
	if err != nil {
		return nil, err
	}
	return ccDownload(g.mimeType, g.data), nil
}

// artifactVersion resolves the artifact version of the path, or 404.
func artifactVersion(s *core.Server, c *core.Call) (*ArtifactVersion, error) {
	id := c.Param("artifact_version_id")
	if v := Section.In(c.St.Fx.Sections).Artifacts[id]; v != nil && liveComplianceChat(s, c, v.chat) {
		return v, nil
	}
	return nil, core.NotFound("artifact version", id)
}

// getArtifact answers artifact version metadata (gaps §10).
func getArtifact(s *core.Server, c *core.Call) (any, error) {
	v, err := artifactVersion(s, c)
	if err != nil {
		return nil, err
	}
	return ccArtifactJSON{ID: v.artifactID, ArtifactType: v.artifactType, ChatID: v.chat.ID, CreatedAt: v.createdAt,
		MD5: v.md5, SizeBytes: len(v.content), Title: v.title, VersionID: v.versionID}, nil
}

// getArtifactContent answers the text of an artifact version with Content-MD5 (gaps §10).
func getArtifactContent(s *core.Server, c *core.Call) (any, error) {
	v, err := artifactVersion(s, c)
	if err != nil {
		return nil, err
	}
	return ccDownload("text/plain; charset=utf-8", v.content), nil
}

// listComplianceProjects answers GET /v1/compliance/apps/projects (spec 4.3): page-token pages
// in created_at order, walked from the token's place in the organization's projects.
func listComplianceProjects(s *core.Server, c *core.Call) (any, error) {
	limit, _, err := c.QueryInt("limit")
	if err != nil {
		return nil, err
	}
	created, err := c.QueryTimeRange("created_at")
	if err != nil {
		return nil, err
	}
	const scope = "compliance/projects"
	after, err := c.PageToken(scope)
	if err != nil {
		return nil, err
	}
	users := c.QueryStrings("user_ids")
	var list []*Project
	if ccInOrganizations(c) {
		list = Section.In(c.St.Fx.Sections).Projects[c.Org]
	}
	page := core.PageByTokenKept(list, func(p *Project) bool {
		return created.Contains(p.createdAt) && (len(users) == 0 || slices.Contains(users, p.user.ID))
	}, ccProjectKey, core.OldestFirst, scope, after, limit)
	return core.SplicePage(page.Data, func(p *Project) []byte { return p.encoded },
		ccWithHasMore(core.TokenPage[struct{}]{NextPage: page.NextPage})), nil
}

// ccOrganization is an organization as the compliance API lists it (gaps §10).
type ccOrganization struct {
	UUID      string    `json:"uuid"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// listComplianceOrganizations answers the organizations the key may review: its own.
func listComplianceOrganizations(s *core.Server, c *core.Call) (any, error) {
	o := c.Org
	return ccWithHasMore(core.TokenPage[ccOrganization]{Data: []ccOrganization{{o.UUID, o.Name, o.CreatedAt}}}), nil
}

// listComplianceUsers pages through the members of the caller's organization, by the date they
// joined, under the IDs the administration API uses.
func listComplianceUsers(s *core.Server, c *core.Call) (any, error) {
	id := c.Param("org_uuid")
	if id != c.Org.UUID && id != c.Org.ID {
		return nil, core.NotFound("organization", id)
	}
	limit, _, err := c.QueryInt("limit")
	if err != nil {
		return nil, err
	}
	scope := "compliance/users/" + c.Org.ID
	after, err := c.PageToken(scope)
	if err != nil {
		return nil, err
	}
	var members []core.Member
	for _, u := range c.St.Fx.Users {
		if u.Org == c.Org {
			members = append(members, u)
		}
	}
	key := func(u core.Member) core.ListKey { return core.ListKey{At: u.AddedAt, ID: u.ID} }
	slices.SortFunc(members, func(a, b core.Member) int { return core.OldestFirst(key(a), key(b)) })
	page := core.PageByToken(members, key, core.OldestFirst, scope, after, limit)
	out := core.TokenPage[User]{Data: make([]User, len(page.Data)), NextPage: page.NextPage}
	for i, u := range page.Data {
		out.Data[i] = User{u.ID, u.Email}
	}
	return ccWithHasMore(out), nil
}
