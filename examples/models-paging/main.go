// Command models-paging lists every model by following the cursor of the model list five models
// at a time (spec 4.5). With no argument it starts the fake in-process; give a base URL to run it
// against a deployment:
//
//	go run ./examples/models-paging                          # in-process fake
//	go run ./examples/models-paging http://127.0.0.1:4010    # make run, in another terminal
//
// The API key comes from PLATFORM_API_KEY (default: the fake's test-api-key).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"

	"github.com/platformkit/platformkit/fake"
)

// model is the part of the model info record this example prints.
type model struct {
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
	CreatedAt   string `json:"created_at"`
}

// page is one page of GET /v1/models.
type page struct {
	Data    []model `json:"data"`
	HasMore bool    `json:"has_more"`
	LastID  *string `json:"last_id"`
}

// ListModels walks the whole model list with the given page size and returns every model, in the
// list's order (most recently released first).
func ListModels(ctx context.Context, client *http.Client, baseURL, apiKey string, pageSize int) ([]model, error) {
	var all []model
	q := url.Values{"limit": {fmt.Sprint(pageSize)}}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/v1/models?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Api-Key", apiKey)
		req.Header.Set("vendor-version", "2023-06-01")
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET /v1/models: %s: %s", resp.Status, body)
		}
		var p page
		if err := json.Unmarshal(body, &p); err != nil {
			return nil, err
		}
		all = append(all, p.Data...)
		if !p.HasMore || p.LastID == nil {
			return all, nil
		}
		q.Set("after_id", *p.LastID) // the next page starts after the last model of this one
	}
}

func main() {
	baseURL := ""
	if len(os.Args) > 1 {
		baseURL = os.Args[1]
	} else {
		srv := httptest.NewServer(fake.New())
		defer srv.Close()
		baseURL = srv.URL
	}
	key := os.Getenv("PLATFORM_API_KEY")
	if key == "" {
		key = "test-api-key"
	}
	if err := printModels(os.Stdout, baseURL, key); err != nil {
		fmt.Fprintln(os.Stderr, "models-paging:", err)
		os.Exit(1)
	}
}

func printModels(w io.Writer, baseURL, key string) error {
	models, err := ListModels(context.Background(), http.DefaultClient, baseURL, key, 5)
	if err != nil {
		return err
	}
	for _, m := range models {
		fmt.Fprintf(w, "%-32s %-28s released %s\n", m.ID, m.DisplayName, m.CreatedAt[:10])
	}
	fmt.Fprintf(w, "%d models\n", len(models))
	return nil
}
