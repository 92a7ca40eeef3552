package skills

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// skills.json holds every skill with its versions, oldest first, each version with the files of
// its upload (their content in base64): its name and description are read from them, and its
// archive made from them, as an upload's are. uploads and upload number a skill's uploads,
// deleted versions included, which orders the versions in their list's page tokens; the loader
// takes a version's place in the list and the count of versions when they are absent.

// skillFixture is one record of skills.json.
type skillFixture struct {
	OrganizationID string           `json:"organization_id"`
	WorkspaceID    string           `json:"workspace_id,omitempty"`
	ID             string           `json:"id"`
	CreatedAt      time.Time        `json:"created_at"`
	DisplayName    string           `json:"display_name"`
	UpdatedAt      time.Time        `json:"updated_at"`
	Uploads        int              `json:"uploads,omitempty"`
	Versions       []versionFixture `json:"versions"`
}

// versionFixture is a version of a record of skills.json.
type versionFixture struct {
	ID        string        `json:"id"`
	CreatedAt time.Time     `json:"created_at"`
	Upload    int           `json:"upload,omitempty"`
	Files     []fileFixture `json:"files"`
}

// fileFixture is a file of a version.
type fileFixture struct {
	Path    string `json:"path"`
	Content []byte `json:"content"`
}

// loadSkills reads skills.json, if present, into the section: each version's files are checked
// as an upload's are, and every error names the file and the field.
func loadSkills(fsys fs.FS, fx *core.Fixtures) error {
	var file struct {
		Skills []skillFixture `json:"skills"`
	}
	if _, err := core.ReadFixture(fsys, "skills.json", &file); err != nil {
		return err
	}
	if len(file.Skills) > MaxSkills {
		return fmt.Errorf("skills.json: skills: %d skills; a server keeps at most %d", len(file.Skills), MaxSkills)
	}
	list := make([]*skill, 0, len(file.Skills))
	for i, f := range file.Skills {
		sk, err := f.parse(fx, fmt.Sprintf("skills.%d", i))
		if err != nil {
			return fmt.Errorf("skills.json: %w", err)
		}
		list = append(list, sk)
	}
	*skillsSection.In(fx.Sections) = list
	return nil
}

func (f *skillFixture) parse(fx *core.Fixtures, at string) (*skill, error) {
	o, err := fx.RecordOwner(at, "skill "+f.ID, f.OrganizationID, f.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if len(f.Versions) > MaxVersions {
		return nil, fmt.Errorf("%s.versions: skill %s has %d versions; a skill keeps at most %d", at, f.ID, len(f.Versions), MaxVersions)
	}
	sk := &skill{owner: owner{o, f.WorkspaceID}, rec: Skill{ID: f.ID, Type: "skill", CreatedAt: f.CreatedAt, DisplayName: f.DisplayName,
		Source: Source{Type: "custom"}, UpdatedAt: f.UpdatedAt}}
	for j, fv := range f.Versions {
		vat := fmt.Sprintf("%s.versions.%d", at, j)
		up, err := fv.upload(vat)
		if err != nil {
			return nil, err
		}
		if j > 0 && up.name != sk.versions[0].rec.Name {
			return nil, fmt.Errorf("%s.files: the version's name %s is not the skill's, %s; every version of a skill has the same name", vat, core.Quoted(up.name, core.MaxExcerpt), sk.versions[0].rec.Name)
		}
		v := &version{rec: Version{ID: fv.ID, Type: "skill_version", CreatedAt: fv.CreatedAt, Description: up.description, Name: up.name, SkillID: f.ID},
			seq: fv.Upload, archive: archive(up.files, fv.CreatedAt)}
		if v.seq == 0 {
			v.seq = j + 1
		}
		if j > 0 && v.seq <= sk.versions[j-1].seq {
			return nil, fmt.Errorf("%s.upload: %d does not come after the version before's, %d; versions are listed oldest first", vat, v.seq, sk.versions[j-1].seq)
		}
		sk.versions = append(sk.versions, v)
	}
	last := sk.versions[len(sk.versions)-1]
	sk.rec.LatestVersionID, sk.seq = last.rec.ID, max(f.Uploads, last.seq)
	if f.Uploads != 0 && f.Uploads < last.seq {
		return nil, fmt.Errorf("%s.uploads: %d is fewer than the last version's upload, %d", at, f.Uploads, last.seq)
	}
	return sk, nil
}

// upload checks the files of a version as an upload's (at: the version's path) and reads its
// name and description.
func (fv *versionFixture) upload(at string) (*upload, error) {
	up := &upload{}
	if len(fv.Files) > MaxFiles {
		return nil, fmt.Errorf("%s.files: %d files; a skill holds at most %d", at, len(fv.Files), MaxFiles)
	}
	for k, f := range fv.Files {
		fat := fmt.Sprintf("%s.files.%d", at, k)
		clean, err := up.checkPath(fat+".path", f.Path)
		if err == nil {
			err = up.add(fat+".content", clean, f.Content)
		}
		if err != nil {
			return nil, messageOf(err)
		}
	}
	if err := up.resolve(); err != nil {
		return nil, fmt.Errorf("%s.%v", at, messageOf(err))
	}
	return up, nil
}

// messageOf is an API error's message alone ("path: reason"), for a loader's error.
func messageOf(err error) error {
	var ae *core.APIError
	if errors.As(err, &ae) {
		return errors.New(ae.Message)
	}
	return err
}

// build makes a server's store from the fixtures, each skill and version charged to b as its
// upload was. Skills are copied (their versions and latest change); versions are not, since
// nothing changes one.
func build(fx *core.Fixtures, b *core.ByteBudget) *Store {
	a := newStore(b)
	for _, src := range *skillsSection.In(fx.Sections) {
		sk := &skill{rec: src.rec, owner: src.owner, versions: append([]*version(nil), src.versions...), seq: src.seq}
		sk.bytes = core.HeldSizeOf(sk.rec)
		for _, v := range sk.versions {
			sk.bytes += core.HeldSizeOf(v.rec) + core.AllocSize(len(v.archive))
		}
		a.Grow(sk.bytes)
		a.byID[sk.rec.ID] = sk
		a.byOwner[sk.owner] = core.InsertInOrder(a.byOwner[sk.owner], sk, skillKey, core.OldestFirst)
	}
	return a
}

// skillsSnapshot is the area's part of a snapshot (skills.json).
var skillsSnapshot = &core.SnapshotArea{Lock: core.LockArea(skillStores, func(a *Store) *sync.Mutex { return &a.mu }), Export: exportSkills}

func exportSkills(st *core.State, out map[string]any) error {
	a := skillStores.In(st.Stores).Built()
	var list core.RecordList
	for _, sk := range core.OldestFirstOf(a.byID, skillKey) {
		versions := make([]versionFixture, len(sk.versions))
		for i, v := range sk.versions {
			files, err := unzip(v.archive)
			if err != nil {
				return fmt.Errorf("skill %s version %s: %w", sk.rec.ID, v.rec.ID, err)
			}
			versions[i] = versionFixture{ID: v.rec.ID, CreatedAt: v.rec.CreatedAt, Upload: v.seq, Files: files}
		}
		list.Add(sk.owner.org.ID, skillFixture{WorkspaceID: sk.owner.ws, ID: sk.rec.ID, CreatedAt: sk.rec.CreatedAt,
			DisplayName: sk.rec.DisplayName, UpdatedAt: sk.rec.UpdatedAt, Uploads: sk.seq, Versions: versions}, "organization_id")
	}
	if list.Err != nil {
		return list.Err
	}
	out["skills.json"] = struct {
		Skills []json.RawMessage `json:"skills"`
	}{core.OrEmptyList(list.List)}
	return nil
}

// unzip is the files of a version's archive, in upload order.
func unzip(archive []byte) ([]fileFixture, error) {
	r, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return nil, err
	}
	files := make([]fileFixture, len(r.File))
	for i, f := range r.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		files[i] = fileFixture{f.Name, data}
	}
	return files, nil
}
