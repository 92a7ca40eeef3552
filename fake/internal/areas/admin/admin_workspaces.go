package admin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Workspaces (spec 2.11, 4.6: create and get; gaps §6: list, update, archive).

// MaxActiveWorkspaces is how many non-archived workspaces an organization may have (gaps §6).
const MaxActiveWorkspaces = 100

// reservedTagPrefix begins the tag keys clients may not set (spec 2.11).
const reservedTagPrefix = "vendor"

// WorkspaceColors are the display colors given in turn to new workspaces whose create names
// none (spec 4.6 has no display_color on create; the official SDKs send one), since the record
// always has one.
var WorkspaceColors = []string{"#6366F1", "#10B981", "#F59E0B", "#EF4444", "#3B82F6", "#8B5CF6"}

// Workspace is the workspace record of spec 2.11. Updates replace Tags and the slices inside
// DataResidency instead of changing them, so a copy taken under the lock stays valid.
type Workspace struct {
	ID            string        `json:"id"`
	ArchivedAt    *time.Time    `json:"archived_at"`
	CompartmentID string        `json:"compartment_id"`
	CreatedAt     time.Time     `json:"created_at"`
	DataResidency dataResidency `json:"data_residency"`
	DisplayColor  string        `json:"display_color"`
	// ExternalKeyID is the customer-managed key configuration, write-once; null until set.
	ExternalKeyID *string           `json:"external_key_id"`
	Name          string            `json:"name"`
	Tags          map[string]string `json:"tags"`
	Type          string            `json:"type"`
	// UserProfileID is the user profile the workspace belongs to (the SDK majors of 2026-10-21);
	// null until a create or update sets it.
	UserProfileID *string `json:"user_profile_id"`
	// InferenceDataPrivacy is where the workspace's retained inference data and transcript copies
	// go, and whether human review applies (beta EFSBeta); nil until a create or update sets it,
	// when answers show the platform's defaults. Answered only to requests that send EFSBeta.
	InferenceDataPrivacy *inferenceDataPrivacy `json:"inference_data_privacy,omitempty"`
	Org                  *core.Org             `json:"-"`
	encoded              core.RecordJSON       // the view, keyed by whether the request sent EFSBeta; every change drops it
}

// EFSBeta is the face's EFSBeta (package fake), which documents it.
const EFSBeta = "efs-2026-10-01"

// inferenceDataPrivacy is a workspace's inference_data_privacy: each member a {"type": ...}
// object, a storage member "internal" or "external" with the external_storage_id it names.
type inferenceDataPrivacy struct {
	HumanReview        *privacyMember `json:"human_review"`
	SafeguardsStorage  *privacyMember `json:"safeguards_storage"`
	TranscriptsStorage *privacyMember `json:"transcripts_storage"`
}

// privacyMember is one member of inference_data_privacy.
type privacyMember struct {
	Type              string  `json:"type"`
	ExternalStorageID *string `json:"external_storage_id,omitempty"`
}

// defaultDataPrivacy is what a workspace that never set inference_data_privacy answers: human
// review enabled, no External Storage for either purpose.
var defaultDataPrivacy = inferenceDataPrivacy{
	HumanReview:        &privacyMember{Type: "enabled"},
	SafeguardsStorage:  &privacyMember{Type: "internal"},
	TranscriptsStorage: &privacyMember{Type: "internal"},
}

// apply returns the setting after a create's or update's change: members the change omits keep
// their value (the default, on a create).
func (p *inferenceDataPrivacy) apply(ch *inferenceDataPrivacy) *inferenceDataPrivacy {
	out := defaultDataPrivacy
	if p != nil {
		out = *p
	}
	if ch.HumanReview != nil {
		out.HumanReview = ch.HumanReview
	}
	if ch.SafeguardsStorage != nil {
		out.SafeguardsStorage = ch.SafeguardsStorage
	}
	if ch.TranscriptsStorage != nil {
		out.TranscriptsStorage = ch.TranscriptsStorage
	}
	return &out
}

// view is the workspace as the request may see it: inference_data_privacy (its default until
// set) only for a request that sends EFSBeta, as the platform answers it.
func (w *Workspace) view(c *core.Call) Workspace {
	v := *w
	switch {
	case !c.HasBeta(EFSBeta):
		v.InferenceDataPrivacy = nil
	case v.InferenceDataPrivacy == nil:
		v.InferenceDataPrivacy = &defaultDataPrivacy
	}
	return v
}

// json returns the view c sees, encoded once per change and per answer of EFSBeta (recordJSON).
func (w *Workspace) json(c *core.Call) (json.RawMessage, error) {
	key := ""
	if c.HasBeta(EFSBeta) {
		key = EFSBeta
	}
	return w.encoded.Get(key, func() any { return w.view(c) })
}

// compartmentID is a workspace's encryption compartment (the official SDKs' compartment_id):
// fixed for the life of the workspace, so derived from its ID, and the same on every run.
func compartmentID(workspaceID string) string {
	sum := sha256.Sum256([]byte("compartment\x00" + workspaceID))
	return "cmpt_" + hex.EncodeToString(sum[:12])
}

// workspaceKey places a workspace in its list: by created_at, then ID.
func workspaceKey(w *Workspace) core.ListKey { return core.ListKey{At: w.CreatedAt, ID: w.ID} }

// dataResidency is where a workspace's data lives and where it may be served (spec 2.11).
type dataResidency struct {
	AllowedInferenceGeos geoList `json:"allowed_inference_geos"`
	DefaultInferenceGeo  string  `json:"default_inference_geo"`
	WorkspaceGeo         string  `json:"workspace_geo"`
}

// geoList is allowed_inference_geos: a list of geos, or the string "unrestricted".
type geoList struct {
	unrestricted bool
	geos         []string
}

const unrestricted = "unrestricted"

// MarshalJSON writes "unrestricted" or the list.
func (g geoList) MarshalJSON() ([]byte, error) {
	if g.unrestricted {
		return json.Marshal(unrestricted)
	}
	return json.Marshal(append([]string{}, g.geos...))
}

// UnmarshalJSON reads "unrestricted" or a list of strings; request schemas have already
// refused anything else with a 400 naming the field.
func (g *geoList) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		if s != unrestricted {
			return fmt.Errorf("allowed_inference_geos: the only string allowed is %q, got %s", unrestricted, core.Quoted(s, core.MaxExcerpt))
		}
		*g = geoList{unrestricted: true}
		return nil
	}
	g.unrestricted = false
	return json.Unmarshal(b, &g.geos)
}

// residencyChange is the data_residency of a create or update body: each field optional.
type residencyChange struct {
	AllowedInferenceGeos *geoList `json:"allowed_inference_geos"`
	DefaultInferenceGeo  *string  `json:"default_inference_geo"`
	WorkspaceGeo         *string  `json:"workspace_geo"`
}

// DefaultResidency is what a workspace gets when create omits data_residency or parts of it
// (spec 4.6).
var DefaultResidency = dataResidency{AllowedInferenceGeos: geoList{unrestricted: true}, DefaultInferenceGeo: "global", WorkspaceGeo: "us"}

// apply returns r changed by ch. The default geo must be one of the allowed geos unless those
// are unrestricted (spec 4.6); on update, workspace_geo may only be repeated (gaps §6).
func (r dataResidency) apply(ch *residencyChange, creating bool) (dataResidency, error) {
	if ch == nil {
		return r, nil
	}
	if ch.WorkspaceGeo != nil {
		if !creating && *ch.WorkspaceGeo != r.WorkspaceGeo {
			return r, core.InvalidField("data_residency.workspace_geo", "cannot change after creation; this workspace's geo is %q", r.WorkspaceGeo)
		}
		r.WorkspaceGeo = *ch.WorkspaceGeo
	}
	if ch.AllowedInferenceGeos != nil {
		r.AllowedInferenceGeos = *ch.AllowedInferenceGeos
	}
	if ch.DefaultInferenceGeo != nil {
		r.DefaultInferenceGeo = *ch.DefaultInferenceGeo
	}
	if al := r.AllowedInferenceGeos; !al.unrestricted && !slices.Contains(al.geos, r.DefaultInferenceGeo) {
		return r, core.InvalidField("data_residency.default_inference_geo", "%s is not one of allowed_inference_geos %q; choose one of them or allow %q",
			core.Quoted(r.DefaultInferenceGeo, core.MaxExcerpt), al.geos, unrestricted)
	}
	return r, nil
}

// checkTags refuses tag keys with the reserved prefix (spec 2.11), naming the first in key order.
func checkTags(tags map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if strings.HasPrefix(strings.ToLower(k), reservedTagPrefix) {
			return core.InvalidField("tags."+k, "tag keys must not begin with the reserved prefix %q", reservedTagPrefix)
		}
	}
	return nil
}

// checkName refuses a name that is empty or only white space.
func checkName(name string) error {
	if strings.TrimSpace(name) == "" {
		return core.InvalidField("name", "must not be empty")
	}
	return nil
}

// workspaceChange is a create or update body; schemas admin/workspace_create and
// admin/workspace_update say which fields each takes.
type workspaceChange struct {
	Name          *string            `json:"name"`
	DisplayColor  *string            `json:"display_color"`
	ExternalKeyID *string            `json:"external_key_id"`
	Tags          *map[string]string `json:"tags"`
	DataResidency *residencyChange   `json:"data_residency"`
	UserProfileID *string            `json:"user_profile_id"`
	// InferenceDataPrivacy needs EFSBeta (readWorkspaceChange); a member it omits is unchanged.
	InferenceDataPrivacy *inferenceDataPrivacy `json:"inference_data_privacy"`
}

// readWorkspaceChange validates the body against the route's request schema and decodes it.
func readWorkspaceChange(c *core.Call) (workspaceChange, error) {
	var ch workspaceChange
	if err := c.BindValid(&ch); err != nil {
		return ch, err
	}
	if ch.Name != nil {
		if err := checkName(*ch.Name); err != nil {
			return ch, err
		}
	}
	if ch.Tags != nil {
		if err := checkTags(*ch.Tags); err != nil {
			return ch, err
		}
	}
	if ch.InferenceDataPrivacy != nil && !c.HasBeta(EFSBeta) {
		return ch, core.InvalidField("inference_data_privacy", "requires the anthropic-beta value %q", EFSBeta)
	}
	return ch, nil
}

// createWorkspace creates a workspace with the defaults and checks of spec 4.6, within the
// allowance of non-archived workspaces (gaps §6).
func createWorkspace(s *core.Server, c *core.Call) (any, error) {
	ch, err := readWorkspaceChange(c)
	if err != nil {
		return nil, err
	}
	res, err := DefaultResidency.apply(ch.DataResidency, true)
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	if ch.Tags != nil {
		tags = *ch.Tags
	}
	a := StoreOf(s, c)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	list := a.workspaces.of(c.Org)
	active := 0
	for _, w := range list {
		if w.ArchivedAt == nil {
			active++
		}
	}
	if active >= MaxActiveWorkspaces {
		return nil, core.Invalid("the organization already has %d non-archived workspaces, the most allowed; archive one before creating another", active)
	}
	color := WorkspaceColors[len(list)%len(WorkspaceColors)]
	if ch.DisplayColor != nil {
		color = *ch.DisplayColor
	}
	id := s.IDs.Next("wrkspc_")
	w := &Workspace{ID: id, CompartmentID: compartmentID(id), CreatedAt: s.Clock.Now(), DataResidency: res,
		DisplayColor: color, ExternalKeyID: ch.ExternalKeyID, Name: *ch.Name, Tags: tags, Type: "workspace", UserProfileID: ch.UserProfileID, Org: c.Org}
	if ch.InferenceDataPrivacy != nil {
		w.InferenceDataPrivacy = w.InferenceDataPrivacy.apply(ch.InferenceDataPrivacy)
	}
	a.workspaces.add(c.Org, w)
	return w.json(c)
}

// FindWorkspace returns the organization's workspace with the ID, archived or not; the caller
// holds a.mu.
func (a *Store) FindWorkspace(o *core.Org, id string) (*Workspace, error) {
	return a.workspaces.find(o, "workspace", id)
}

// getWorkspace answers one of the organization's workspaces, archived or not.
func getWorkspace(s *core.Server, c *core.Call) (any, error) {
	return onRecord(s, c, "workspace_id", (*Store).FindWorkspace, func(w *Workspace) (any, error) { return w.json(c) })
}

// listWorkspaces lists the organization's workspaces oldest first; archived ones only with
// include_archived=true (gaps §6).
func listWorkspaces(s *core.Server, c *core.Call) (any, error) {
	q, err := c.CursorQuery()
	if err != nil {
		return nil, err
	}
	withArchived, err := c.QueryBool("include_archived")
	if err != nil {
		return nil, err
	}
	// The default workspace is not a record here (tunnels name it with a null workspace_id),
	// so include_default (the SDKs' parameter) is validated and lists nothing more.
	if _, err := c.QueryBool("include_default"); err != nil {
		return nil, err
	}
	ids, most := c.QueryStrings("ids"), c.DeclaredParam("ids", core.PStrings).MaxItems
	if len(ids) > most {
		return nil, core.InvalidField("ids", "at most %d workspace IDs, got %d", most, len(ids))
	}
	a := StoreOf(s, c)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	return page(&a.workspaces, c.Org, func(w *Workspace) bool {
		return (withArchived || w.ArchivedAt == nil) && (len(ids) == 0 || slices.Contains(ids, w.ID))
	}, func(w *Workspace) (json.RawMessage, error) { return w.json(c) }, q)
}

// updateWorkspace changes name, display_color, tags (replaced whole) and data_residency except
// workspace_geo (gaps §6), and attaches external_key_id, which is write-once: repeating the
// attached value is a no-op, another value a 400. An archived workspace is read-only.
func updateWorkspace(s *core.Server, c *core.Call) (any, error) {
	ch, err := readWorkspaceChange(c)
	if err != nil {
		return nil, err
	}
	return onRecord(s, c, "workspace_id", (*Store).FindWorkspace, func(w *Workspace) (any, error) {
		if w.ArchivedAt != nil {
			return nil, core.Invalid("workspace %s is archived and cannot be changed", w.ID)
		}
		if k := ch.ExternalKeyID; k != nil && w.ExternalKeyID != nil && *k != *w.ExternalKeyID {
			return nil, core.InvalidField("external_key_id", "is write-once: workspace %s already has external key %q, which cannot be detached or replaced", w.ID, *w.ExternalKeyID)
		}
		res, err := w.DataResidency.apply(ch.DataResidency, false)
		if err != nil {
			return nil, err
		}
		w.DataResidency = res
		if ch.ExternalKeyID != nil {
			w.ExternalKeyID = ch.ExternalKeyID
		}
		if ch.Name != nil {
			w.Name = *ch.Name
		}
		if ch.DisplayColor != nil {
			w.DisplayColor = *ch.DisplayColor
		}
		if ch.Tags != nil {
			w.Tags = *ch.Tags
		}
		if ch.UserProfileID != nil {
			w.UserProfileID = ch.UserProfileID
		}
		if ch.InferenceDataPrivacy != nil {
			w.InferenceDataPrivacy = w.InferenceDataPrivacy.apply(ch.InferenceDataPrivacy)
		}
		w.encoded.Drop()
		return w.json(c)
	})
}

// archiveWorkspace sets archived_at (gaps §6); archiving an archived workspace returns it
// unchanged, so that a client may retry.
func archiveWorkspace(s *core.Server, c *core.Call) (any, error) {
	return onRecord(s, c, "workspace_id", (*Store).FindWorkspace, func(w *Workspace) (any, error) {
		if w.ArchivedAt == nil {
			now := s.Clock.Now()
			w.ArchivedAt = &now
			w.encoded.Drop()
		}
		return w.json(c)
	})
}
