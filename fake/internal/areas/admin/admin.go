package admin

import (
	"encoding/json"
	"net/mail"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// Administration (spec 2.11, 2.12, 3.2, 4.6, gaps §6): the key's organization, invites, users,
// workspaces (admin_workspaces.go) and rate limits (admin_ratelimits.go), in this package.

// InviteLifetime is how long an invite stays pending (gaps §6).
const InviteLifetime = 21 * 24 * time.Hour

// grantableRoles are the roles an invite or a user update may give (spec 4.6): every role of
// 2.11 but admin.
var grantableRoles = []string{"user", "developer", "billing", "assistant_code_user"}

// memberRoles are the roles of spec 2.11, which the roles filters of the invite and user lists
// (the official SDKs' parameters) take.
var memberRoles = append([]string{"admin"}, grantableRoles...)

// queryOneOf reads a list parameter whose every value must be one of allowed; nil when absent.
func queryOneOf(c *core.Call, name string, allowed []string) ([]string, error) {
	vs := c.QueryStrings(name)
	for _, v := range vs {
		if !slices.Contains(allowed, v) {
			return nil, core.InvalidField(name, "%s is not one of %s", core.Quoted(v, core.MaxExcerpt), strings.Join(allowed, ", "))
		}
	}
	return vs, nil
}

// Store is one server's administration data. Deleted invites and removed users stay in
// their lists, marked, so that their IDs remain valid cursors (gaps §3) and a deleted invite
// still reads with status deleted.
type Store struct {
	Mu         sync.Mutex
	invites    records[Invite]
	users      records[core.Member]
	Removed    map[string]bool // IDs of removed users
	workspaces records[Workspace]
	Overrides  rateOverrides // workspace rate-limit overrides
}

// Admin returns the server's administration store, built from the fixtures on first use.
func StoreOf(s *core.Server, c *core.Call) *Store {
	return adminStores.In(c.St.Stores).Get(func() *Store {
		a := &Store{invites: newRecords(inviteKey), users: newRecords(userKey), Removed: map[string]bool{},
			workspaces: newRecords(workspaceKey), Overrides: newRateOverrides(c.St.Fx)}
		for _, in := range AdminSection.In(c.St.Fx.Sections).Invites {
			a.invites.add(in.Org, &in)
		}
		for _, u := range c.St.Fx.Users {
			a.users.add(u.Org, &u)
			if u.Removed {
				a.Removed[u.ID] = true
			}
		}
		for _, w := range AdminSection.In(c.St.Fx.Sections).Workspaces {
			a.workspaces.add(w.Org, &w)
		}
		return a
	})
}

// records holds one kind of administration record of every organization: each organization's
// list oldest first (by keyOf), and an index by organization and ID, so that finding a record or
// a cursor costs the same however many there are.
type records[T any] struct {
	keyOf func(*T) core.ListKey
	lists map[*core.Org][]*T
	byID  map[recordRef]*T
}

type recordRef struct {
	org *core.Org
	id  string
}

func newRecords[T any](keyOf func(*T) core.ListKey) records[T] {
	return records[T]{keyOf: keyOf, lists: map[*core.Org][]*T{}, byID: map[recordRef]*T{}}
}

// add puts r in o's list, in order: fixture data may lie ahead of the virtual clock.
func (rs *records[T]) add(o *core.Org, r *T) {
	rs.lists[o] = core.InsertInOrder(rs.lists[o], r, rs.keyOf, core.OldestFirst)
	rs.byID[recordRef{o, rs.keyOf(r).ID}] = r
}

// of returns o's records, oldest first.
func (rs *records[T]) of(o *core.Org) []*T { return rs.lists[o] }

// find returns o's record with the ID, or not_found naming the kind and ID.
func (rs *records[T]) find(o *core.Org, kind, id string) (*T, error) {
	if r := rs.byID[recordRef{o, id}]; r != nil {
		return r, nil
	}
	return nil, core.NotFound(kind, id)
}

// page cuts the page q asks for from o's records that keep selects, and answers it with each
// record's JSON as encode returns it (encoded once per change, recordJSON), spliced in. Any
// record of o is a valid cursor, so a client keeps paging after the record it stopped at was
// deleted or filtered out.
func page[T any](rs *records[T], o *core.Org, keep func(*T) bool, encode func(*T) (json.RawMessage, error), q core.CursorQuery) (any, error) {
	idOf := func(r *T) string { return rs.keyOf(r).ID }
	cursor := func(id string) (core.ListKey, bool) {
		if r := rs.byID[recordRef{o, id}]; r != nil {
			return rs.keyOf(r), true
		}
		return core.ListKey{}, false
	}
	p, err := core.PageKept(rs.lists[o], keep, rs.keyOf, idOf, core.OldestFirst, q, cursor)
	if err != nil {
		return nil, err
	}
	return core.EncodedCursorPage(p, encode)
}

// --- Organization ---

// organization is the organization record of spec 2.11; its id is the UUID (gaps §6).
type organization struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// getOrganization answers the organization the key belongs to (spec 4.6).
func getOrganization(s *core.Server, c *core.Call) (any, error) {
	return organization{ID: c.Org.UUID, Name: c.Org.Name, Type: "organization"}, nil
}

// --- Invites ---

// Invite is the invite record of spec 2.11. stored holds what happened to it (pending, accepted
// or deleted); Status, written to clients, is computed at read time so that a pending invite
// reads expired once the virtual clock passes ExpiresAt (spec 3.2, gaps §6).
type Invite struct {
	ID         string     `json:"id"`
	AcceptedAt *time.Time `json:"accepted_at"`
	Email      string     `json:"email"`
	ExpiresAt  time.Time  `json:"expires_at"`
	InvitedAt  time.Time  `json:"invited_at"`
	// RBACGroupIDs are the groups the user joins on acceptance (the official SDKs' field);
	// always [] here, since the fixture organizations have no RBAC groups.
	RBACGroupIDs []string        `json:"rbac_group_ids"`
	Role         string          `json:"role"`
	Status       string          `json:"status"`
	Type         string          `json:"type"`
	Stored       string          `json:"-"`
	Org          *core.Org       `json:"-"`
	encoded      core.RecordJSON // keyed by the status read; deleteInvite drops it
}

// inviteKey places an invite in its list: by invited_at, then ID.
func inviteKey(in *Invite) core.ListKey { return core.ListKey{At: in.InvitedAt, ID: in.ID} }

// view returns the invite as clients see it at now.
func (in *Invite) view(now time.Time) Invite {
	v := *in
	v.Status = in.Stored
	if v.Status == "pending" && !now.Before(in.ExpiresAt) {
		v.Status = "expired"
	}
	return v
}

// json returns the invite as clients see it at now, encoded once per change of its status
// (which the clock moves from pending to expired).
func (in *Invite) json(now time.Time) (json.RawMessage, error) {
	v := in.view(now)
	return in.encoded.Get(v.Status, func() any { return v })
}

// deletion is the confirmation of a delete (spec 2.11: invite_deleted, user_deleted).
type deletion struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// validEmail reports whether s is a bare address (no display name, no surrounding space) with a
// local part and a domain.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	local, domain, ok := strings.Cut(s, "@")
	return ok && local != "" && domain != "" && !strings.ContainsAny(s, " \t\r\n")
}

// createInvite creates a pending invite (spec 3.2) for a valid address and a role of 4.6, unless
// the address is already a member or has a pending invite.
func createInvite(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Email        string   `json:"email"`
		Role         string   `json:"role"`
		RBACGroupIDs []string `json:"rbac_group_ids"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	if len(req.RBACGroupIDs) > 0 {
		// The SDKs accept a non-empty list only for organizations with RBAC groups, which no
		// fixture organization has: naming a group is naming one that does not exist.
		return nil, core.InvalidField("rbac_group_ids.0", "RBAC group %s does not exist: this organization has no RBAC groups; send [] or omit the field", core.Quoted(req.RBACGroupIDs[0], core.MaxExcerpt))
	}
	if !validEmail(req.Email) {
		return nil, core.InvalidField("email", "%s is not an email address; send a bare address such as name@example.com", core.Quoted(req.Email, core.MaxExcerpt))
	}
	a, now := StoreOf(s, c), s.Clock.Now()
	a.Mu.Lock()
	defer a.Mu.Unlock()
	for _, u := range a.users.of(c.Org) {
		if !a.Removed[u.ID] && strings.EqualFold(u.Email, req.Email) {
			return nil, core.InvalidField("email", "%s is already a member of the organization (user %s)", core.Excerpt(req.Email, core.MaxExcerpt), u.ID)
		}
	}
	for _, in := range a.invites.of(c.Org) {
		if strings.EqualFold(in.Email, req.Email) && in.view(now).Status == "pending" {
			return nil, core.InvalidField("email", "%s already has a pending invite (%s); delete it before inviting again", core.Excerpt(req.Email, core.MaxExcerpt), in.ID)
		}
	}
	in := &Invite{ID: s.IDs.Next("invite_"), Email: req.Email, InvitedAt: now, ExpiresAt: now.Add(InviteLifetime),
		RBACGroupIDs: []string{}, Role: req.Role, Type: "invite", Stored: "pending", Org: c.Org}
	a.invites.add(c.Org, in)
	return in.json(now)
}

// onRecord runs f on the caller's record named by the path parameter, as find looks it up,
// with the store's lock held, so that the lookup and what f changes are one step.
func onRecord[T any](s *core.Server, c *core.Call, param string, find func(a *Store, o *core.Org, id string) (*T, error), f func(r *T) (any, error)) (any, error) {
	a := StoreOf(s, c)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	r, err := find(a, c.Org, c.Param(param))
	if err != nil {
		return nil, err
	}
	return f(r)
}

// findInvite returns the organization's invite with the ID; the caller holds a.mu.
func (a *Store) findInvite(o *core.Org, id string) (*Invite, error) {
	return a.invites.find(o, "invite", id)
}

// getInvite answers a deleted invite too, with status deleted: the status exists to be read.
func getInvite(s *core.Server, c *core.Call) (any, error) {
	return onRecord(s, c, "invite_id", (*Store).findInvite, func(in *Invite) (any, error) {
		return in.json(s.Clock.Now())
	})
}

// listInvites lists pending, accepted and expired invites; deleted ones leave the list (gaps §6)
// but stay valid cursors.
func listInvites(s *core.Server, c *core.Call) (any, error) {
	q, err := c.CursorQuery()
	if err != nil {
		return nil, err
	}
	email, byEmail := c.QueryString("email")
	roles, err := queryOneOf(c, "roles", memberRoles)
	if err != nil {
		return nil, err
	}
	statuses, err := queryOneOf(c, "statuses", []string{"accepted", "expired", "pending"})
	if err != nil {
		return nil, err
	}
	a, now := StoreOf(s, c), s.Clock.Now()
	a.Mu.Lock()
	defer a.Mu.Unlock()
	keep := func(in *Invite) bool {
		v := in.view(now)
		return in.Stored != "deleted" && (!byEmail || strings.EqualFold(in.Email, email)) &&
			(roles == nil || slices.Contains(roles, in.Role)) && (statuses == nil || slices.Contains(statuses, v.Status))
	}
	return page(&a.invites, c.Org, keep, func(in *Invite) (json.RawMessage, error) { return in.json(now) }, q)
}

// deleteInvite deletes a pending invite (gaps §6). Deleting it again answers the same
// confirmation, so that a client may retry; an accepted or expired invite cannot be deleted.
func deleteInvite(s *core.Server, c *core.Call) (any, error) {
	return onRecord(s, c, "invite_id", (*Store).findInvite, func(in *Invite) (any, error) {
		switch st := in.view(s.Clock.Now()).Status; st {
		case "pending":
			in.Stored = "deleted"
			in.encoded.Drop()
		case "deleted":
		default:
			return nil, core.Invalid("invite %s is %s; only pending invites can be deleted", in.ID, st)
		}
		return deletion{ID: in.ID, Type: "invite_deleted"}, nil
	})
}

// --- Users ---

// user is the user record of spec 2.11.
type user struct {
	ID      string    `json:"id"`
	AddedAt time.Time `json:"added_at"`
	Email   string    `json:"email"`
	Name    string    `json:"name"`
	Role    string    `json:"role"`
	Type    string    `json:"type"`
}

// userKey places a user in its list: by added_at, then ID.
func userKey(u *core.Member) core.ListKey { return core.ListKey{At: u.AddedAt, ID: u.ID} }

// userView returns the member as the user record clients see.
func userView(u *core.Member) user {
	return user{ID: u.ID, AddedAt: u.AddedAt, Email: u.Email, Name: u.Name, Role: u.Role, Type: "user"}
}

// userJSON returns the user record clients see, encoded once per change (recordJSON).
func userJSON(u *core.Member) (json.RawMessage, error) {
	return u.Encoded.Get("", func() any { return userView(u) })
}

// findUser returns the organization's user with the ID, unless removed; the caller holds a.mu.
func (a *Store) findUser(o *core.Org, id string) (*core.Member, error) {
	if a.Removed[id] {
		return nil, core.NotFound("user", id)
	}
	return a.users.find(o, "user", id)
}

// getUser answers one of the organization's users.
func getUser(s *core.Server, c *core.Call) (any, error) {
	return onRecord(s, c, "user_id", (*Store).findUser, func(u *core.Member) (any, error) { return userJSON(u) })
}

// signOutUser ends the member's sessions and answers the member. The fake keeps no sessions, so
// nothing else changes; the journal records the call. The primary owner cannot be signed out
// (400), as the platform's error codes say.
func signOutUser(s *core.Server, c *core.Call) (any, error) {
	return onRecord(s, c, "user_id", (*Store).findUser, func(u *core.Member) (any, error) {
		if u.Role == "primary_owner" {
			return nil, core.Invalid("user %s is the organization's primary owner, who cannot be signed out", u.ID)
		}
		return userJSON(u)
	})
}

// listUsers lists the organization's members; email filters by exact address, ignoring case
// (gaps §6).
func listUsers(s *core.Server, c *core.Call) (any, error) {
	q, err := c.CursorQuery()
	if err != nil {
		return nil, err
	}
	email, filtered := c.QueryString("email")
	roles, err := queryOneOf(c, "roles", memberRoles)
	if err != nil {
		return nil, err
	}
	a := StoreOf(s, c)
	a.Mu.Lock()
	defer a.Mu.Unlock()
	keep := func(u *core.Member) bool {
		return !a.Removed[u.ID] && (!filtered || strings.EqualFold(u.Email, email)) && (roles == nil || slices.Contains(roles, u.Role))
	}
	return page(&a.users, c.Org, keep, userJSON, q)
}

// protectAdmin refuses to change or remove an admin (gaps §6).
func protectAdmin(u *core.Member, what string) error {
	if u.Role == "admin" {
		return core.PermissionDenied("user %s has the role admin; an admin cannot be %s through this API", u.ID, what)
	}
	return nil
}

// updateUser gives a user another role of 4.6; an admin cannot be changed (gaps §6).
func updateUser(s *core.Server, c *core.Call) (any, error) {
	var req struct {
		Role string `json:"role"`
	}
	if err := c.BindValid(&req); err != nil {
		return nil, err
	}
	return onRecord(s, c, "user_id", (*Store).findUser, func(u *core.Member) (any, error) {
		if err := protectAdmin(u, "changed"); err != nil {
			return nil, err
		}
		u.Role = req.Role
		u.Encoded.Drop()
		return userJSON(u)
	})
}

// removeUser removes a user from the organization; an admin cannot be removed (gaps §6).
func removeUser(s *core.Server, c *core.Call) (any, error) {
	a := StoreOf(s, c)
	return onRecord(s, c, "user_id", (*Store).findUser, func(u *core.Member) (any, error) {
		if err := protectAdmin(u, "removed"); err != nil {
			return nil, err
		}
		a.Removed[u.ID] = true
		return deletion{ID: u.ID, Type: "user_deleted"}, nil
	})
}
