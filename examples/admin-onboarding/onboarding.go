// Package onboarding shows how an administration client onboards a person: invite them, find
// the invite in the organization's list, and withdraw it again (spec 4.6). It talks plain HTTP,
// so it runs the same against the fake and against a deployment.
package onboarding

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Client calls the administration interface with an admin API key.
type Client struct {
	BaseURL  string // no trailing slash
	AdminKey string
	HTTP     *http.Client
}

// Invite is the part of the invite record (spec 2.11) this example uses.
type Invite struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	Status    string `json:"status"`
	ExpiresAt string `json:"expires_at"`
}

// APIError is an error answer of the service: its HTTP status and the envelope of spec 7.
type APIError struct {
	Status  int
	Type    string
	Message string
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Type, e.Message) }

// do sends one request and decodes a 200 answer into out; any other answer is an *APIError.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("X-Api-Key", c.AdminKey)
	req.Header.Set("vendor-version", "2023-06-01")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var env struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		_ = json.Unmarshal(data, &env)
		return &APIError{Status: resp.StatusCode, Type: env.Error.Type, Message: env.Error.Message}
	}
	return json.Unmarshal(data, out)
}

// CreateInvite invites email with role (never admin: the service refuses it).
func (c *Client) CreateInvite(ctx context.Context, email, role string) (Invite, error) {
	var in Invite
	err := c.do(ctx, http.MethodPost, "/v1/organizations/invites", map[string]string{"email": email, "role": role}, &in)
	return in, err
}

// Invites returns every invite of the organization, following the cursor pages.
func (c *Client) Invites(ctx context.Context) ([]Invite, error) {
	var all []Invite
	after := ""
	for {
		q := url.Values{"limit": {"100"}}
		if after != "" {
			q.Set("after_id", after)
		}
		var page struct {
			Data    []Invite `json:"data"`
			HasMore bool     `json:"has_more"`
			LastID  *string  `json:"last_id"`
		}
		if err := c.do(ctx, http.MethodGet, "/v1/organizations/invites?"+q.Encode(), nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Data...)
		if !page.HasMore || page.LastID == nil {
			return all, nil
		}
		after = *page.LastID
	}
}

// DeleteInvite withdraws a pending invite.
func (c *Client) DeleteInvite(ctx context.Context, id string) error {
	var out struct {
		Type string `json:"type"`
	}
	if err := c.do(ctx, http.MethodDelete, "/v1/organizations/invites/"+url.PathEscape(id), nil, &out); err != nil {
		return err
	}
	if out.Type != "invite_deleted" {
		return fmt.Errorf("deleting invite %s: unexpected confirmation %q", id, out.Type)
	}
	return nil
}

// Onboard runs the walk-through and tells w what happens at each step.
func Onboard(ctx context.Context, c *Client, email, role string, w io.Writer) error {
	in, err := c.CreateInvite(ctx, email, role)
	if err != nil {
		return fmt.Errorf("inviting %s: %w", email, err)
	}
	fmt.Fprintf(w, "invited %s as %s: %s, %s until %s\n", in.Email, in.Role, in.ID, in.Status, in.ExpiresAt)

	if _, err := c.CreateInvite(ctx, email, role); err != nil {
		fmt.Fprintf(w, "inviting %s again is refused: %v\n", email, err)
	}

	all, err := c.Invites(ctx)
	if err != nil {
		return fmt.Errorf("listing invites: %w", err)
	}
	pending := 0
	for _, x := range all {
		if x.Status == "pending" {
			pending++
		}
		if x.ID == in.ID {
			fmt.Fprintf(w, "found %s in the list of %d invites\n", x.ID, len(all))
		}
	}
	fmt.Fprintf(w, "%d of them are pending\n", pending)

	if err := c.DeleteInvite(ctx, in.ID); err != nil {
		return fmt.Errorf("deleting the invite: %w", err)
	}
	all, err = c.Invites(ctx)
	if err != nil {
		return fmt.Errorf("listing invites: %w", err)
	}
	fmt.Fprintf(w, "deleted %s; the list now has %d invites\n", in.ID, len(all))
	return nil
}
