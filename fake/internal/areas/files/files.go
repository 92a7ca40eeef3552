package files

import (
	"slices"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The bounds of the area, scaled for a fake (the platform's are 500 MB a file and 100 GB an
// organization): every byte a request makes the fake keep is counted in the organization's
// quota of its server or namespace, and in one budget shared by a server and all its namespaces.
const (
	// MaxFileBytes is the largest file an upload may carry (413 request_too_large above it).
	MaxFileBytes = 4 << 20
	// UploadBodyLimit is the largest upload body: one file and its multipart framing.
	UploadBodyLimit = MaxFileBytes + 64<<10
	// MaxOrgBytes is what the files of one organization may hold together, per server or
	// namespace (400 storage_quota_exceeded beyond it).
	MaxOrgBytes = 16 << 20
	// MaxOrgFiles is how many files one organization may keep, per server or namespace, expired
	// ones included until deleted (400 storage_quota_exceeded beyond it).
	MaxOrgFiles = 1_000
	// FilesBytes is what the files of a server and all its namespaces may keep together: their
	// bytes and fileOverhead per file (400 storage_quota_exceeded beyond it).
	FilesBytes = 128 << 20
	// fileOverhead is what a file's record is counted for besides its bytes and names.
	fileOverhead = 512
	// MaxFilename is the longest filename kept, in bytes.
	MaxFilename = 255
	// MinExpiresIn and MaxExpiresIn bound expires_in_seconds (one hour to ninety days).
	MinExpiresIn = 3_600
	MaxExpiresIn = 7_776_000
	// DefaultPage and MaxPage bound the list's limit; MaxListIDs the ids[] filter.
	DefaultPage = 20
	MaxPage     = 1_000
	MaxListIDs  = 100
	// maxParts is how many parts an upload may have: file and expires_in_seconds, and room for
	// a client that sends an empty field.
	maxParts = 8
)

// LegacyBeta is the beta value that selects the files API's beta-era list shape ({data,
// has_more, first_id, last_id}, after_id and before_id, no ids[]), which clients that still send
// it read.
const LegacyBeta = "files-api-2025-04-14"

// The error codes of the area (error.details.error_code, which the official SDKs raise as
// their own exception types).
const (
	CodeNotDownloadable = "file_not_downloadable"
	CodeExpired         = "file_expired"
	CodeQuotaExceeded   = "storage_quota_exceeded"
)

// Scope is what a file was made in (a session), or nil for an organization's own file.
type Scope struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// File is one file. A file is never changed once stored, except that its content is let go
// when it expires (Content is then nil): a copy handed out stays valid after the lock is gone.
type File struct {
	ID           string
	CreatedAt    time.Time
	Filename     string
	MimeType     string
	SizeBytes    int
	Downloadable bool
	ExpiresAt    *time.Time
	Scope        *Scope
	Org          *core.Org
	WorkspaceID  string // "" is the organization's default workspace
	content      []byte
	// fixture: the content is the fixtures', shared by every server that loads them, and is not
	// counted again in each server's budget.
	fixture bool
}

// Content is the file's bytes; nil once it expired. The slice is shared: never write to it.
func (f *File) Content() []byte { return f.content }

// Expired reports whether the file's content is gone at now.
func (f *File) Expired(now time.Time) bool { return f.ExpiresAt != nil && !now.Before(*f.ExpiresAt) }

// held is what the file counts in the shared budget.
func (f *File) held() int {
	n := fileOverhead + len(f.Filename) + len(f.MimeType)
	if !f.fixture {
		n += len(f.content)
	}
	if f.Scope != nil {
		n += len(f.Scope.ID)
	}
	return n
}

func fileKey(f *File) core.ListKey { return core.ListKey{At: f.CreatedAt, ID: f.ID} }

// owner is who sees a file: an organization's workspace.
type owner struct {
	org *core.Org
	ws  string
}

func ownerOf(cred *core.Credential) owner { return owner{cred.Org, cred.WorkspaceID} }

// usage is an organization's share of its quota.
type usage struct{ bytes, files int }

// Store is the files of one server (or namespace), under one mutex.
type Store struct {
	mu    sync.Mutex
	byID  map[string]*File
	lists map[owner][]*File // oldest first, so a new file is appended
	used  map[*core.Org]*usage
	// nextExpiry is the earliest expires_at of a file that still holds content, nil for none:
	// sweep costs nothing until the clock passes it.
	nextExpiry *time.Time
	core.Charged
}

// storeOf is the files of st, built from its fixtures on first use and charged to budget.
func storeOf(st *core.State, budget *core.ByteBudget) *Store {
	return FileStores.In(st.Stores).Get(func() *Store { return build(st.Fx, budget) })
}

// StoreOf is the files of the request's server.
func StoreOf(s *core.Server, st *core.State) *Store { return storeOf(st, s.Cfg.Budget(filesBudget)) }

// release takes the store's bytes out of the shared budget for good: its state was replaced or
// its namespace dropped.
func (fs *Store) release() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.Leave()
	clear(fs.byID)
	clear(fs.lists)
	clear(fs.used)
}

func (fs *Store) usageOf(org *core.Org) *usage {
	u := fs.used[org]
	if u == nil {
		u = &usage{}
		fs.used[org] = u
	}
	return u
}

// put adds f, whose ID is set, to the indexes; the caller holds mu and has charged it.
func (fs *Store) put(f *File) {
	fs.byID[f.ID] = f
	o := owner{f.Org, f.WorkspaceID}
	fs.lists[o] = core.InsertInOrder(fs.lists[o], f, fileKey, core.OldestFirst)
	u := fs.usageOf(f.Org)
	u.bytes += len(f.content)
	u.files++
	if f.ExpiresAt != nil && f.content != nil && (fs.nextExpiry == nil || f.ExpiresAt.Before(*fs.nextExpiry)) {
		fs.nextExpiry = f.ExpiresAt
	}
}

// add stores a new file: it checks the organization's quota and the shared budget, then takes
// the file's ID from ids, so that a refused file moves no counter. The caller holds mu.
func (fs *Store) add(f *File, ids *core.IDs, now time.Time) error {
	fs.sweep(now)
	u := fs.usageOf(f.Org)
	switch {
	case u.files >= MaxOrgFiles:
		return quotaError("the organization keeps %d files, the most this server keeps for one organization; delete files, then upload again", u.files)
	case u.bytes+len(f.content) > MaxOrgBytes:
		return quotaError("the organization's files hold %d bytes and this one %d, more than the %d bytes this server keeps for one organization; delete files, then upload again", u.bytes, len(f.content), MaxOrgBytes)
	}
	n := f.held()
	if !fs.Reserve(n) {
		return quotaError("the files of this server and all its namespaces hold %d bytes together, and this one would pass their budget of %d bytes; delete files, here or in other namespaces, then upload again", fs.Budget.Bytes.Load(), fs.Budget.Limit)
	}
	f.ID = ids.Next("file_")
	fs.put(f)
	return nil
}

// remove takes f out of the store and gives back what it counted; the caller holds mu.
func (fs *Store) remove(f *File) {
	delete(fs.byID, f.ID)
	o := owner{f.Org, f.WorkspaceID}
	fs.lists[o] = core.RemoveInOrder(fs.lists[o], f, fileKey, core.OldestFirst)
	u := fs.usageOf(f.Org)
	u.bytes -= len(f.content)
	u.files--
	fs.Give(f.held())
}

// sweep lets go of the content of every file that expired by now: the bytes leave the quota and
// the budget, the record stays until deleted. The caller holds mu.
func (fs *Store) sweep(now time.Time) {
	if fs.nextExpiry == nil || now.Before(*fs.nextExpiry) {
		return
	}
	fs.nextExpiry = nil
	for _, f := range fs.byID {
		if f.ExpiresAt == nil || f.content == nil {
			continue
		}
		if f.Expired(now) {
			g := *f
			g.content = nil
			fs.replace(f, &g)
			fs.usageOf(f.Org).bytes -= len(f.content)
			if !f.fixture {
				fs.Give(len(f.content))
			}
			continue
		}
		if fs.nextExpiry == nil || f.ExpiresAt.Before(*fs.nextExpiry) {
			fs.nextExpiry = f.ExpiresAt
		}
	}
}

// replace puts g, a changed copy of f, in f's place: a File handed out is never written to.
func (fs *Store) replace(f, g *File) {
	fs.byID[f.ID] = g
	list := fs.lists[owner{f.Org, f.WorkspaceID}]
	if i := slices.Index(list, f); i >= 0 {
		list[i] = g
	}
}

// find is the file id as the credential's workspace sees it, nil when it sees none; the caller
// holds mu.
func (fs *Store) find(cred *core.Credential, id string) *File {
	f := fs.byID[id]
	if f == nil || f.Org != cred.Org || f.WorkspaceID != cred.WorkspaceID {
		return nil
	}
	return f
}

// Spec is a file the fake itself makes: a tool's output, a skill's archive. Such a file is
// downloadable, as the platform's own files are.
type Spec struct {
	Filename, MimeType string
	Content            []byte // kept as it is: the caller does not write to it afterwards
	Scope              *Scope // nil: the organization's own file
	ExpiresIn          time.Duration
}

// Create stores a downloadable file for the credential's organization and workspace, as an
// upload would be stored (the same quotas, the same list), and returns it. It returns
// storage_quota_exceeded (400) when the organization's quota or the server's budget has no room;
// a spec with no content or no MIME type is a bug of the caller and refused the same way as an
// empty upload.
func Create(s *core.Server, st *core.State, cred *core.Credential, spec Spec) (*File, error) {
	if len(spec.Content) == 0 || spec.MimeType == "" {
		return nil, core.Invalid("files.Create: a file has content and a MIME type")
	}
	now := s.Clock.Now()
	f := &File{CreatedAt: now, Filename: cleanFilename(spec.Filename, spec.MimeType), MimeType: spec.MimeType,
		SizeBytes: len(spec.Content), Downloadable: true, Scope: spec.Scope, Org: cred.Org, WorkspaceID: cred.WorkspaceID, content: spec.Content}
	if spec.ExpiresIn > 0 {
		at := now.Add(spec.ExpiresIn)
		f.ExpiresAt = &at
	}
	fs := StoreOf(s, st)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if err := fs.add(f, &s.IDs, now); err != nil {
		return nil, err
	}
	g := *f
	return &g, nil
}

// Lookup is the file id as the credential sees it, for a request that names it (a document or
// image source, a container_upload block, a session resource). It returns not_found_error (404)
// for an ID that is unknown, deleted, or another organization's or workspace's (the same answer,
// so nothing leaks), and not_found_error with error_code file_expired (404) for a file whose
// content expired. The File is a copy; its content is shared and must not be written to.
func Lookup(s *core.Server, st *core.State, cred *core.Credential, id string) (*File, error) {
	fs := StoreOf(s, st)
	now := s.Clock.Now()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.sweep(now)
	f := fs.find(cred, id)
	if f == nil {
		return nil, core.NotFound("file", id)
	}
	if f.Expired(now) {
		return nil, expiredError(f)
	}
	g := *f
	return &g, nil
}

// Block is a kind of block that refers to a file.
type Block string

const (
	DocumentBlock        Block = "document"         // source {type: file, file_id}: PDF or plain text
	ImageBlock           Block = "image"            // source {type: file, file_id}: JPEG, PNG, GIF or WebP
	ContainerUploadBlock Block = "container_upload" // {type: container_upload, file_id}: any file
)

// blockTypes are the MIME types each kind of block takes; nil takes any.
var blockTypes = map[Block][]string{
	DocumentBlock: {"application/pdf", "text/plain"},
	ImageBlock:    {"image/jpeg", "image/png", "image/gif", "image/webp"},
}

// LookupSource is Lookup for a block of the given kind whose file_id is at path (such as
// "messages.0.content.1.source.file_id"): every refusal names path (the 404s of Lookup as
// "path: file ... was not found"), and it adds the 400 for a file of a type the block does not
// take (a PNG as a document).
func LookupSource(s *core.Server, st *core.State, cred *core.Credential, block Block, path, id string) (*File, error) {
	if cred == nil {
		return nil, core.NotFound("file", id).At(path)
	}
	f, err := Lookup(s, st, cred, id)
	if ae, ok := err.(*core.APIError); ok {
		return nil, ae.At(path)
	}
	if err != nil {
		return nil, err
	}
	if allowed := blockTypes[block]; allowed != nil && !slices.Contains(allowed, f.MimeType) {
		return nil, core.InvalidField(path, "file %s is %s; a %s block takes a file of type %s", core.Quoted(id, core.MaxExcerpt), f.MimeType, block, joinOr(allowed))
	}
	return f, nil
}

func joinOr(xs []string) string {
	out := ""
	for i, x := range xs {
		switch {
		case i == 0:
		case i == len(xs)-1:
			out += " or "
		default:
			out += ", "
		}
		out += x
	}
	return out
}

func quotaError(format string, args ...any) error {
	return core.Invalid("file: "+format, args...).WithDetails(core.ErrorDetails{ErrorCode: CodeQuotaExceeded})
}

func expiredError(f *File) error {
	return core.NewError(core.ErrNotFound, "file %s expired at %s; its content is no longer available", core.Quoted(f.ID, core.MaxExcerpt), f.ExpiresAt.Format(time.RFC3339)).
		WithDetails(core.ErrorDetails{ErrorCode: CodeExpired})
}
