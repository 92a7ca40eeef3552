package kit

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"
)

// What the checks of several areas share: made-up IDs, the time and route helpers.

// Served ends the check as unsupported when the target does not serve the route resp answered:
// a 404 or 405 to a request for records the check itself made or just read.
func Served(t *T, resp *Response, route string) {
	if resp.Status == http.StatusNotFound || resp.Status == http.StatusMethodNotAllowed {
		t.Unsupported("the target does not serve %s (it answered %d)", route, resp.Status)
	}
}

// LetTimePass makes time pass on the target before a retry, so that an unchanged timestamp
// proves something: the fake's clock moves a minute; on the wall clock the suite waits out the
// resolution of a timestamp (a second: RFC 3339 stamps may carry no fraction), so that a target
// that stamps anew on every call answers a later stamp.
func LetTimePass(t *T) {
	if t.Target.IsFake {
		t.Control(http.MethodPost, "/_fake/clock/advance", map[string]any{"seconds": 60})
		return
	}
	time.Sleep(1100 * time.Millisecond)
}

// SHA256Hex is the content_sha256 a memory must report for s: of the bytes, unnormalized.
func SHA256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Made-up IDs of the right form that no target holds.
const (
	NoSuchOrgID     = "org_01ConformanceNoSuchOrg0000"
	NoSuchOrgUUID   = "00000000-0000-4000-8000-00000000c0f0"
	NoSuchUserID    = "user_01ConformanceNoSuchUser000"
	NoSuchProjectID = "assistant_proj_01ConformanceNoSuchProject"
	NoSuchMemoryID  = "mem_01ConformanceNoSuchMemory0000"
	NoSuchKeyID     = "apikey_01ConformanceNoSuchKey0000"
)
