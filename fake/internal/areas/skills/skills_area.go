// Package skills is the area of skills and their versions (/v1/skills): a skill is a directory
// of files with a SKILL.md at its root, uploaded as a multipart form (one files[] part per file,
// each named by its path), and every upload after the first is a new version. `latest` names
// the newest version where a version is read; its content is served as a zip archive of
// <name>/..., which the official workers download and extract for the agents that use the skill.
//
// skills.json holds skills with their versions, each with its files, and a snapshot writes them
// (skills_snapshot.go). Reset and a dropped namespace give their bytes back (Release).
package skills

import "github.com/platformkit/platformkit/fake/internal/core"

// Area is the area of skills.
var Area = &core.Area{Routes: skillRoutes, Load: loadSkills, Snapshot: skillsSnapshot, Release: func(st *core.State) { release(st) }}

var (
	// skillsSection is the skills of the fixtures, as loaded; build copies them.
	skillsSection = core.NewSection[[]*skill]()
	skillStores   = core.NewStore[Store]()
	// budget bounds what the skills of a server and all its namespaces keep together.
	budget = core.NewBudget(MaxBytesAll)
)

func skillRoutes() []*core.Route {
	const sk, ver = "/v1/skills/:skill_id", "/v1/skills/:skill_id/versions/:version"
	return []*core.Route{
		core.Line(core.Post, "/v1/skills", core.IfSkills, core.In{Multipart: "skills/skill_upload_request"}, "skills/skill", createSkill),
		core.Line(core.Get, "/v1/skills", core.IfSkills, core.In{Query: qList}, "skills/skill_list", listSkills),
		core.Line(core.Get, sk, core.IfSkills, core.In{}, "skills/skill", getSkill),
		core.Line(core.Del, sk, core.IfSkills, core.In{}, "skills/skill_deleted", deleteSkill),
		core.Line(core.Post, sk+"/versions", core.IfSkills, core.In{Multipart: "skills/version_upload_request"}, "skills/version", createSkillVersion),
		core.Line(core.Get, sk+"/versions", core.IfSkills, core.In{Query: core.TokenParams(DefaultPage, MaxPage)}, "skills/version_list", listSkillVersions),
		core.Line(core.Get, ver, core.IfSkillVersions, core.In{}, "skills/version", getSkillVersion),
		core.Line(core.Del, ver, core.IfSkillVersions, core.In{}, "skills/version_deleted", deleteSkillVersion),
		core.Line(core.Get, ver+"/content", core.IfSkillVersions, core.In{}, "", downloadSkillVersion),
	}
}

var qList = core.Query(core.EnumParam("source", "", "Only the skills of this source (the fake holds custom skills only).", "custom", "vendor", "anthropic"),
	core.TokenParams(DefaultPage, MaxPage))
