package skills

import (
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// createSkill serves POST /v1/skills: the upload is the skill's first version. Nothing is stored,
// and no ID is taken, unless the whole body was read and accepted.
func createSkill(s *core.Server, c *core.Call) (any, error) {
	mr, err := c.MultipartReader(UploadBodyLimit)
	if err != nil {
		return nil, err
	}
	up, err := readUpload(mr, true)
	if err != nil {
		return nil, err
	}
	a := storeOf(s, c.St)
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.byID) >= MaxSkills {
		return nil, core.Invalid("this server (or namespace) keeps at most %d skills; delete some (DELETE /v1/skills/{id}) or reset it", MaxSkills).Because(core.ReasonOutOfRange)
	}
	now := s.Clock.Now()
	sk := &skill{owner: owner{c.Org, c.Cred.WorkspaceID}}
	sk.rec = Skill{Type: "skill", CreatedAt: now, UpdatedAt: now, DisplayName: up.name, Source: Source{Type: "custom"}}
	if up.displayName != nil {
		sk.rec.DisplayName = *up.displayName
	}
	if err := a.charge(sk, core.HeldSizeOf(sk.rec)); err != nil {
		return nil, err
	}
	sk.rec.ID = s.IDs.Next("skill_")
	if _, err := a.addVersion(s, sk, up, now); err != nil {
		a.charge(sk, -sk.bytes)
		return nil, err
	}
	a.byID[sk.rec.ID] = sk
	a.byOwner[sk.owner] = core.InsertInOrder(a.byOwner[sk.owner], sk, skillKey, core.OldestFirst)
	return sk.rec, nil
}

// addVersion makes the upload sk's newest version; the caller holds mu.
func (a *Store) addVersion(s *core.Server, sk *skill, up *upload, now time.Time) (Version, error) {
	if len(sk.versions) >= MaxVersions {
		return Version{}, core.Invalid("skill %s has %d versions, the most the fake keeps; delete old ones (DELETE /v1/skills/{id}/versions/{version})", sk.rec.ID, MaxVersions).Because(core.ReasonOutOfRange)
	}
	if len(sk.versions) > 0 && up.name != sk.versions[0].rec.Name {
		return Version{}, core.InvalidField("files", "the upload's name %s is not the skill's, %s; every later upload must resolve to the same name", core.Quoted(up.name, core.MaxExcerpt), sk.versions[0].rec.Name)
	}
	v := &version{rec: Version{Type: "skill_version", CreatedAt: now, Description: up.description, Name: up.name, SkillID: sk.rec.ID}}
	v.archive = archive(up.files, now)
	if err := a.charge(sk, core.HeldSizeOf(v.rec)+core.AllocSize(len(v.archive))); err != nil {
		return Version{}, err
	}
	v.rec.ID = s.IDs.Next("skver_")
	sk.seq++
	v.seq = sk.seq
	sk.versions = append(sk.versions, v)
	sk.rec.LatestVersionID, sk.rec.UpdatedAt = v.rec.ID, now
	return v.rec, nil
}

func createSkillVersion(s *core.Server, c *core.Call) (any, error) {
	mr, err := c.MultipartReader(UploadBodyLimit)
	if err != nil {
		return nil, err
	}
	up, err := readUpload(mr, false)
	if err != nil {
		return nil, err
	}
	return withSkill(s, c, func(a *Store, sk *skill, now time.Time) (any, error) { return a.addVersion(s, sk, up, now) })
}

func getSkill(s *core.Server, c *core.Call) (any, error) {
	return withSkill(s, c, func(_ *Store, sk *skill, _ time.Time) (any, error) { return sk.rec, nil })
}

// deleteSkill removes the skill with every version.
func deleteSkill(s *core.Server, c *core.Call) (any, error) {
	return withSkill(s, c, func(a *Store, sk *skill, _ time.Time) (any, error) {
		delete(a.byID, sk.rec.ID)
		a.byOwner[sk.owner] = core.RemoveInOrder(a.byOwner[sk.owner], sk, skillKey, core.OldestFirst)
		a.charge(sk, -sk.bytes)
		return map[string]any{"id": sk.rec.ID, "type": "skill_deleted"}, nil
	})
}

// listSkills lists the caller's skills, newest first; source=vendor (anthropic) lists none, as the
// fake holds no skills of the vendor.
func listSkills(s *core.Server, c *core.Call) (any, error) {
	source, err := c.QueryEnum("source")
	if err != nil {
		return nil, err
	}
	q, err := c.ListQuery("skills", false)
	if err != nil {
		return nil, err
	}
	a := storeOf(s, c.St)
	a.mu.Lock()
	defer a.mu.Unlock()
	page := core.PageNewestKept(a.byOwner[owner{c.Org, c.Cred.WorkspaceID}], func(sk *skill) bool { return source == "" || source == "custom" }, skillKey, "skills", q.After, q.Limit)
	out := core.TokenPage[Skill]{Data: make([]Skill, len(page.Data)), NextPage: page.NextPage}
	for i, sk := range page.Data {
		out.Data[i] = sk.rec
	}
	return out, nil
}

// listSkillVersions lists a skill's versions, newest first.
func listSkillVersions(s *core.Server, c *core.Call) (any, error) {
	q, err := c.ListQuery("skill_versions", false)
	if err != nil {
		return nil, err
	}
	return withSkill(s, c, func(_ *Store, sk *skill, _ time.Time) (any, error) {
		page := core.PageNewestKept(sk.versions, func(*version) bool { return true }, versionKey, "skill_versions", q.After, q.Limit)
		out := core.TokenPage[Version]{Data: make([]Version, len(page.Data)), NextPage: page.NextPage}
		for i, v := range page.Data {
			out.Data[i] = v.rec
		}
		return out, nil
	})
}

// getSkillVersion reads a version by ID, or the newest as latest (the one path that resolves it).
func getSkillVersion(s *core.Server, c *core.Call) (any, error) {
	return withSkill(s, c, func(_ *Store, sk *skill, _ time.Time) (any, error) {
		i, err := sk.version(c.Param("version"), true)
		if err != nil {
			return nil, err
		}
		return sk.versions[i].rec, nil
	})
}

// deleteSkillVersion removes a version; the skill's latest falls back to the one before. A skill
// always holds a version, so its last one is deleted with the skill. A worker's credential reads
// versions but deletes none.
func deleteSkillVersion(s *core.Server, c *core.Call) (any, error) {
	if k := c.Cred.Kind; k != core.KindAPIKey {
		return nil, core.PermissionDenied("%s reads skill versions; DELETE %s takes the API key", core.KindNames[k], c.Route.Path)
	}
	return withSkill(s, c, func(a *Store, sk *skill, now time.Time) (any, error) {
		i, err := sk.version(c.Param("version"), false)
		if err != nil {
			return nil, err
		}
		if len(sk.versions) == 1 {
			return nil, core.InvalidField("version", "version %s is skill %s's only one; a skill holds at least one version: delete the skill instead (DELETE /v1/skills/%s)", sk.versions[i].rec.ID, sk.rec.ID, sk.rec.ID)
		}
		v := sk.versions[i]
		sk.versions = append(sk.versions[:i:i], sk.versions[i+1:]...)
		a.charge(sk, -(core.HeldSizeOf(v.rec) + core.AllocSize(len(v.archive))))
		sk.rec.LatestVersionID, sk.rec.UpdatedAt = sk.versions[len(sk.versions)-1].rec.ID, now
		return map[string]any{"id": v.rec.ID, "type": "skill_version_deleted"}, nil
	})
}

// downloadSkillVersion serves a version's content, a zip of <name>/..., by the version's ID: latest is
// resolved only where a version is read (the official worker reads it first, then downloads by
// the ID it got).
func downloadSkillVersion(s *core.Server, c *core.Call) (any, error) {
	return withSkill(s, c, func(_ *Store, sk *skill, _ time.Time) (any, error) {
		id := c.Param("version")
		if id == "latest" {
			return nil, core.InvalidField("version", "the content of a version is read by its ID; resolve latest with GET /v1/skills/%s/versions/latest first", sk.rec.ID)
		}
		i, err := sk.version(id, false)
		if err != nil {
			return nil, err
		}
		v := sk.versions[i]
		return core.RawBody{ContentType: "application/zip", Data: v.archive,
			Header: map[string]string{"Content-Disposition": `attachment; filename="` + v.rec.Name + `.zip"`}}, nil
	})
}
