package compliance

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake"

	"github.com/platformkit/platformkit/conformance/kit"
)

// Defects of the compliance API, for the bug declarations of the compliance checks.

// The routes of the compliance API, as patterns of on.
const (
	ChatsRoute      = `^/v1/compliance/apps/chats$`
	cmpChat         = `^/v1/compliance/apps/chats/assistant_chat_[^/]+$`
	cmpMessages     = `^/v1/compliance/apps/chats/[^/]+/messages$`
	cmpFile         = `^/v1/compliance/apps/chats/files/[^/]+$`
	cmpFileContent  = `^/v1/compliance/apps/chats/files/[^/]+/content$`
	cmpGenerated    = `^/v1/compliance/apps/chats/generated-files/[^/]+$`
	cmpArtifact     = `^/v1/compliance/apps/artifacts/[^/]+$`
	cmpArtifactBody = `^/v1/compliance/apps/artifacts/[^/]+/content$`
	ProjectsRoute   = `^/v1/compliance/apps/projects$`
	cmpOrgUsers     = `^/v1/compliance/organizations/[^/]+/users$`
)

// OnGet matches GET requests to paths matching pattern.
func OnGet(pattern string) func(*http.Request) bool { return kit.On(http.MethodGet, pattern) }

// cmpOtherUUID is an organization UUID that is not the key's.
const cmpOtherUUID = "00000000-0000-4000-8000-00000000c0de"

// cmpQuery is the bug of a target that reads the query of GET requests to pattern wrongly.
func cmpQuery(pattern string, edit func(q url.Values)) func(http.Handler) http.Handler {
	return kit.InQuery(OnGet(pattern), edit)
}

// InOKAnswers edits the JSON object of 2xx answers to GET requests to pattern.
func InOKAnswers(pattern string, f func(r *http.Request, m map[string]any)) func(http.Handler) http.Handler {
	return kit.InOKAnswers(OnGet(pattern), f)
}

// cmpSkipsNext is the bug of a cursor that skips an item: a page asked for with the cursor param
// leaves out the item of items nearest the cursor (the first after it for after_id and page, the
// last before it for before_id), and its first_id or last_id follows.
func cmpSkipsNext(pattern, param, items string) func(http.Handler) http.Handler {
	return InOKAnswers(pattern, func(r *http.Request, m map[string]any) {
		if r.URL.Query().Get(param) == "" {
			return
		}
		list, _ := m[items].([]any)
		if len(list) < 2 {
			return
		}
		if param == "before_id" {
			list = list[:len(list)-1]
			if last, _ := list[len(list)-1].(map[string]any); last != nil {
				if _, ok := m["last_id"]; ok {
					m["last_id"] = last["id"]
				}
			}
		} else {
			list = list[1:]
			if first, _ := list[0].(map[string]any); first != nil {
				if _, ok := m["first_id"]; ok {
					m["first_id"] = first["id"]
				}
			}
		}
		m[items] = list
	})
}

// cmpExclusiveBounds is the bug of a target that reads the inclusive bounds gte and lte on field
// as exclusive ones.
func cmpExclusiveBounds(pattern, field string) func(http.Handler) http.Handler {
	return cmpQuery(pattern, func(q url.Values) {
		for name, d := range map[string]time.Duration{field + "[gte]": time.Nanosecond, field + "[lte]": -time.Nanosecond} {
			if at, err := time.Parse(time.RFC3339Nano, q.Get(name)); err == nil {
				q.Set(name, at.Add(d).Format(time.RFC3339Nano))
			}
		}
	})
}

// cmpDefaultLimit is the bug of a list whose page size, without limit, is n.
func cmpDefaultLimit(pattern string, n int) func(http.Handler) http.Handler {
	return cmpQuery(pattern, func(q url.Values) {
		if q.Get("limit") == "" {
			q.Set("limit", strconv.Itoa(n))
		}
	})
}

// cmpClampsLimit is the bug of a list that clamps a limit above most to most instead of refusing it.
func cmpClampsLimit(pattern string, most int) func(http.Handler) http.Handler {
	return cmpQuery(pattern, func(q url.Values) {
		if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > most {
			q.Set("limit", strconv.Itoa(most))
		}
	})
}

// cmpUnknownValues is the bug of a filter that does not recognize values of one form: the values
// of param that form accepts are read as an unknown ID.
func cmpUnknownValues(pattern, param string, form func(v string) bool, unknown string) func(http.Handler) http.Handler {
	return cmpQuery(pattern, func(q url.Values) {
		for i, v := range q[param] {
			if form(v) {
				q[param][i] = unknown
			}
		}
	})
}

// cmpAsOtherOrg is the bug of a target that does not keep organizations apart on requests match
// accepts: what it answers 404 for the key's organization, it serves as the second one would.
func cmpAsOtherOrg(match func(*http.Request) bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				h.ServeHTTP(w, r)
				return
			}
			body := kit.ReadBody(r)
			first := kit.Replay(h, r, body, nil)
			if first.Code == http.StatusNotFound {
				if rec := kit.Replay(h, r, body, http.Header{"Authorization": {"Bearer " + fake.DefaultComplianceKey + fake.SecondOrganizationSuffix}}); rec.Code == http.StatusOK {
					kit.CopyAnswer(w, rec)
					return
				}
			}
			kit.CopyAnswer(w, first)
		})
	}
}

// cmpForgetsDeletedCursors is the bug of a chat list that no longer finds a deleted chat's ID
// as an after_id cursor: it refuses the page with 400.
func cmpForgetsDeletedCursors(h http.Handler) http.Handler {
	var mu sync.Mutex
	deleted := map[string]bool{}
	gone := kit.Refuses(func(*http.Request) bool { return true }, http.StatusBadRequest, "invalid_request_error", "after_id names no chat")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kit.On(http.MethodDelete, cmpChat)(r) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code == http.StatusOK {
				mu.Lock()
				deleted[r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]] = true
				mu.Unlock()
			}
			kit.CopyAnswer(w, rec)
			return
		}
		if OnGet(ChatsRoute)(r) {
			mu.Lock()
			d := deleted[r.URL.Query().Get("after_id")]
			mu.Unlock()
			if d {
				gone(h).ServeHTTP(w, r)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// cmpWrongContentMD5 is the bug of a download whose Content-MD5 is not of the bytes served.
func cmpWrongContentMD5(pattern string) func(http.Handler) http.Handler {
	return kit.InAnswers(OnGet(pattern), func(_ *http.Request, status int, h http.Header, body []byte) []byte {
		if status == http.StatusOK && h.Get("Content-MD5") != "" {
			h.Set("Content-MD5", ccContentMD5(append(bytes.Clone(body), '\n')))
		}
		return body
	})
}

// cmpEmptyMD5 is the lowercase hex MD5 of an empty body: a digest that matches no real file.
var cmpEmptyMD5 = fmt.Sprintf("%x", md5.Sum(nil))

// cmpAdminKey is the fake's administration key.
const cmpAdminKey = fake.DefaultAdminKey

// cmpFetch reads path from h with the headers of r (its credential and version), as the target
// itself would look up its state.
func cmpFetch(h http.Handler, r *http.Request, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header = r.Header.Clone()
	req.Header.Del("Content-Length")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// cmpKeepsDeletedContent is the bug of a file deletion that removes the file's metadata but not
// its stored bytes: its download is still served as before.
func cmpKeepsDeletedContent(h http.Handler) http.Handler {
	var mu sync.Mutex
	kept := map[string]*httptest.ResponseRecorder{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case kit.On(http.MethodDelete, cmpFile)(r):
			content := cmpFetch(h, r, r.URL.Path+"/content")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code == http.StatusOK && content.Code == http.StatusOK {
				mu.Lock()
				kept[r.URL.Path+"/content"] = content
				mu.Unlock()
			}
			kit.CopyAnswer(w, rec)
			return
		case OnGet(cmpFileContent)(r):
			mu.Lock()
			content := kept[r.URL.Path]
			mu.Unlock()
			if content != nil {
				kit.CopyAnswer(w, content)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// cmpSharedFilesKeepMessages is the bug of a chat deletion that leaves the message_ids of the
// files it shares with other chats as they were: they go on naming the deleted chat's messages.
func cmpSharedFilesKeepMessages(h http.Handler) http.Handler {
	var mu sync.Mutex
	before := map[string]any{} // file path -> message_ids before the deletion
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kit.On(http.MethodDelete, cmpChat)(r) {
			var ids []any
			if msgs := kit.ReadState(h, r, r.URL.Path+"/messages"); msgs != nil {
				list, _ := msgs["chat_messages"].([]any)
				for _, m := range list {
					msg, _ := m.(map[string]any)
					files, _ := msg["files"].([]any)
					for _, f := range files {
						if f, _ := f.(map[string]any); f != nil {
							ids = append(ids, f["id"])
						}
					}
				}
			}
			for _, id := range ids {
				path := "/v1/compliance/apps/chats/files/" + fmt.Sprint(id)
				if meta := kit.ReadState(h, r, path); meta != nil {
					mu.Lock()
					before[path] = meta["message_ids"]
					mu.Unlock()
				}
			}
			h.ServeHTTP(w, r)
			return
		}
		if OnGet(cmpFile)(r) {
			mu.Lock()
			ids, ok := before[r.URL.Path]
			mu.Unlock()
			if ok {
				kit.InOKAnswers(func(*http.Request) bool { return true }, func(_ *http.Request, m map[string]any) { m["message_ids"] = ids })(h).ServeHTTP(w, r)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}
