package fake

import (
	"archive/zip"
	"bytes"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// The expected values come from the official Python SDK 2.14.0's skill types (types/skill.py,
// types/skills/skill_version.py, skill_create_params.py) and its worker's download
// (lib/tools/_skills.py: retrieve the version, `latest` resolved there only, then download the
// content by the ID it got, a zip of <name>/...).

const skillMD = "---\nname: greeting\ndescription: Says hello.\n---\n# Greeting\n"

// skillUpload posts a multipart upload of files (path → content) to path, with key.
func skillUpload(t *testing.T, ts *TestServer, path, key string, files [][2]string, more ...part) *reply {
	t.Helper()
	var parts []part
	for _, f := range files {
		parts = append(parts, part{"files[]", f[0], "application/octet-stream", []byte(f[1])})
	}
	body, ct := multipartBody(t, append(parts, more...)...)
	w := send(t, ts.Fake, http.MethodPost, path, body, "Content-Type", ct, "X-Api-Key", key, "anthropic-version", core.APIVersion20261021)
	return &reply{status: w.Code, header: w.Header(), body: w.Body.Bytes()}
}

func TestSkillsVersionsAndContent(t *testing.T) {
	ts := NewTestServer(t)
	api := apiClient(t, ts)
	r := skillUpload(t, ts, "/v1/skills", core.DefaultAPIKey, [][2]string{{"greeting/SKILL.md", skillMD}, {"greeting/scripts/hello.py", "print('hi')\n"}})
	if r.status != http.StatusOK {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	id, first := r.get("id").String(), r.get("latest_version_id").String()
	if !strings.HasPrefix(id, "skill_") || r.get("display_name").String() != "greeting" || r.get("source.type").String() != "custom" || !strings.HasPrefix(first, "skver_") {
		t.Fatalf("skill = %s, want skill_..., display_name from the frontmatter, custom, a skver_ latest", r.body)
	}
	v := api.ok("GET", "/v1/skills/"+id+"/versions/latest", nil)
	if v.get("id").String() != first || v.get("name").String() != "greeting" || v.get("description").String() != "Says hello." || v.get("skill_id").String() != id {
		t.Errorf("latest = %s", v.body)
	}
	content := api.ok("GET", "/v1/skills/"+id+"/versions/"+first+"/content", nil, "Accept", "application/binary")
	zr, err := zip.NewReader(bytes.NewReader(content.body), int64(len(content.body)))
	if err != nil {
		t.Fatalf("content is not a zip: %v", err)
	}
	got := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		got[f.Name] = string(b)
	}
	if len(got) != 2 || got["greeting/SKILL.md"] != skillMD || got["greeting/scripts/hello.py"] != "print('hi')\n" {
		t.Errorf("archive = %v, want the two files under greeting/", got)
	}
	if r := api.do("GET", "/v1/skills/"+id+"/versions/latest/content", nil); r.status != 400 {
		t.Errorf("content of latest = %d, want 400 (only the retrieve resolves latest)", r.status)
	}

	second := skillUpload(t, ts, "/v1/skills/"+id+"/versions", core.DefaultAPIKey, [][2]string{{"greeting/SKILL.md", skillMD + "v2\n"}})
	if second.status != 200 || api.ok("GET", "/v1/skills/"+id, nil).get("latest_version_id").String() != second.get("id").String() {
		t.Fatalf("a new version: %d %s, want it latest", second.status, second.body)
	}
	if r := skillUpload(t, ts, "/v1/skills/"+id+"/versions", core.DefaultAPIKey, [][2]string{{"other/SKILL.md", "# other\n"}}); r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), "files") {
		t.Errorf("a version of another name = %d %s, want 400 naming files", r.status, r.body)
	}
	list := api.ok("GET", "/v1/skills/"+id+"/versions?limit=1", nil)
	if list.get("data.0.id").String() != second.get("id").String() || list.get("next_page").String() == "" {
		t.Errorf("versions page = %s, want the newest first and a next page", list.body)
	}
	api.ok("DELETE", "/v1/skills/"+id+"/versions/"+second.get("id").String(), nil)
	if got := api.ok("GET", "/v1/skills/"+id, nil).get("latest_version_id").String(); got != first {
		t.Errorf("after deleting the newest, latest = %s, want %s", got, first)
	}
	if r := api.do("DELETE", "/v1/skills/"+id+"/versions/"+first, nil); r.status != 400 {
		t.Errorf("deleting the only version = %d, want 400", r.status)
	}
	if r := (&workClient{t, ts, "X-Api-Key", "test-api-key-research"}).do("GET", "/v1/skills/"+id, nil); r.status != 404 {
		t.Errorf("another workspace's skill = %d, want 404", r.status)
	}
	if api.ok("DELETE", "/v1/skills/"+id, nil).get("type").String() != "skill_deleted" || api.do("GET", "/v1/skills/"+id+"/versions/latest", nil).status != 404 {
		t.Errorf("the deleted skill is still there")
	}
}

// Every refusal of an upload names its place: files.N for a file, files for the whole.
func TestSkillsUploadRefusals(t *testing.T) {
	ts := NewTestServer(t)
	for name, tc := range map[string]struct {
		files [][2]string
		field string
	}{
		"no SKILL.md":     {[][2]string{{"greeting/README.md", "x"}}, "files"},
		"no directory":    {[][2]string{{"SKILL.md", skillMD}}, "files.0"},
		"two directories": {[][2]string{{"greeting/SKILL.md", skillMD}, {"other/x.py", "x"}}, "files.1"},
		"dot-dot":         {[][2]string{{"greeting/../../etc/passwd", "x"}}, "files.0"},
		"absolute":        {[][2]string{{"/greeting/SKILL.md", skillMD}}, "files.0"},
		"not a slug":      {[][2]string{{"Greeting Card/SKILL.md", "# no frontmatter\n"}}, "files"},
		"none":            {nil, "files"},
	} {
		r := skillUpload(t, ts, "/v1/skills", core.DefaultAPIKey, tc.files)
		if r.status != 400 || !strings.HasPrefix(r.get("error.message").String(), tc.field) {
			t.Errorf("%s: %d %s, want 400 naming %s", name, r.status, r.body, tc.field)
		}
	}
}

// A worker's credentials (the environment key, a work item's sessions token) read a version and
// its content, as the official worker does to mount its agent's skills, and delete none.
func TestSkillsWorkerReads(t *testing.T) {
	ts := NewTestServer(t)
	r := skillUpload(t, ts, "/v1/skills", core.DefaultAPIKey, [][2]string{{"greeting/SKILL.md", skillMD}})
	id, ver := r.get("id").String(), r.get("latest_version_id").String()
	worker := envKeyClient(t, ts)
	worker.ok("GET", "/v1/skills/"+id+"/versions/latest", nil)
	worker.ok("GET", "/v1/skills/"+id+"/versions/"+ver+"/content", nil)
	if r := worker.do("DELETE", "/v1/skills/"+id+"/versions/"+ver, nil); r.status != http.StatusForbidden {
		t.Errorf("deleting with the environment key = %d, want 403", r.status)
	}
	if r := worker.do("GET", "/v1/skills/"+id, nil); r.status != http.StatusForbidden {
		t.Errorf("the skill itself with the environment key = %d, want 403", r.status)
	}
	if r := (&workClient{t, ts, "Authorization", "Bearer test-environment-key-2"}).do("GET", "/v1/skills/"+id+"/versions/latest", nil); r.status != http.StatusNotFound {
		t.Errorf("another organization's environment key = %d, want 404", r.status)
	}
}

// The skills of a server keep at most skills.MaxBytes: an upload past it is refused with a 400,
// and deleting a skill gives its bytes back.
func TestSkillsBytesAreBounded(t *testing.T) {
	if raceDetector {
		t.Skip("a memory bound over 64 MiB of uploads: make resources holds it without -race, which makes it take a minute")
	}
	ts := NewTestServer(t)
	// Bytes deflate cannot shrink, so that the archive is as large as the file.
	noise := make([]byte, 3<<20)
	rand.New(rand.NewSource(1)).Read(noise)
	big := string(noise)
	var ids []string
	for i := 0; ; i++ {
		r := skillUpload(t, ts, "/v1/skills", core.DefaultAPIKey, [][2]string{{"greeting/SKILL.md", skillMD}, {"greeting/data.txt", big + string(rune('a'+i%26))}})
		if r.status == 400 {
			if !strings.Contains(r.get("error.message").String(), "bytes") {
				t.Fatalf("refusal %s does not say why", r.body)
			}
			break
		}
		if r.status != 200 || i > 40 {
			t.Fatalf("upload %d: %d %s, want a refusal by 64 MiB", i, r.status, r.body)
		}
		ids = append(ids, gjson.GetBytes(r.body, "id").String())
	}
	apiClient(t, ts).ok("DELETE", "/v1/skills/"+ids[0], nil)
	if r := skillUpload(t, ts, "/v1/skills", core.DefaultAPIKey, [][2]string{{"greeting/SKILL.md", skillMD}, {"greeting/data.txt", big}}); r.status != 200 {
		t.Errorf("after a delete: %d %s, want room again", r.status, r.body)
	}
}
