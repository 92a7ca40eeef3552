package skills

import (
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"path"
	"regexp"
	"strings"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// An upload (the official SDKs' SkillCreateParams, VersionCreateParams): one files[] part per
// file, whose filename is its path ("greeting/SKILL.md"); "All files must be in the same
// top-level directory and must include a SKILL.md file at the root of that directory". The
// skill's name is SKILL.md's frontmatter name, else that directory's; its description the
// frontmatter's description.

// upFile is one file of an upload.
type upFile struct {
	path string
	data []byte
}

// upload is what an upload's parts carry.
type upload struct {
	files       []upFile
	displayName *string
	name        string // the kebab-case slug
	description string
	bytes       int
}

// maxParts bounds the parts of one upload (its files and display_name).
const maxParts = MaxFiles + 1

// slug is a skill's name: kebab-case, as the official SDKs describe it.
var slug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// readUpload reads an upload's parts; withName says whether display_name is a field (create).
// Every refusal names the part: files.N for the Nth file, display_name.
func readUpload(mr *multipart.Reader, withName bool) (*upload, error) {
	up := &upload{}
	tooMany := fmt.Sprintf("a skill holds at most %d files", MaxFiles)
	err := core.EachPart(mr, maxParts, tooMany, func(_ int, name string, p *multipart.Part) error {
		switch {
		case name == "files[]" || name == "files":
			return up.readFile(p)
		case name == "display_name" && withName:
			v, err := core.FieldPart(p, 1024)
			if err != nil {
				return err
			}
			if len([]rune(v)) > 255 || strings.ContainsAny(v, "\r\n") || v == "" {
				return core.InvalidField("display_name", "must be one line of 1 to 255 characters, got %s", core.Quoted(v, core.MaxExcerpt))
			}
			up.displayName = &v
			return nil
		}
		fields := "files[]"
		if withName {
			fields += " and display_name"
		}
		return core.InvalidField(name, "unknown field; an upload takes %s", fields)
	})
	if err != nil {
		return nil, err
	}
	if len(up.files) == 0 {
		return nil, core.InvalidField("files", "field required: send each file of the skill as a multipart part named files[], its filename the file's path (greeting/SKILL.md)")
	}
	return up, up.resolve()
}

// readFile reads one files[] part: its path (the part's whole filename, which Part.FileName
// would cut to its last component) and its bytes.
func (up *upload) readFile(p *multipart.Part) error {
	at := fmt.Sprintf("files.%d", len(up.files))
	if len(up.files) == MaxFiles {
		return core.InvalidField(at, "a skill holds at most %d files", MaxFiles)
	}
	name := ""
	if _, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition")); err == nil {
		name = params["filename"]
	}
	clean, err := up.checkPath(at, name)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(p, MaxFileBytes+1))
	if err != nil {
		return core.MultipartError(err)
	}
	return up.add(at, clean, data)
}

// checkPath returns the path a file of the upload is named by (name, at the file's place at),
// or the error that refuses it.
func (up *upload) checkPath(at, name string) (string, error) {
	clean := path.Clean(strings.TrimSpace(name))
	switch {
	case name == "":
		return "", core.InvalidField(at, "the part has no filename; name each file by its path in the skill (greeting/SKILL.md)")
	case strings.Contains(name, `\`) || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || clean != strings.TrimSpace(name):
		return "", core.InvalidField(at, "filename %s is not a clean relative path (no leading /, no .., no backslash)", core.Quoted(name, core.MaxExcerpt))
	case !strings.Contains(clean, "/"):
		return "", core.InvalidField(at, "filename %s is not in a directory; all files must be in the same top-level directory (greeting/SKILL.md)", core.Quoted(name, core.MaxExcerpt))
	}
	for _, f := range up.files {
		if f.path == clean {
			return "", core.InvalidField(at, "file %s is sent twice", core.Quoted(clean, core.MaxExcerpt))
		}
		if top(f.path) != top(clean) {
			return "", core.InvalidField(at, "file %s is not in %s/; all files must be in the same top-level directory", core.Quoted(clean, core.MaxExcerpt), top(f.path))
		}
	}
	return clean, nil
}

// add adds a file to the upload, or refuses it past the bound of one file's bytes.
func (up *upload) add(at, clean string, data []byte) error {
	if len(data) > MaxFileBytes {
		return core.NewError(core.ErrRequestTooLarge, "%s: file %s is over %d bytes, the most the fake keeps in one file of a skill", at, core.Quoted(clean, core.MaxExcerpt), MaxFileBytes)
	}
	up.files = append(up.files, upFile{clean, data})
	up.bytes += len(data)
	return nil
}

func top(p string) string { t, _, _ := strings.Cut(p, "/"); return t }

// resolve finds SKILL.md at the root of the directory and reads its frontmatter.
func (up *upload) resolve() error {
	dir := top(up.files[0].path)
	var md []byte
	for _, f := range up.files {
		if f.path == dir+"/SKILL.md" {
			md = f.data
		}
	}
	if md == nil {
		return core.InvalidField("files", "no %s/SKILL.md: a skill must include a SKILL.md file at the root of its directory", dir)
	}
	fm := frontmatter(string(md))
	up.name, up.description = fm["name"], fm["description"]
	if up.name == "" {
		up.name = dir
	}
	if !slug.MatchString(up.name) || len(up.name) > 64 {
		return core.InvalidField("files", "the skill's name %s (SKILL.md's frontmatter name, else its directory) must be a kebab-case slug of at most 64 characters", core.Quoted(up.name, core.MaxExcerpt))
	}
	return nil
}

// frontmatter reads the key: value lines between a leading "---" line and the next one.
func frontmatter(md string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return out
	}
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "---" {
			break
		}
		if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, " ") {
			out[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return out
}
