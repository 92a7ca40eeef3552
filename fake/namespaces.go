package fake

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

// maxNamespaceName is the longest namespace name.
const maxNamespaceName = 64

// nsPrefix begins the path of a request in a namespace: /ns/<name>/v1/models.
const nsPrefix = "/ns/"

// NamespaceInfo describes a namespace (GET /_fake/namespaces). Times are on the wall clock, since
// every namespace has a virtual clock of its own.
type NamespaceInfo struct {
	Name       string    `json:"name"`
	CreatedAt  time.Time `json:"created_at"`
	LastUsedAt time.Time `json:"last_used_at"` // last request, or last Namespace call in Go
	Requests   int64     `json:"requests"`     // HTTP requests served in it, control calls included
}

type namespace struct {
	srv  *Server
	info NamespaceInfo
}

// namespaceSet is the default server's registry. The zero value is empty and ready, so that New
// costs nothing more for servers that never use a namespace.
type namespaceSet struct {
	mu     sync.Mutex
	byName map[string]*list.Element // of *namespace
	lru    list.List                // of *namespace, most recently used first
}

// namespaceGrammar is the rule for names: such a name goes into a URL path unescaped, and no
// client or proxy rewrites it.
const namespaceGrammar = `a namespace name is 1 to 64 of the characters A-Z a-z 0-9 . _ - (and neither "." nor "..")`

func validNamespaceName(name string) bool {
	if name == "" || len(name) > maxNamespaceName || name == "." || name == ".." {
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
	if !validNamespaceName(name) {
		return invalid("namespace %s: %s", quoted(name, maxExcerpt), namespaceGrammar)
	}
	return nil
}

// errNested answers the namespace calls made inside a namespace.
func errNested() error {
	return invalid("namespaces do not nest: list and delete them on the default server, without the /ns/<name>/ prefix or the %s header", NamespaceHeader)
}

// Namespace returns the namespace called name, creating it from the fixtures if it does not
// exist (and dropping the least recently used one if that would exceed the maximum). It is the
// server that requests with the prefix /ns/<name>/ or the header Fake-Namespace: <name> reach.
// It returns an invalid_request_error for a name outside the grammar, and for a server that is
// itself a namespace.
func (s *Server) Namespace(name string) (*Server, error) {
	return s.namespace(name, false)
}

func (s *Server) namespace(name string, request bool) (*Server, error) {
	if s.nsName != "" {
		return nil, errNested()
	}
	if err := checkNamespaceName(name); err != nil {
		return nil, err
	}
	set := &s.spaces
	now := time.Now().UTC()
	set.mu.Lock()
	defer set.mu.Unlock()
	e := set.byName[name]
	if e != nil {
		set.lru.MoveToFront(e)
	} else {
		if set.byName == nil {
			set.byName = map[string]*list.Element{}
		}
		for set.lru.Len() >= s.cfg.maxNamespaces {
			set.drop(set.lru.Back())
		}
		cfg := s.cfg
		if cfg.logger != nil {
			cfg.logger = cfg.logger.With(slog.String("namespace", name))
		}
		child := newServer(cfg)
		child.nsName, child.parent = name, s
		e = set.lru.PushFront(&namespace{srv: child, info: NamespaceInfo{Name: name, CreatedAt: now}})
		set.byName[name] = e
	}
	ns := e.Value.(*namespace)
	ns.info.LastUsedAt = now
	if request {
		ns.info.Requests++
	}
	return ns.srv, nil
}

// Namespaces lists the namespaces, most recently used first: the last one is the next to be
// dropped. A namespace has none.
func (s *Server) Namespaces() []NamespaceInfo {
	set := &s.spaces
	set.mu.Lock()
	defer set.mu.Unlock()
	out := make([]NamespaceInfo, 0, set.lru.Len())
	for e := set.lru.Front(); e != nil; e = e.Next() {
		out = append(out, e.Value.(*namespace).info)
	}
	return out
}

// DeleteNamespace drops the namespace called name and reports whether it existed. A request in
// flight there finishes on the dropped state; the next request under that name starts afresh.
func (s *Server) DeleteNamespace(name string) bool {
	set := &s.spaces
	set.mu.Lock()
	defer set.mu.Unlock()
	e := set.byName[name]
	if e == nil {
		return false
	}
	set.drop(e)
	return true
}

// ClearNamespaces drops every namespace and returns how many there were.
func (s *Server) ClearNamespaces() int {
	set := &s.spaces
	set.mu.Lock()
	defer set.mu.Unlock()
	n := set.lru.Len()
	for set.lru.Len() > 0 {
		set.drop(set.lru.Front())
	}
	return n
}

// drop removes a namespace; the caller holds mu. Its journal, cache, threads and stubs leave
// their shared budgets: a request still in flight there finishes on the dropped state, and what it
// records or keeps no longer counts.
func (set *namespaceSet) drop(e *list.Element) {
	ns := set.lru.Remove(e).(*namespace)
	delete(set.byName, ns.info.Name)
	ns.srv.requestLog.detach()
	ns.srv.state().release()
	for _, a := range areaList {
		if a.drop != nil {
			a.drop(ns.srv)
		}
	}
}

// trimIdle brings the stores of one kind of s and its namespaces back within their shared
// budget: trim(srv) makes room in srv's store while the budget is over, and it is called on the
// least recently used namespaces first, then on the default server, then on busy, the server whose
// request went over. So a test's own store is the last to give way to the stores of namespaces it
// does not use. No store's lock is held by the caller.
func (s *Server) trimIdle(busy *Server, budget *byteBudget, trim func(srv *Server)) {
	set := &s.spaces
	set.mu.Lock()
	for e := set.lru.Back(); e != nil && budget.over(); e = e.Prev() {
		if ns := e.Value.(*namespace).srv; ns != busy {
			trim(ns)
		}
	}
	set.mu.Unlock()
	if busy != s && budget.over() {
		trim(s)
	}
	if budget.over() {
		trim(busy)
	}
}

// trimIdleJournals brings the journals of s and its namespaces back within their shared budget
// (journalsBytes) by dropping the oldest entries of the least recently used namespaces' journals
// first, never those of busy, the namespace whose request went over it. A test's own journal is
// thus kept whole while the journals of namespaces it does not use make room.
func (s *Server) trimIdleJournals(busy *Server) {
	set := &s.spaces
	set.mu.Lock()
	defer set.mu.Unlock()
	budget := s.cfg.journals
	for e := set.lru.Back(); e != nil && budget.over(); e = e.Prev() {
		if ns := e.Value.(*namespace).srv; ns != busy {
			ns.requestLog.trim()
		}
	}
}

// selectNamespace finds the namespace a request is for. It returns nil and r when the request
// names none; otherwise the namespace and r as a new server would see it: without the prefix
// and the header. A name outside the grammar, or a header and a prefix that disagree, is an
// invalid_request_error naming them.
func (s *Server) selectNamespace(r *http.Request) (*Server, *http.Request, error) {
	header := strings.TrimSpace(headerOf(r.Header, NamespaceHeader))
	prefixed := strings.HasPrefix(r.URL.Path, nsPrefix)
	if header == "" && !prefixed {
		return nil, r, nil
	}
	r2 := r.WithContext(r.Context())
	name := header
	if prefixed {
		// Split the escaped path, so that an escaped "/" cannot move where the name ends; the
		// grammar of names has no character that needs escaping.
		after, _ := strings.CutPrefix(r.URL.EscapedPath(), nsPrefix)
		var rest string
		name, rest, _ = strings.Cut(after, "/")
		if !validNamespaceName(name) {
			return nil, nil, invalid("path: %s%s/ does not name a namespace: %s", nsPrefix, excerpt(name, maxExcerpt), namespaceGrammar)
		}
		if header != "" && header != name {
			return nil, nil, invalid("%s: the header names namespace %s but the path is under %s%s/; send one of them, or the same name in both", strings.ToLower(NamespaceHeader), quoted(header, maxExcerpt), nsPrefix, name)
		}
		u := *r.URL
		u.RawPath = "/" + rest
		var err error
		if u.Path, err = url.PathUnescape(u.RawPath); err != nil {
			return nil, nil, invalid("path: %v", err)
		}
		r2.URL = &u
	} else if !validNamespaceName(name) {
		return nil, nil, invalid("%s: %s does not name a namespace: %s", strings.ToLower(NamespaceHeader), quoted(name, maxExcerpt), namespaceGrammar)
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
	e := newEngine(nil)
	e.NoRoute(func(gc *gin.Context) {
		serverOf(gc).writeError(gc, gc.Request.Context().Value(refusalKey{}).(error))
	})
	return e
})

func (s *Server) listNamespaces(c *call) (any, error) {
	if s.nsName != "" {
		return nil, errNested()
	}
	return struct {
		Data []NamespaceInfo `json:"data"`
		Max  int             `json:"max"`
	}{s.Namespaces(), s.cfg.maxNamespaces}, nil
}

func (s *Server) deleteNamespace(c *call) (any, error) {
	if s.nsName != "" {
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
	return clearedBody{n}, nil
}

func (s *Server) clearNamespaces(c *call) (any, error) {
	if s.nsName != "" {
		return nil, errNested()
	}
	return clearedBody{s.ClearNamespaces()}, nil
}

// serveRefusal answers r with err on the default server.
func (s *Server) serveRefusal(w http.ResponseWriter, r *http.Request, err error) {
	s.serveOn(refusals(), w, r.WithContext(context.WithValue(r.Context(), refusalKey{}, err)))
}
