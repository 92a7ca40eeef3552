// Package skills holds the conformance checks of skills and their versions (/v1/skills: the
// directories of files with a SKILL.md that agents mount, and that a self-hosted worker
// downloads), with the bugs that prove them. The checks hold the fake to the official SDKs' types
// and worker, so they carry the extension label. Its checks register with the framework
// (package kit) from init; the public face, package conformance, imports it.
package skills

import (
	"archive/zip"
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"

	. "github.com/onsi/gomega"

	"github.com/platformkit/platformkit/conformance/kit"
)

const skillMD = "---\nname: conformance-greeting\ndescription: Says hello.\n---\n# Greeting\n"

// upload is a multipart upload of files (path → content), one files[] part each, as the
// official SDKs send it.
func upload(path string, files ...[2]string) kit.Request {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="files[]"; filename=%q`, f[0]))
		h.Set("Content-Type", "application/octet-stream")
		pw, _ := w.CreatePart(h)
		pw.Write([]byte(f[1]))
	}
	w.Close()
	return kit.Request{Area: kit.Skills, Method: http.MethodPost, Path: path, Body: b.Bytes(),
		Header: http.Header{"Content-Type": {w.FormDataContentType()}}}
}

// createSkill uploads a skill for one check and deletes it (with its versions) afterwards.
func createSkill(t *kit.T) *kit.Response {
	r := upload("/v1/skills", [2]string{"conformance-greeting/SKILL.md", skillMD}, [2]string{"conformance-greeting/hello.py", "print('hi')\n"})
	r.Schema = "skills/skill"
	resp := t.Do(r)
	t.UnsupportedIfAbsent(resp, "the target has no skills (POST /v1/skills answered %d)", resp.Status)
	t.Expect(resp.Status).To(Equal(http.StatusOK), "%s", resp)
	id := resp.Get("id").String()
	t.Cleanup("delete skill "+id, t.Delete(kit.Request{Area: kit.Skills, Method: http.MethodDelete, Path: "/v1/skills/" + id}))
	return resp
}

func init() {
	labels := []kit.Label{kit.Skills, kit.Extension}
	kit.Register(
		kit.Check{ID: "skills/skill-latest-and-content", Clause: "gaps §8", Labels: labels,
			Title: "versions/latest reads the skill's latest_version_id, and that version's content is a zip of <name>/SKILL.md and the other files, as the official worker extracts it",
			Run: func(t *kit.T) {
				sk := createSkill(t)
				id := sk.Get("id").String()
				latest := t.OK(kit.Request{Area: kit.Skills, Path: "/v1/skills/" + id + "/versions/latest", Schema: "skills/version"})
				t.Expect(latest.Get("id").String()).To(Equal(sk.Get("latest_version_id").String()), "%s", latest)
				t.Expect(latest.Get("name").String()).To(Equal("conformance-greeting"))
				content := t.OK(kit.Request{Area: kit.Skills, Path: "/v1/skills/" + id + "/versions/" + latest.Get("id").String() + "/content",
					Header: http.Header{"Accept": {"application/binary"}}})
				zr, err := zip.NewReader(bytes.NewReader(content.Body), int64(len(content.Body)))
				t.Expect(err).NotTo(HaveOccurred(), "the content is a zip archive")
				var names []string
				for _, f := range zr.File {
					names = append(names, f.Name)
				}
				t.Expect(names).To(ConsistOf("conformance-greeting/SKILL.md", "conformance-greeting/hello.py"))
			},
			Bug: &kit.Bug{Says: "versions/latest is not resolved", Want: "404",
				Break: kit.RouteAnswersStatus(http.MethodGet, `^/v1/skills/[^/]+/versions/latest$`, http.StatusOK, http.StatusNotFound)}},
		kit.Check{ID: "skills/skill-upload-without-skill-md-400", Clause: "gaps §8", Labels: labels,
			Title: "an upload whose directory has no SKILL.md at its root is refused with 400 naming files",
			Run: func(t *kit.T) {
				resp := t.Do(upload("/v1/skills", [2]string{"conformance-greeting/README.md", "# no skill here\n"}))
				t.UnsupportedIfAbsent(resp, "the target has no skills (POST /v1/skills answered %d)", resp.Status)
				if resp.Status == http.StatusOK {
					t.Cleanup("delete skill", t.Delete(kit.Request{Area: kit.Skills, Method: http.MethodDelete, Path: "/v1/skills/" + resp.Get("id").String()}))
				}
				t.Expect(resp.Status).To(Equal(http.StatusBadRequest), "%s", resp)
				t.Expect(resp.Get("error.message").String()).To(HavePrefix("files"), "the error names the field: %s", resp)
			},
			Bug: &kit.Bug{Says: "an upload without SKILL.md is accepted",
				Break: addsSkillMD}},
	)
}
