package complianceexport

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/platformkit/platformkit/fake"
)

// TestExportUser exports Ken's chats from the fake and prints what an operator would see.
func TestExportUser(t *testing.T) {
	ts := fake.NewTestServer(t)
	e := &Exporter{BaseURL: ts.URL, Key: "test-compliance-key", HTTP: ts.Client(), Out: os.Stdout}
	sum, err := e.ExportUser(context.Background(), "user_01AcmeKenCodeUser00000001")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exported %+v", sum)
	if got, want := sum.Chats, 2; got != want {
		t.Fatalf("chats = %d, want %d", got, want)
	}
	if got, want := sum.Files, 3; got != want {
		t.Fatalf("files = %d, want %d (the shared file once, the content-less one counted)", got, want)
	}
}

// TestExportManyPages walks a user with more chats than one page holds.
func TestExportManyPages(t *testing.T) {
	ts := fake.NewTestServer(t)
	e := &Exporter{BaseURL: ts.URL, Key: "test-compliance-key", HTTP: ts.Client(), Out: io.Discard}
	sum, err := e.ExportUser(context.Background(), "user_01AcmeGraceDeveloper00001")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sum.Chats, 260; got != want {
		t.Fatalf("chats = %d, want %d", got, want)
	}
}
