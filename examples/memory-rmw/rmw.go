// Package memoryrmw shows the read-modify-write loop a client of the memory-stores API runs to
// change a memory without losing anyone else's update: read the memory, compute the new content,
// write it with the hash that was read as a precondition, and on 409 read again and retry.
package memoryrmw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Client calls one memory store of the Platform API with an API key.
type Client struct {
	BaseURL string // no trailing slash
	APIKey  string
	StoreID string
	HTTP    *http.Client
}

// Memory is the part of a memory (spec 2.14) the loop needs.
type Memory struct {
	ID              string `json:"id"`
	Path            string `json:"path"`
	Content         string `json:"content"`
	ContentSHA256   string `json:"content_sha256"`
	MemoryVersionID string `json:"memory_version_id"`
}

// ErrConflict is a 409: the memory changed since it was read (or the path is taken).
var ErrConflict = errors.New("conflict")

// Update applies change to the memory's content and retries when another writer got there
// first. It returns the stored memory and how many attempts it took.
func (c *Client) Update(ctx context.Context, memoryID string, change func(old string) string, maxAttempts int) (Memory, int, error) {
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		var cur Memory
		if err := c.call(ctx, http.MethodGet, "/memories/"+memoryID+"?view=full", nil, &cur); err != nil {
			return Memory{}, attempt, err
		}
		body := map[string]any{
			"content":      change(cur.Content),
			"precondition": map[string]string{"type": "content_sha256", "content_sha256": cur.ContentSHA256},
		}
		var out Memory
		err := c.call(ctx, http.MethodPost, "/memories/"+memoryID+"?view=full", body, &out)
		if errors.Is(err, ErrConflict) {
			continue // someone else wrote in between: read their version and apply the change to it
		}
		return out, attempt, err
	}
	return Memory{}, maxAttempts, fmt.Errorf("memory %s: still conflicting after %d attempts", memoryID, maxAttempts)
}

// Create makes a memory at path.
func (c *Client) Create(ctx context.Context, path, content string) (Memory, error) {
	var m Memory
	err := c.call(ctx, http.MethodPost, "/memories?view=full", map[string]string{"path": path, "content": content}, &m)
	return m, err
}

// call sends one request with the headers every memory-store call carries (spec 5, 9) and
// decodes a 200 body into out; a 409 is ErrConflict.
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+"/v1/memory_stores/"+c.StoreID+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("X-Api-Key", c.APIKey)
	req.Header.Set("vendor-version", "2023-06-01")
	req.Header.Set("vendor-beta", "managed-agents-2026-04-01")
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
	switch {
	case resp.StatusCode == http.StatusConflict:
		return fmt.Errorf("%w: %s", ErrConflict, data)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	return json.Unmarshal(data, out)
}
