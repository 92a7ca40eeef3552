// Package tunnelcarotation shows how to replace the CA certificate a tunnel trusts without
// downtime: register the new certificate first, move the gateway to a certificate of the new CA,
// and archive the old one only then. The service verifies the gateway's certificate against the
// tunnel's non-archived CA certificates (spec 3.4, 4.9), and a tunnel holds at most two of them
// (spec 8), so at the limit the spare one goes first and the one in use stays trusted throughout.
package tunnelcarotation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client calls the tunnel endpoints with a workload-identity bearer token.
type Client struct {
	BaseURL string
	Bearer  string
	HTTP    *http.Client
}

// Certificate is the part of a tunnel certificate this example uses.
type Certificate struct {
	ID          string     `json:"id"`
	CreatedAt   time.Time  `json:"created_at"`
	ExpiresAt   *time.Time `json:"expires_at"`
	Fingerprint string     `json:"fingerprint"`
}

// do sends one request with the headers every tunnel operation needs (spec 5, 9.4) and decodes
// a 200 answer into v; any other answer is returned as an error with the API's message.
func (c *Client) do(ctx context.Context, method, path string, body, v any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Bearer)
	req.Header.Set("vendor-version", "2023-06-01")
	req.Header.Set("vendor-beta", "mcp-tunnels-2026-05-19")
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
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return json.Unmarshal(data, v)
}

// active lists the tunnel's non-archived certificates, oldest first.
func (c *Client) active(ctx context.Context, tunnelID string) ([]Certificate, error) {
	var page struct {
		Data []Certificate `json:"data"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/organizations/tunnels/"+tunnelID+"/certificates", nil, &page); err != nil {
		return nil, err
	}
	certs := page.Data
	for i, j := 0, len(certs)-1; i < j; i, j = i+1, j-1 {
		certs[i], certs[j] = certs[j], certs[i] // the list is newest first
	}
	return certs, nil
}

func (c *Client) archive(ctx context.Context, tunnelID, certID string) error {
	var archived Certificate
	return c.do(ctx, http.MethodPost, "/v1/organizations/tunnels/"+tunnelID+"/certificates/"+certID+"/archive", nil, &archived)
}

// RotateCA makes newPEM the only CA certificate the tunnel trusts, without a moment in which the
// gateway's certificate is not trusted. inUse is the fingerprint of the CA that issued the
// certificate the gateway presents now; switchGateway is called once the new CA is trusted and
// must move the gateway to a certificate issued by it. Each step is reported to out.
//
// The steps: at the limit of two certificates, archive the spare one (never the one in use); add
// the new certificate; switch the gateway; archive every other certificate.
func (c *Client) RotateCA(ctx context.Context, tunnelID, inUse, newPEM string, switchGateway func(context.Context, Certificate) error, out io.Writer) (Certificate, error) {
	old, err := c.active(ctx, tunnelID)
	if err != nil {
		return Certificate{}, err
	}
	fmt.Fprintf(out, "tunnel %s trusts %d CA certificate(s): %s\n", tunnelID, len(old), ids(old))
	if len(old) >= 2 {
		for _, o := range old {
			if o.Fingerprint != inUse {
				fmt.Fprintf(out, "at the limit of 2: archiving %s, which the gateway does not use, to make room\n", o.ID)
				if err := c.archive(ctx, tunnelID, o.ID); err != nil {
					return Certificate{}, err
				}
				break
			}
		}
	}
	var added Certificate
	if err := c.do(ctx, http.MethodPost, "/v1/organizations/tunnels/"+tunnelID+"/certificates", map[string]string{"ca_certificate_pem": newPEM}, &added); err != nil {
		return Certificate{}, err
	}
	fmt.Fprintf(out, "added %s: the gateway may now present a certificate issued by either CA\n", added.ID)
	if err := switchGateway(ctx, added); err != nil {
		return added, fmt.Errorf("switching the gateway: %w (both CAs stay trusted)", err)
	}
	fmt.Fprintln(out, "switched the gateway to a certificate issued by the new CA")
	rest, err := c.active(ctx, tunnelID)
	if err != nil {
		return added, err
	}
	for _, o := range rest {
		if o.ID == added.ID {
			continue
		}
		if err := c.archive(ctx, tunnelID, o.ID); err != nil {
			return added, err
		}
		fmt.Fprintf(out, "archived %s\n", o.ID)
	}
	now, err := c.active(ctx, tunnelID)
	if err != nil {
		return added, err
	}
	fmt.Fprintf(out, "tunnel %s trusts %d CA certificate(s): %s\n", tunnelID, len(now), ids(now))
	return added, nil
}

func ids(certs []Certificate) string {
	var out []string
	for _, c := range certs {
		out = append(out, c.ID)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
