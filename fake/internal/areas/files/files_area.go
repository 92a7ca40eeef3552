// Package files is the area of files (/v1/files): uploads, their metadata and content, and the
// files the fake itself makes for other areas (Create), which other areas look up by the
// file_id a request names (Lookup, LookupSource).
package files

import (
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Area is the area of files.
var Area = &core.Area{
	Routes:   fileRoutes,
	Load:     loadFiles,
	Snapshot: filesSnapshot,
	Advance: func(st *core.State, now time.Time) {
		if fs := FileStores.In(st.Stores).Built(); fs != nil {
			fs.mu.Lock()
			fs.sweep(now)
			fs.mu.Unlock()
		}
	},
	Release: func(st *core.State) { storeOf(st, nil).release() },
}

var (
	// FilesSection is the files of the fixtures (files.json), as loaded.
	FilesSection = core.NewSection[[]*fileFixture]()
	// FileStores is each server's (or namespace's) files, built from the fixtures on first use.
	FileStores  = core.NewStore[Store]()
	filesBudget = core.NewBudget(FilesBytes)
)

func fileRoutes() []*core.Route {
	return []*core.Route{
		// Files (GA; the beta value files-api-2025-04-14 selects the legacy list shape).
		core.Line(core.Post, "/v1/files", core.IfFiles, core.In{Multipart: "files/file_upload_request", Headers: hWorkspace}, "files/file", uploadFile),
		core.Line(core.Get, "/v1/files", core.IfFiles, core.In{Query: qFiles, Headers: hWorkspace}, "files/file_list", listFiles),
		core.Line(core.Get, "/v1/files/:file_id", core.IfFiles, core.In{Headers: hWorkspace}, "files/file", getFile),
		core.Line(core.Get, "/v1/files/:file_id/content", core.IfFiles, core.In{Headers: hWorkspace}, "", downloadFile),
		core.Line(core.Del, "/v1/files/:file_id", core.IfFiles, core.In{Headers: hWorkspace}, "files/file_deleted", deleteFile),
	}
}

var (
	qFiles = core.Query(
		core.TokenParams(DefaultPage, MaxPage),
		[]core.Param{{Name: "ids", Kind: core.PStrings, MaxItems: MaxListIDs,
			Doc: "Only these files (at most 100 after removing duplicates), in one page; unknown and deleted IDs are left out. Not with page or limit."}},
		core.StrParam("scope_id", "Only the files of this scope (a session's ID)."),
		core.StrParam("after_id", "Legacy shape only (vendor-beta: "+LegacyBeta+"): the page after this file."),
		core.StrParam("before_id", "Legacy shape only (vendor-beta: "+LegacyBeta+"): the page before this file; at most one of after_id and before_id."))
	hWorkspace = core.WorkspaceParams("The workspace of the request (wrkspc_...); optional, and when sent it must be the API key's workspace.")
)
