package core

import (
	"container/list"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// Namespaces: one process serves many isolated worlds, so that test suites in any language can
// run in parallel against one binary. A request selects a namespace with the
// path prefix /ns/<name>/ (stripped before routing, so any SDK works by setting its base URL) or
// with the header Fake-Namespace: <name>. Each namespace is a whole *Server built from the
// default server's fixtures and options: its own data, virtual clock, ID counters, journal and
// faults, and whatever else a server keeps. It is created on first use, which costs what New
// costs (microseconds: area state is built lazily from fixtures parsed once per process), and the
// least recently used one is dropped when a new one would exceed the maximum.
//
// Requests in a namespace never appear in the default server's journal, and a namespace answers
// exactly as a new server would given the same requests: the prefix and the header are removed
// before the namespace sees the request. Resetting the default server leaves the namespaces
// alone; DELETE /_fake/namespaces drops them.

// NamespaceHeader selects a namespace, for clients that can add headers but not change paths.
const NamespaceHeader = "Fake-Namespace"

// DefaultMaxNamespaces is how many namespaces a server keeps unless WithMaxNamespaces says
// otherwise. A namespace that has been used holds the state its requests built (a few KiB to a
// few MiB, depending on which areas it touched), so the bound keeps a long CI run from growing
// the process without limit.
const DefaultMaxNamespaces = 1000

// MaxNamespaceName is the longest namespace name.
const MaxNamespaceName = 64

// NsPrefix begins the path of a request in a namespace: /ns/<name>/v1/models.
const NsPrefix = "/ns/"

// NamespaceInfo is the face's NamespaceInfo (package fake), which documents it.
type NamespaceInfo struct {
	Name       string    `json:"name"`
	CreatedAt  time.Time `json:"created_at"`
	LastUsedAt time.Time `json:"last_used_at"` // last request, or last Namespace call in Go
	Requests   int64     `json:"requests"`     // HTTP requests served in it, control calls included
}

type Namespace struct {
	Srv  *Server
	Info NamespaceInfo
}

// namespaceSet is the default server's registry. The zero value is empty and ready, so that New
// costs nothing more for servers that never use a namespace.
type namespaceSet struct {
	Mu     sync.Mutex
	ByName map[string]*list.Element // of *namespace
	Lru    list.List                // of *namespace, most recently used first
}

// NamespaceGrammar is the rule for names: such a name goes into a URL path unescaped, and no
// client or proxy rewrites it.
const NamespaceGrammar = `a namespace name is 1 to 64 of the characters A-Z a-z 0-9 . _ - (and neither "." nor "..")`

func ValidNamespaceName(name string) bool {
	if name == "" || len(name) > MaxNamespaceName || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !('a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9' || ch == '.' || ch == '_' || ch == '-') {
			return false
		}
	}
	return true
}

// checkNamespaceName is the error for a name outside the grammar, for the Go methods and the
// control calls.
func checkNamespaceName(name string) error {
	if !ValidNamespaceName(name) {
		return Invalid("namespace %s: %s", Quoted(name, MaxExcerpt), NamespaceGrammar)
	}
	return nil
}

// errNested answers the namespace calls made inside a namespace.
func errNested() error {
	return Invalid("namespaces do not nest: list and delete them on the default server, without the /ns/<name>/ prefix or the %s header", NamespaceHeader)
}

// Namespace is the face's Server.Namespace (package fake), which documents it.
func (s *Server) Namespace(name string) (*Server, error) {
	return s.namespace(name, false)
}

func (s *Server) namespace(name string, request bool) (*Server, error) {
	if s.NsName != "" {
		return nil, errNested()
	}
	if err := checkNamespaceName(name); err != nil {
		return nil, err
	}
	set := &s.Spaces
	now := time.Now().UTC()
	set.Mu.Lock()
	defer set.Mu.Unlock()
	e := set.ByName[name]
	if e != nil {
		set.Lru.MoveToFront(e)
	} else {
		if set.ByName == nil {
			set.ByName = map[string]*list.Element{}
		}
		for set.Lru.Len() >= s.Cfg.MaxNamespaces {
			set.drop(set.Lru.Back())
		}
		cfg := s.Cfg
		if cfg.Logger != nil {
			cfg.Logger = cfg.Logger.With(slog.String("namespace", name))
		}
		child := newServer(cfg)
		child.NsName, child.parent = name, s
		e = set.Lru.PushFront(&Namespace{Srv: child, Info: NamespaceInfo{Name: name, CreatedAt: now}})
		set.ByName[name] = e
	}
	ns := e.Value.(*Namespace)
	ns.Info.LastUsedAt = now
	if request {
		ns.Info.Requests++
	}
	return ns.Srv, nil
}

// Namespaces is the face's Server.Namespaces (package fake), which documents it.
func (s *Server) Namespaces() []NamespaceInfo {
	set := &s.Spaces
	set.Mu.Lock()
	defer set.Mu.Unlock()
	out := make([]NamespaceInfo, 0, set.Lru.Len())
	for e := set.Lru.Front(); e != nil; e = e.Next() {
		out = append(out, e.Value.(*Namespace).Info)
	}
	return out
}

// DeleteNamespace is the face's Server.DeleteNamespace (package fake), which documents it.
func (s *Server) DeleteNamespace(name string) bool {
	set := &s.Spaces
	set.Mu.Lock()
	defer set.Mu.Unlock()
	e := set.ByName[name]
	if e == nil {
		return false
	}
	set.drop(e)
	return true
}

// ClearNamespaces is the face's Server.ClearNamespaces (package fake), which documents it.
func (s *Server) ClearNamespaces() int {
	set := &s.Spaces
	set.Mu.Lock()
	defer set.Mu.Unlock()
	n := set.Lru.Len()
	for set.Lru.Len() > 0 {
		set.drop(set.Lru.Front())
	}
	return n
}

// drop removes a namespace; the caller holds mu. Its journal, cache, threads and stubs leave
// their shared budgets: a request still in flight there finishes on the dropped state, and what it
// records or keeps no longer counts.
func (set *namespaceSet) drop(e *list.Element) {
	ns := set.Lru.Remove(e).(*Namespace)
	delete(set.ByName, ns.Info.Name)
	ns.Srv.RequestLog.detach()
	ns.Srv.State().release()
	for _, a := range areaList {
		if a.Drop != nil {
			a.Drop(ns.Srv)
		}
	}
}

// TrimIdle brings the stores of one kind of s and its namespaces back within their shared
// budget: trim(srv) makes room in srv's store while the budget is over, and it is called on the
// least recently used namespaces first, then on the default server, then on busy, the server whose
// request went over. So a test's own store is the last to give way to the stores of namespaces it
// does not use. No store's lock is held by the caller.
func (s *Server) TrimIdle(busy *Server, budget *ByteBudget, trim func(srv *Server)) {
	set := &s.Spaces
	set.Mu.Lock()
	for e := set.Lru.Back(); e != nil && budget.Over(); e = e.Prev() {
		if ns := e.Value.(*Namespace).Srv; ns != busy {
			trim(ns)
		}
	}
	set.Mu.Unlock()
	if busy != s && budget.Over() {
		trim(s)
	}
	if budget.Over() {
		trim(busy)
	}
}

// trimIdleJournals brings the journals of s and its namespaces back within their shared budget
// (journalsBytes) by dropping the oldest entries of the least recently used namespaces' journals
// first, never those of busy, the namespace whose request went over it. A test's own journal is
// thus kept whole while the journals of namespaces it does not use make room.
func (s *Server) trimIdleJournals(busy *Server) {
	set := &s.Spaces
	set.Mu.Lock()
	defer set.Mu.Unlock()
	budget := s.Cfg.Journals
	for e := set.Lru.Back(); e != nil && budget.Over(); e = e.Prev() {
		if ns := e.Value.(*Namespace).Srv; ns != busy {
			ns.RequestLog.trim()
		}
	}
}

// selectNamespace finds the namespace a request is for. It returns nil and r when the request
// names none; otherwise the namespace and r as a new server would see it: without the prefix
// and the header. A name outside the grammar, or a header and a prefix that disagree, is an
// invalid_request_error naming them.
func (s *Server) selectNamespace(r *http.Request) (*Server, *http.Request, error) {
	header := strings.TrimSpace(headerOf(r.Header, NamespaceHeader))
	prefixed := strings.HasPrefix(r.URL.Path, NsPrefix)
	if header == "" && !prefixed {
		return nil, r, nil
	}
	r2 := r.WithContext(r.Context())
	name := header
	if prefixed {
		// Split the escaped path, so that an escaped "/" cannot move where the name ends; the
		// grammar of names has no character that needs escaping.
		after, _ := strings.CutPrefix(r.URL.EscapedPath(), NsPrefix)
		var rest string
		name, rest, _ = strings.Cut(after, "/")
		if !ValidNamespaceName(name) {
			return nil, nil, Invalid("path: %s%s/ does not name a namespace: %s", NsPrefix, Excerpt(name, MaxExcerpt), NamespaceGrammar)
		}
		if header != "" && header != name {
			return nil, nil, Invalid("%s: the header names namespace %s but the path is under %s%s/; send one of them, or the same name in both", strings.ToLower(NamespaceHeader), Quoted(header, MaxExcerpt), NsPrefix, name)
		}
		u := *r.URL
		u.RawPath = "/" + rest
		var err error
		if u.Path, err = url.PathUnescape(u.RawPath); err != nil {
			return nil, nil, Invalid("path: %v", err)
		}
		r2.URL = &u
	} else if !ValidNamespaceName(name) {
		return nil, nil, Invalid("%s: %s does not name a namespace: %s", strings.ToLower(NamespaceHeader), Quoted(name, MaxExcerpt), NamespaceGrammar)
	}
	if header != "" {
		r2.Header = r.Header.Clone()
		r2.Header.Del(NamespaceHeader)
	}
	srv, err := s.namespace(name, true)
	return srv, r2, err
}

// refusalKey carries why a request was refused before routing (a bad namespace).
type refusalKey struct{}

// refusals answers requests refused before routing: the frame of every request (request-id,
// journal, log) around the refusal, on the default server.
var refusals = sync.OnceValue(func() *gin.Engine {
	e := NewEngine(nil)
	e.NoRoute(func(gc *gin.Context) {
		serverOf(gc).writeError(gc, gc.Request.Context().Value(refusalKey{}).(error))
	})
	return e
})

func (s *Server) listNamespaces(c *Call) (any, error) {
	if s.NsName != "" {
		return nil, errNested()
	}
	return struct {
		Data []NamespaceInfo `json:"data"`
		Max  int             `json:"max"`
	}{s.Namespaces(), s.Cfg.MaxNamespaces}, nil
}

func (s *Server) deleteNamespace(c *Call) (any, error) {
	if s.NsName != "" {
		return nil, errNested()
	}
	name := c.Param("name")
	if err := checkNamespaceName(name); err != nil {
		return nil, err
	}
	n := 0
	if s.DeleteNamespace(name) {
		n = 1
	}
	return ClearedBody{n}, nil
}

func (s *Server) clearNamespaces(c *Call) (any, error) {
	if s.NsName != "" {
		return nil, errNested()
	}
	return ClearedBody{s.ClearNamespaces()}, nil
}

// serveRefusal answers r with err on the default server.
func (s *Server) serveRefusal(w http.ResponseWriter, r *http.Request, err error) {
	s.ServeOn(refusals(), w, r.WithContext(context.WithValue(r.Context(), refusalKey{}, err)))
}
