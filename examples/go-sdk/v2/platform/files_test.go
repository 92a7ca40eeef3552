package platform

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// usageCSV is the file of the fixtures that the platform made (fixtures/files.json): downloadable.
const usageCSV = "file_01AcmeUsageCsv000000000001"

// TestFiles drives every files operation of Go SDK v2 against the fake, with every optional
// field the fake can take and with only the required ones (the workspace header is left out:
// the key belongs to the default workspace, and a header naming another is refused).
func TestFiles(t *testing.T) {
	ctx, c := context.Background(), apiClient(t)
	up := answer(c.Files.Upload(ctx, anthropic.FileUploadParams{
		File: anthropic.File(strings.NewReader("hello, files"), "notes/hello.txt", "text/plain"), ExpiresInSeconds: anthropic.Int(3600),
	})).ok(t, "files.upload (all fields)")
	if up.Filename != "hello.txt" || up.MimeType != "text/plain" || up.SizeBytes != 12 || up.Downloadable || up.ExpiresAt.IsZero() {
		t.Errorf("files.upload: %+v", up)
	}
	bare := answer(c.Files.Upload(ctx, anthropic.FileUploadParams{File: strings.NewReader("%PDF-1.7\n")})).ok(t, "files.upload (required)")
	if bare.MimeType != "application/pdf" {
		t.Errorf("files.upload (required): mime_type %q, want the sniffed application/pdf", bare.MimeType)
	}

	page := answer(c.Files.List(ctx, anthropic.FileListParams{Limit: anthropic.Int(1)})).ok(t, "files.list (limit)")
	if len(page.Data) != 1 || page.Data[0].ID != bare.ID || page.NextPage == "" {
		t.Errorf("files.list (limit 1): %+v, want the newest file and a next page", page)
	}
	answer(c.Files.List(ctx, anthropic.FileListParams{Page: anthropic.String(page.NextPage)})).ok(t, "files.list (page)")
	byID := answer(c.Files.List(ctx, anthropic.FileListParams{IDs: []string{up.ID, "file_unknown"}})).ok(t, "files.list (ids)")
	if len(byID.Data) != 1 || byID.Data[0].ID != up.ID {
		t.Errorf("files.list (ids): %+v", byID.Data)
	}
	var all []string
	for iter := c.Files.ListAutoPaging(ctx, anthropic.FileListParams{Limit: anthropic.Int(1)}); iter.Next(); {
		all = append(all, iter.Current().ID)
	}
	if want := []string{bare.ID, up.ID, usageCSV}; strings.Join(all, " ") != strings.Join(want, " ") {
		t.Errorf("files.list auto-paging: %v, want %v", all, want)
	}
	answer(c.Files.GetMetadata(ctx, up.ID, anthropic.FileGetMetadataParams{})).ok(t, "files.get_metadata (required)")

	_, err := c.Files.Download(ctx, up.ID, anthropic.FileDownloadParams{})
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || !strings.Contains(apiErr.RawJSON(), "file_not_downloadable") {
		t.Errorf("files.download of an upload: %v, want 400 file_not_downloadable", err)
	}
	resp, err := c.Files.Download(ctx, usageCSV, anthropic.FileDownloadParams{})
	if err != nil {
		t.Fatalf("files.download: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(body), "month,requests\n") {
		t.Errorf("files.download: %q", body)
	}

	del := answer(c.Files.Delete(ctx, up.ID, anthropic.FileDeleteParams{})).ok(t, "files.delete (required)")
	if del.ID != up.ID || del.Type != "file_deleted" {
		t.Errorf("files.delete: %+v", del)
	}
	if _, err := c.Files.GetMetadata(ctx, up.ID, anthropic.FileGetMetadataParams{}); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Errorf("files.get_metadata after delete: %v, want 404", err)
	}
}

// TestCodeExecutionOutputDownloads: a Messages request that declares the code execution tool is
// answered by the fake's scripted model with a run of it; the file its code wrote, named by the
// result's output, is a file of the caller's that Go SDK v2 downloads.
func TestCodeExecutionOutputDownloads(t *testing.T) {
	ctx, c := context.Background(), apiClient(t)
	msg := answer(c.Messages.New(ctx, anthropic.MessageNewParams{
		Model: "claude-sonnet-4-5", MaxTokens: 1024,
		Tools:    []anthropic.ToolUnionParam{{OfCodeExecutionTool20250825: &anthropic.CodeExecutionTool20250825Param{}}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Write a small CSV file I can download."))},
	})).ok(t, "messages.new (code execution)")
	if len(msg.Content) < 2 || msg.Content[0].Name != "bash_code_execution" || msg.Container.ID == "" {
		t.Fatalf("messages.new: %s", msg.RawJSON())
	}
	result := msg.Content[1].AsBashCodeExecutionToolResult().Content.AsResponseBashCodeExecutionResultBlock()
	if len(result.Content) != 1 || result.ReturnCode != 0 {
		t.Fatalf("the result: %s", msg.Content[1].RawJSON())
	}
	id := result.Content[0].FileID
	meta := answer(c.Files.GetMetadata(ctx, id, anthropic.FileGetMetadataParams{})).ok(t, "files.get_metadata (output)")
	if !meta.Downloadable || meta.Filename != "output.csv" || meta.MimeType != "text/csv" {
		t.Errorf("files.get_metadata of the output: %+v", meta)
	}
	resp, err := c.Files.Download(ctx, id, anthropic.FileDownloadParams{})
	if err != nil {
		t.Fatalf("files.download of the output: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(body), "row,word,value\n") || int64(len(body)) != meta.SizeBytes {
		t.Errorf("files.download of the output: %q", body)
	}
}
