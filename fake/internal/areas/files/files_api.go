package files

import (
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
	"github.com/platformkit/platformkit/schemas"
)

// checkWorkspace refuses a workspace header that names another workspace than the API key's: a
// key belongs to one workspace, and the header "if sent, must match" it (400 naming the header).
func checkWorkspace(c *core.Call) error {
	ws, name, err := c.Workspace()
	switch {
	case err != nil:
		return err
	case ws == "" || ws == c.Cred.WorkspaceID:
		return nil
	case c.Cred.WorkspaceID == "":
		return core.InvalidField(name, "%s is not the workspace of this API key, which belongs to the default workspace; leave the header out", core.Quoted(ws, core.MaxExcerpt))
	}
	return core.InvalidField(name, "%s is not the workspace of this API key (%s); leave the header out or send the key's workspace", core.Quoted(ws, core.MaxExcerpt), c.Cred.WorkspaceID)
}

// fileView is a file as the API answers it.
type fileView struct {
	ID           string     `json:"id"`
	Type         string     `json:"type"`
	Filename     string     `json:"filename"`
	MimeType     string     `json:"mime_type"`
	SizeBytes    int        `json:"size_bytes"`
	CreatedAt    time.Time  `json:"created_at"`
	Downloadable bool       `json:"downloadable"`
	ExpiresAt    *time.Time `json:"expires_at"`
	Scope        *Scope     `json:"scope"`
}

func view(f *File) fileView {
	return fileView{ID: f.ID, Type: "file", Filename: f.Filename, MimeType: f.MimeType, SizeBytes: f.SizeBytes,
		CreatedAt: f.CreatedAt, Downloadable: f.Downloadable, ExpiresAt: f.ExpiresAt, Scope: f.Scope}
}

// upload is what an upload's parts carry.
type upload struct {
	filename, mimeType string
	content            []byte
	expiresIn          int // seconds; 0: never
}

// uploadFile serves POST /v1/files: one part named file, and optionally expires_in_seconds.
// Nothing is stored, and no ID is taken, unless the whole body was read and accepted.
func uploadFile(s *core.Server, c *core.Call) (any, error) {
	if err := checkWorkspace(c); err != nil {
		return nil, err
	}
	mr, err := c.MultipartReader(UploadBodyLimit)
	if err != nil {
		return nil, err
	}
	up, err := readUpload(mr)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	f := &File{CreatedAt: now, Filename: up.filename, MimeType: up.mimeType, SizeBytes: len(up.content),
		Org: c.Cred.Org, WorkspaceID: c.Cred.WorkspaceID, content: up.content}
	if up.expiresIn > 0 {
		at := now.Add(time.Duration(up.expiresIn) * time.Second)
		f.ExpiresAt = &at
	}
	fs := StoreOf(s, c.St)
	fs.mu.Lock()
	err = fs.add(f, &s.IDs, now)
	v := view(f)
	fs.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return v, nil
}

// readUpload reads the parts of an upload, refusing the first that is wrong with the part's name.
func readUpload(mr *multipart.Reader) (*upload, error) {
	var up upload
	seen := map[string]bool{}
	err := core.EachPart(mr, maxParts, "an upload is a part named file and optionally one named expires_in_seconds", func(_ int, name string, p *multipart.Part) error {
		if seen[name] {
			return core.InvalidField(schemas.PathSegment(name), "sent twice; send each field once")
		}
		seen[name] = true
		switch name {
		case "file":
			return readFilePart(p, &up)
		case "expires_in_seconds":
			raw, err := core.FieldPart(p, 32)
			if err != nil {
				return err
			}
			v, perr := strconv.Atoi(strings.TrimSpace(raw))
			if perr != nil || v < MinExpiresIn || v > MaxExpiresIn {
				return core.InvalidField("expires_in_seconds", "must be an integer from %d to %d, got %s", MinExpiresIn, MaxExpiresIn, core.Quoted(raw, core.MaxExcerpt))
			}
			up.expiresIn = v
			return nil
		}
		return core.InvalidField(schemas.PathSegment(name), "unknown field; an upload takes file and expires_in_seconds")
	})
	if err != nil {
		return nil, err
	}
	if !seen["file"] {
		return nil, core.InvalidField("file", "field required: send the file as a multipart part named file")
	}
	return &up, nil
}

// readFilePart reads the file part: its bytes (at most MaxFileBytes), its type and its name.
func readFilePart(p *multipart.Part, up *upload) error {
	data, err := io.ReadAll(io.LimitReader(p, MaxFileBytes+1))
	if err != nil {
		return core.MultipartError(err)
	}
	if len(data) > MaxFileBytes {
		return core.NewError(core.ErrRequestTooLarge, "file: the file is over %d bytes, the most this server keeps in one file", MaxFileBytes)
	}
	if len(data) == 0 {
		return core.InvalidField("file", "the part is empty; a file has at least one byte")
	}
	mt := ""
	if ct := strings.TrimSpace(p.Header.Get("Content-Type")); ct != "" {
		t, _, err := mime.ParseMediaType(ct)
		if err != nil {
			return core.InvalidField("file", "the part's Content-Type %s is not a media type", core.Quoted(ct, core.MaxExcerpt))
		}
		mt = t
	}
	if mt == "" || mt == "application/octet-stream" {
		// The type the content shows, as the platform stores a type for every file.
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(data))
	}
	name := ""
	if _, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition")); err == nil {
		name = params["filename"]
	}
	if name = lastComponent(name); len(name) > MaxFilename {
		return core.InvalidField("file", "its filename is %d bytes; at most %d are kept", len(name), MaxFilename)
	}
	up.filename, up.mimeType, up.content = cleanFilename(name, mt), mt, data
	return nil
}

// lastComponent is the final path component of a part's filename, whichever separator the
// client's system uses.
func lastComponent(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSpace(name)
}

// extensions are the extensions of an unnamed file's name, by its type.
var extensions = map[string]string{
	"application/pdf": ".pdf", "text/plain": ".txt", "text/csv": ".csv", "text/html": ".html", "application/json": ".json",
	"image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif", "image/webp": ".webp", "application/zip": ".zip",
}

// cleanFilename is the name a file is stored under: its final path component, or "unnamed" and
// the extension of its type when it has none.
func cleanFilename(name, mimeType string) string {
	if name = lastComponent(name); name != "" && name != "." && name != ".." {
		return name
	}
	return "unnamed" + extensions[mimeType]
}

// legacy reports whether the request asks for the beta-era shapes.
func legacy(c *core.Call) bool { return c.HasBeta(LegacyBeta) }

// listFiles serves GET /v1/files: the caller's workspace's files, newest first, as page-token
// pages ({data, next_page}), or as one page of the files ids[] names; with LegacyBeta, as cursor
// pages ({data, first_id, last_id, has_more}).
func listFiles(s *core.Server, c *core.Call) (any, error) {
	if err := checkWorkspace(c); err != nil {
		return nil, err
	}
	scopeID := c.QueryValue("scope_id")
	keep := func(f *File) bool { return scopeID == "" || (f.Scope != nil && f.Scope.ID == scopeID) }
	if legacy(c) {
		return legacyList(s, c, keep)
	}
	ids := c.QueryStrings("ids")
	after, err := c.PageToken("files\x00" + scopeID)
	if err != nil {
		return nil, err
	}
	limit, limitSet, err := c.QueryInt("limit")
	if err != nil {
		return nil, err
	}
	fs := StoreOf(s, c.St)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.sweep(s.Clock.Now())
	list := fs.lists[ownerOf(c.Cred)]
	if len(ids) > 0 {
		ids = slices.Compact(slices.Sorted(slices.Values(ids)))
		switch {
		case len(ids) > MaxListIDs:
			return nil, core.InvalidField("ids", "at most %d IDs (after removing duplicates), got %d", MaxListIDs, len(ids))
		case after != nil || limitSet:
			return nil, core.InvalidField("ids", "cannot be combined with page or limit: the IDs are answered in one page")
		}
		page := core.TokenPage[fileView]{Data: []fileView{}}
		for i := len(list) - 1; i >= 0; i-- {
			if f := list[i]; keep(f) {
				if _, found := slices.BinarySearch(ids, f.ID); found {
					page.Data = append(page.Data, view(f))
				}
			}
		}
		return page, nil
	}
	p := core.PageNewestKept(list, keep, fileKey, "files\x00"+scopeID, after, limit)
	return core.TokenPage[fileView]{Data: views(p.Data), NextPage: p.NextPage}, nil
}

// legacyList is the list as the beta-era clients read it: after_id, before_id and limit.
func legacyList(s *core.Server, c *core.Call, keep func(*File) bool) (any, error) {
	q, err := c.CursorQuery()
	if err != nil {
		return nil, err
	}
	fs := StoreOf(s, c.St)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.sweep(s.Clock.Now())
	list := slices.Clone(fs.lists[ownerOf(c.Cred)])
	slices.Reverse(list)
	p, err := core.PageKept(list, keep, fileKey, func(f *File) string { return f.ID }, core.NewestFirst, q, core.LookupIn(list, fileKey))
	if err != nil {
		return nil, err
	}
	return core.CursorPage[fileView]{Data: views(p.Data), FirstID: p.FirstID, HasMore: p.HasMore, LastID: p.LastID}, nil
}

func views(fs []*File) []fileView {
	out := make([]fileView, len(fs))
	for i, f := range fs {
		out[i] = view(f)
	}
	return out
}

// found is the file of the route's file_id as the caller sees it, under fs.mu.
func found(s *core.Server, c *core.Call, fs *Store) (*File, error) {
	if err := checkWorkspace(c); err != nil {
		return nil, err
	}
	fs.sweep(s.Clock.Now())
	id := c.Param("file_id")
	f := fs.find(c.Cred, id)
	if f == nil {
		return nil, core.NotFound("file", id)
	}
	return f, nil
}

// getFile serves GET /v1/files/{file_id}: the metadata, also of an expired file.
func getFile(s *core.Server, c *core.Call) (any, error) {
	fs := StoreOf(s, c.St)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, err := found(s, c, fs)
	if err != nil {
		return nil, err
	}
	return view(f), nil
}

// downloadFile serves GET /v1/files/{file_id}/content: the bytes of a file the fake made; an
// uploaded file is 400 file_not_downloadable, an expired one 404 file_expired.
func downloadFile(s *core.Server, c *core.Call) (any, error) {
	fs := StoreOf(s, c.St)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, err := found(s, c, fs)
	switch {
	case err != nil:
		return nil, err
	case f.Expired(s.Clock.Now()):
		return nil, expiredError(f)
	case !f.Downloadable:
		return nil, core.Invalid("file: %s was uploaded, and uploaded files cannot be downloaded; only files the platform made (by a tool, by a skill) can", core.Quoted(f.ID, core.MaxExcerpt)).
			WithDetails(core.ErrorDetails{ErrorCode: CodeNotDownloadable})
	}
	return core.RawBody{ContentType: f.MimeType, Data: f.content, Header: map[string]string{
		"Content-Disposition": mime.FormatMediaType("attachment", map[string]string{"filename": f.Filename}),
	}}, nil
}

// deleted is the answer of a delete.
type deleted struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// deleteFile serves DELETE /v1/files/{file_id}: the file is gone for good, and its bytes leave
// the quota.
func deleteFile(s *core.Server, c *core.Call) (any, error) {
	fs := StoreOf(s, c.St)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, err := found(s, c, fs)
	if err != nil {
		return nil, err
	}
	fs.remove(f)
	return deleted{f.ID, "file_deleted"}, nil
}
