package sessions

import (
	"fmt"
	"slices"

	"github.com/platformkit/platformkit/fake/internal/areas/files"
	"github.com/platformkit/platformkit/fake/internal/areas/vaults"
	"github.com/platformkit/platformkit/fake/internal/core"
)

// What a session names outside itself: its vaults (vault_ids) and the files it mounts (file
// resources). Both must be the caller's, as the caller's key sees them (its organization and
// workspace), and live: an unknown, deleted or another workspace's file is 404 naming the field
// (as a Messages block's file_id is), an expired one 404 with error_code file_expired; an
// unknown or archived vault is 400 naming its place in vault_ids.

// checkRefs checks the vault_ids and the file resources of a create body.
func checkRefs(s *core.Server, c *core.Call, vaultIDs []string, resources []any) error {
	if err := vaults.Check(s, c.St, c.Cred, "vault_ids", vaultIDs); err != nil {
		return err
	}
	for i, x := range resources {
		r := mapOf(x)
		if r["type"] != "file" {
			continue
		}
		if err := checkFile(s, c, fmt.Sprintf("resources.%d.file_id", i), r["file_id"]); err != nil {
			return err
		}
	}
	return nil
}

// checkFile refuses a file_id at path that is not the caller's live file.
func checkFile(s *core.Server, c *core.Call, path string, id any) error {
	sid, _ := id.(string)
	_, err := files.LookupSource(s, c.St, c.Cred, files.ContainerUploadBlock, path, sid)
	return err
}

// mounts is the area's Mounts: the memory stores of the organization's session id, with their
// access; nil when there is no such session.
func mounts(st *core.State, org *core.Org, id string) map[string]string {
	var resources []resourceEntry
	if a := sessionStores.In(st.Stores).Built(); a != nil {
		a.mu.Lock()
		defer a.mu.Unlock()
		ss := a.byID[id]
		if ss == nil || ss.org != org {
			return nil
		}
		resources = ss.resources
	} else {
		// No request built the store: the sessions are the fixtures'.
		i := slices.IndexFunc(*sessionsSection.In(st.Fx.Sections), func(ls *loadedSession) bool { return ls.rec.ID == id && ls.org == org })
		if i < 0 {
			return nil
		}
		resources = (*sessionsSection.In(st.Fx.Sections))[i].resources
	}
	out := map[string]string{}
	for _, e := range resources {
		if e.v["type"] == "memory_store" {
			id, _ := e.v["memory_store_id"].(string)
			access, _ := e.v["access"].(string)
			out[id] = access
		}
	}
	return out
}
