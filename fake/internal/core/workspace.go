package core

import (
	"regexp"
	"strings"
)

// The optional workspace header of the routes that take one (files, the tunnels of /v1/tunnels):
// the reference's name and the official SDKs' (anthropic-workspace-id), which counts only when
// the reference's is absent.
const (
	HeaderWorkspaceID    = "Vendor-Workspace-ID"
	SDKHeaderWorkspaceID = "Anthropic-Workspace-ID"
)

// WorkspaceIDPattern is the shape of a workspace ID.
var WorkspaceIDPattern = regexp.MustCompile(`^wrkspc_[A-Za-z0-9_-]{1,128}$`)

// WorkspaceParams declares the workspace header in both spellings, doc saying what it does on
// the route.
func WorkspaceParams(doc string) []Param {
	return []Param{{Name: HeaderWorkspaceID, Kind: PString, Doc: doc},
		{Name: SDKHeaderWorkspaceID, Kind: PString, Doc: "The same as " + HeaderWorkspaceID + ", under the name the official SDKs send; " +
			HeaderWorkspaceID + " decides when both are sent."}}
}

// Workspace returns the workspace the request's header names ("" when it sends none) and the
// header's name as the request sent it, for a refusal to name; a value that is no workspace ID
// is a 400 naming the header.
func (c *Call) Workspace() (ws, header string, err error) {
	header, ws = strings.ToLower(HeaderWorkspaceID), strings.TrimSpace(c.DeclaredHeader(HeaderWorkspaceID))
	if ws == "" {
		header, ws = strings.ToLower(SDKHeaderWorkspaceID), strings.TrimSpace(c.DeclaredHeader(SDKHeaderWorkspaceID))
	}
	if ws != "" && !WorkspaceIDPattern.MatchString(ws) {
		return "", header, InvalidField(header, "must be a workspace ID starting with \"wrkspc_\", or absent, got %s", Quoted(ws, MaxExcerpt))
	}
	if ws == "" {
		header = strings.ToLower(HeaderWorkspaceID)
	}
	return ws, header, nil
}
