// Package complianceexport is an example exporter for the compliance review API (spec 4.1, 4.2):
// it walks every chat of one user page by page, reads each chat's messages, downloads every
// attached file and verifies the download against its Content-MD5 header.
//
// It uses only net/http and encoding/json, so it reads as a recipe for an exporter in any
// language. export_test.go runs it against the fake.
package complianceexport

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Exporter reads an organization's chats with a compliance key.
type Exporter struct {
	BaseURL string       // e.g. http://127.0.0.1:4010, no trailing slash
	Key     string       // the compliance API key, sent as Authorization: Bearer
	HTTP    *http.Client // http.DefaultClient when nil
	Out     io.Writer    // one line per chat and per file
}

// Summary counts what an export saw.
type Summary struct {
	Chats, Messages, Files, Bytes int
}

// chatPage is the part of a chat list page (spec 4.1) the exporter reads.
type chatPage struct {
	Data []struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		CreatedAt string `json:"created_at"`
	} `json:"data"`
	HasMore bool   `json:"has_more"`
	LastID  string `json:"last_id"`
}

// chatMessages is the part of the messages response (spec 2.3) the exporter reads.
type chatMessages struct {
	ChatMessages []struct {
		ID    string `json:"id"`
		Files []struct {
			ID       string `json:"id"`
			Filename string `json:"filename"`
		} `json:"files"`
	} `json:"chat_messages"`
}

// fileMeta is the part of file metadata (spec 2.4) the exporter reads.
type fileMeta struct {
	MimeType *string `json:"mime_type"`
}

// ExportUser walks every chat of the user, oldest first. Pages are cursor-by-ID: the last_id
// of one page is the after_id of the next, until has_more is false.
func (e *Exporter) ExportUser(ctx context.Context, userID string) (Summary, error) {
	var sum Summary
	seen := map[string]bool{} // a file attached to several messages is downloaded once
	after := ""
	for {
		q := url.Values{"user_ids[]": {userID}, "limit": {"100"}}
		if after != "" {
			q.Set("after_id", after)
		}
		var page chatPage
		if _, err := e.getJSON(ctx, "/v1/compliance/apps/chats?"+q.Encode(), &page); err != nil {
			return sum, err
		}
		for _, ch := range page.Data {
			sum.Chats++
			var msgs chatMessages // no limit: the whole chat in one response
			if _, err := e.getJSON(ctx, "/v1/compliance/apps/chats/"+url.PathEscape(ch.ID)+"/messages", &msgs); err != nil {
				return sum, err
			}
			sum.Messages += len(msgs.ChatMessages)
			fmt.Fprintf(e.Out, "chat %s %q: %d messages\n", ch.ID, ch.Name, len(msgs.ChatMessages))
			for _, m := range msgs.ChatMessages {
				for _, f := range m.Files {
					if seen[f.ID] {
						continue
					}
					seen[f.ID] = true
					n, err := e.downloadFile(ctx, f.ID, f.Filename)
					if err != nil {
						return sum, err
					}
					sum.Files++
					sum.Bytes += n
				}
			}
		}
		if !page.HasMore {
			return sum, nil
		}
		after = page.LastID
	}
}

// downloadFile reads a file's metadata and, when it has downloadable content (mime_type not
// null), downloads it and checks the bytes against the Content-MD5 header (base64, RFC 1864).
func (e *Exporter) downloadFile(ctx context.Context, id, name string) (int, error) {
	path := "/v1/compliance/apps/chats/files/" + url.PathEscape(id)
	var meta fileMeta
	if _, err := e.getJSON(ctx, path, &meta); err != nil {
		return 0, err
	}
	if meta.MimeType == nil {
		fmt.Fprintf(e.Out, "  file %s %q: no downloadable content\n", id, name)
		return 0, nil
	}
	resp, err := e.get(ctx, path+"/content")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	sum := md5.Sum(data)
	if got, want := base64.StdEncoding.EncodeToString(sum[:]), resp.Header.Get("Content-MD5"); got != want {
		return 0, fmt.Errorf("file %s: downloaded bytes have MD5 %s, Content-MD5 says %s", id, got, want)
	}
	fmt.Fprintf(e.Out, "  file %s %q: %d bytes, %s, Content-MD5 verified\n", id, name, len(data), *meta.MimeType)
	return len(data), nil
}

// get sends an authenticated GET and returns the response of a 200; anything else is an error.
func (e *Exporter) get(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.BaseURL+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+e.Key)
	hc := e.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, body)
	}
	return resp, nil
}

// getJSON decodes the JSON answer of a GET into v.
func (e *Exporter) getJSON(ctx context.Context, path string, v any) (*http.Response, error) {
	resp, err := e.get(ctx, path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return resp, json.NewDecoder(resp.Body).Decode(v)
}
