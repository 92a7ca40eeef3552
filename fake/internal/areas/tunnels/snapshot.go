package tunnels

import (
	"encoding/json"
	"encoding/pem"
	"sync"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// tunnelsSnapshot is the area's part of a snapshot (tunnels.json), written from its store
// in the shape its loader reads.
var tunnelsSnapshot = &core.SnapshotArea{Lock: core.LockArea(tunnelStores, func(t *Store) *sync.Mutex { return &t.mu }), Export: exportTunnels}

// exportTunnels writes every tunnel with its certificates (the PEM of each CA certificate,
// from which fingerprint and expiry are computed again) and its token rotations.
func exportTunnels(st *core.State, out map[string]any) error {
	ts := tunnelStores.In(st.Stores).Built()
	rotations := map[string][]TokenRotation{}
	for _, r := range ts.rotationLog {
		rotations[r.TunnelID] = append(rotations[r.TunnelID], r)
	}
	var tunnels core.RecordList
	for i := len(ts.list) - 1; i >= 0; i-- { // oldest first, as the fixtures are written
		rec := ts.list[i]
		type cert struct {
			ID               string `json:"id"`
			ArchivedAt       any    `json:"archived_at"`
			CreatedAt        any    `json:"created_at"`
			CACertificatePEM string `json:"ca_certificate_pem"`
		}
		certs := []cert{}
		for j := len(rec.Certs) - 1; j >= 0; j-- {
			c := rec.Certs[j]
			certs = append(certs, cert{c.ID, c.ArchivedAt, c.CreatedAt,
				string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.ca.Raw}))})
		}
		tunnels.Add(rec.Org.ID, struct {
			Tunnel
			Certificates   []cert          `json:"certificates"`
			TokenRotations []TokenRotation `json:"token_rotations,omitempty"`
		}{rec.Tunnel, certs, rotations[rec.ID]}, "type")
	}
	if tunnels.Err != nil {
		return tunnels.Err
	}
	// The domain counter is not written: every domain ever allocated is held by a tunnel (they
	// are never deleted), so a counter from zero skips to the same next domain.
	out["tunnels.json"] = struct {
		Tunnels []json.RawMessage `json:"tunnels"`
	}{core.OrEmptyList(tunnels.List)}
	return nil
}
