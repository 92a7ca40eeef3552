package onboarding_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	onboarding "github.com/platformkit/platformkit/examples/admin-onboarding"
	"github.com/platformkit/platformkit/fake"
)

// ExampleOnboard runs the walk-through against a fresh fake: invite, list, delete. go test
// compares what it prints with the Output below.
func ExampleOnboard() {
	srv := httptest.NewServer(fake.New())
	defer srv.Close()
	c := &onboarding.Client{BaseURL: srv.URL, AdminKey: "test-admin-key", HTTP: srv.Client()}
	if err := onboarding.Onboard(context.Background(), c, "new.hire@acme.example", "developer", os.Stdout); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// invited new.hire@acme.example as developer: invite_010000000000000000000001, pending until 2026-01-22T00:00:00Z
	// inviting new.hire@acme.example again is refused: 400 invalid_request_error: email: new.hire@acme.example already has a pending invite (invite_010000000000000000000001); delete it before inviting again
	// found invite_010000000000000000000001 in the list of 5 invites
	// 3 of them are pending
	// deleted invite_010000000000000000000001; the list now has 4 invites
}

// TestInviteAdminRefused shows the error a client gets for a role an invite cannot give.
func TestInviteAdminRefused(t *testing.T) {
	ts := fake.NewTestServer(t)
	c := &onboarding.Client{BaseURL: ts.URL, AdminKey: "test-admin-key", HTTP: ts.Client()}
	_, err := c.CreateInvite(context.Background(), "boss@acme.example", "admin")
	var apiErr *onboarding.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusBadRequest || apiErr.Type != "invalid_request_error" {
		t.Fatalf("inviting an admin: %v, want a 400 invalid_request_error", err)
	}
	t.Logf("inviting an admin: %v", err)
}
