package fake

import (
	"net/mail"
	"slices"
	"strings"
	"sync"
	"time"
)

// Administration (spec 2.11, 2.12, 3.2, 4.6, gaps §6): the key's organization, invites, users,
// workspaces (admin_workspaces.go) and rate limits (admin_ratelimits.go).

// inviteLifetime is how long an invite stays pending (gaps §6).
const inviteLifetime = 21 * 24 * time.Hour

// grantableRoles are the roles an invite or a user update may give (spec 4.6): every role of
// 2.11 but admin.
var grantableRoles = []string{"user", "developer", "billing", "assistant_code_user"}

// adminStore is one server's administration data. Deleted invites and removed users stay in
// their slices, marked, so that their IDs remain valid cursors (gaps §3) and a deleted invite
// still reads with status deleted.
type adminStore struct {
	mu         sync.Mutex
	invites    map[*org][]*invite    // oldest first (invited_at, id)
	users      map[*org][]*member    // oldest first (added_at, id)
	removed    map[string]bool       // IDs of removed users
	workspaces map[*org][]*workspace // oldest first (created_at, id)
}

// admin returns the server's administration store, built from the fixtures on first use.
func (s *Server) admin(c *call) *adminStore {
	return c.st.admin.get(func() *adminStore {
		a := &adminStore{invites: map[*org][]*invite{}, users: map[*org][]*member{}, removed: map[string]bool{},
			workspaces: map[*org][]*workspace{}}
		for _, in := range s.fx.admin.invites {
			a.invites[in.org] = append(a.invites[in.org], &in)
		}
		for _, u := range s.fx.users {
			a.users[u.org] = append(a.users[u.org], &u)
		}
		for _, w := range s.fx.admin.workspaces {
			a.workspaces[w.org] = append(a.workspaces[w.org], &w)
		}
		for _, l := range a.invites {
			slices.SortFunc(l, func(x, y *invite) int { return oldestFirst(inviteKey(x), inviteKey(y)) })
		}
		for _, l := range a.users {
			slices.SortFunc(l, func(x, y *member) int { return oldestFirst(userKey(x), userKey(y)) })
		}
		for _, l := range a.workspaces {
			slices.SortFunc(l, func(x, y *workspace) int { return oldestFirst(workspaceKey(x), workspaceKey(y)) })
		}
		return a
	})
}

// pageOf cuts the page q asks for from the records of all (sorted oldest first) that keep
// selects, and answers what view makes of each record on the page. Any record of all is a valid
// cursor, so a client keeps paging after the record it stopped at was deleted or filtered out.
func pageOf[T, V any](all []*T, keep func(*T) bool, keyOf func(*T) listKey, view func(*T) V, q cursorQuery) (cursorPage[V], error) {
	var sel []*T
	for _, r := range all {
		if keep(r) {
			sel = append(sel, r)
		}
	}
	idOf := func(r *T) string { return keyOf(r).ID }
	p, err := pageByCursor(sel, keyOf, idOf, oldestFirst, q, lookupIn(all, keyOf))
	if err != nil {
		return cursorPage[V]{}, err
	}
	out := cursorPage[V]{Data: make([]V, 0, len(p.Data)), FirstID: p.FirstID, HasMore: p.HasMore, LastID: p.LastID}
	for _, r := range p.Data {
		out.Data = append(out.Data, view(r))
	}
	return out, nil
}

// --- Organization ---

// organization is the organization record of spec 2.11; its id is the UUID (gaps §6).
type organization struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// getOrganization answers the organization the key belongs to (spec 4.6).
func (s *Server) getOrganization(c *call) (any, error) {
	return organization{ID: c.org.UUID, Name: c.org.Name, Type: "organization"}, nil
}

// --- Invites ---

// invite is the invite record of spec 2.11. status holds what happened to it (pending, accepted
// or deleted); Status, written to clients, is computed at read time so that a pending invite
// reads expired once the virtual clock passes ExpiresAt (spec 3.2, gaps §6).
type invite struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	ExpiresAt time.Time `json:"expires_at"`
	InvitedAt time.Time `json:"invited_at"`
	Role      string    `json:"role"`
	Status    string    `json:"status"`
	Type      string    `json:"type"`
	status    string
	org       *org
}

// inviteKey places an invite in its list: by invited_at, then ID.
func inviteKey(in *invite) listKey { return listKey{in.InvitedAt, in.ID} }

// view returns the invite as clients see it at now.
func (in *invite) view(now time.Time) invite {
	v := *in
	v.Status = in.status
	if v.Status == "pending" && !now.Before(in.ExpiresAt) {
		v.Status = "expired"
	}
	return v
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
func (s *Server) createInvite(c *call) (any, error) {
	var req struct {
		Email string `json:"email"`
		Role  string `json:"role"`
	}
	if err := c.bindValid(&req); err != nil {
		return nil, err
	}
	if !validEmail(req.Email) {
		return nil, invalidField("email", "%q is not an email address; send a bare address such as name@example.com", req.Email)
	}
	a, now := s.admin(c), s.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, u := range a.users[c.org] {
		if !a.removed[u.ID] && strings.EqualFold(u.Email, req.Email) {
			return nil, invalidField("email", "%s is already a member of the organization (user %s)", req.Email, u.ID)
		}
	}
	for _, in := range a.invites[c.org] {
		if strings.EqualFold(in.Email, req.Email) && in.view(now).Status == "pending" {
			return nil, invalidField("email", "%s already has a pending invite (%s); delete it before inviting again", req.Email, in.ID)
		}
	}
	in := &invite{ID: s.ids.next("invite_"), Email: req.Email, InvitedAt: now, ExpiresAt: now.Add(inviteLifetime),
		Role: req.Role, Type: "invite", status: "pending", org: c.org}
	a.invites[c.org] = insertInOrder(a.invites[c.org], in, inviteKey, oldestFirst)
	return in.view(now), nil
}

// onRecord runs f on the caller's record named by the path parameter, as find looks it up,
// with the store's lock held, so that the lookup and what f changes are one step.
func onRecord[T any](s *Server, c *call, param string, find func(a *adminStore, o *org, id string) (*T, error), f func(r *T) (any, error)) (any, error) {
	a := s.admin(c)
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := find(a, c.org, c.Param(param))
	if err != nil {
		return nil, err
	}
	return f(r)
}

// findIn returns the first record of list that matches, or not_found naming the kind and ID.
func findIn[T any](list []*T, match func(*T) bool, kind, id string) (*T, error) {
	if i := slices.IndexFunc(list, match); i >= 0 {
		return list[i], nil
	}
	return nil, notFound(kind, id)
}

// findInvite returns the organization's invite with the ID; the caller holds a.mu.
func (a *adminStore) findInvite(o *org, id string) (*invite, error) {
	return findIn(a.invites[o], func(in *invite) bool { return in.ID == id }, "invite", id)
}

// getInvite answers a deleted invite too, with status deleted: the status exists to be read.
func (s *Server) getInvite(c *call) (any, error) {
	return onRecord(s, c, "invite_id", (*adminStore).findInvite, func(in *invite) (any, error) {
		return in.view(s.clock.Now()), nil
	})
}

// listInvites lists pending, accepted and expired invites; deleted ones leave the list (gaps §6)
// but stay valid cursors.
func (s *Server) listInvites(c *call) (any, error) {
	q, err := c.cursorQuery()
	if err != nil {
		return nil, err
	}
	a, now := s.admin(c), s.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	return pageOf(a.invites[c.org], func(in *invite) bool { return in.status != "deleted" }, inviteKey,
		func(in *invite) invite { return in.view(now) }, q)
}

// deleteInvite deletes a pending invite (gaps §6). Deleting it again answers the same
// confirmation, so that a client may retry; an accepted or expired invite cannot be deleted.
func (s *Server) deleteInvite(c *call) (any, error) {
	return onRecord(s, c, "invite_id", (*adminStore).findInvite, func(in *invite) (any, error) {
		switch st := in.view(s.clock.Now()).Status; st {
		case "pending":
			in.status = "deleted"
		case "deleted":
		default:
			return nil, invalid("invite %s is %s; only pending invites can be deleted", in.ID, st)
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
func userKey(u *member) listKey { return listKey{u.AddedAt, u.ID} }

// view returns the member as the user record clients see.
func (u *member) view() user {
	return user{ID: u.ID, AddedAt: u.AddedAt, Email: u.Email, Name: u.Name, Role: u.Role, Type: "user"}
}

// findUser returns the organization's user with the ID, unless removed; the caller holds a.mu.
func (a *adminStore) findUser(o *org, id string) (*member, error) {
	return findIn(a.users[o], func(u *member) bool { return u.ID == id && !a.removed[id] }, "user", id)
}

// getUser answers one of the organization's users.
func (s *Server) getUser(c *call) (any, error) {
	return onRecord(s, c, "user_id", (*adminStore).findUser, func(u *member) (any, error) { return u.view(), nil })
}

// listUsers lists the organization's members; email filters by exact address, ignoring case
// (gaps §6).
func (s *Server) listUsers(c *call) (any, error) {
	q, err := c.cursorQuery()
	if err != nil {
		return nil, err
	}
	email, filtered := c.queryString("email")
	a := s.admin(c)
	a.mu.Lock()
	defer a.mu.Unlock()
	keep := func(u *member) bool { return !a.removed[u.ID] && (!filtered || strings.EqualFold(u.Email, email)) }
	return pageOf(a.users[c.org], keep, userKey, (*member).view, q)
}

// protectAdmin refuses to change or remove an admin (gaps §6).
func protectAdmin(u *member, what string) error {
	if u.Role == "admin" {
		return permissionDenied("user %s has the role admin; an admin cannot be %s through this API", u.ID, what)
	}
	return nil
}

// updateUser gives a user another role of 4.6; an admin cannot be changed (gaps §6).
func (s *Server) updateUser(c *call) (any, error) {
	var req struct {
		Role string `json:"role"`
	}
	if err := c.bindValid(&req); err != nil {
		return nil, err
	}
	return onRecord(s, c, "user_id", (*adminStore).findUser, func(u *member) (any, error) {
		if err := protectAdmin(u, "changed"); err != nil {
			return nil, err
		}
		u.Role = req.Role
		return u.view(), nil
	})
}

// removeUser removes a user from the organization; an admin cannot be removed (gaps §6).
func (s *Server) removeUser(c *call) (any, error) {
	a := s.admin(c)
	return onRecord(s, c, "user_id", (*adminStore).findUser, func(u *member) (any, error) {
		if err := protectAdmin(u, "removed"); err != nil {
			return nil, err
		}
		a.removed[u.ID] = true
		return deletion{ID: u.ID, Type: "user_deleted"}, nil
	})
}
