package skills

import (
	"bytes"
	"io"
	"net/http"
)

// addsSkillMD is the bug of a target that takes an upload without SKILL.md as if the README were
// it: it renames the part before serving the request.
func addsSkillMD(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/skills" && r.Body != nil {
			b, _ := io.ReadAll(r.Body)
			b = bytes.ReplaceAll(b, []byte("conformance-greeting/README.md"), []byte("conformance-greeting/SKILL.md"))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		}
		h.ServeHTTP(w, r)
	})
}
