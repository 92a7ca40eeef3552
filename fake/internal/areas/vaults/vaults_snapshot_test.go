package vaults

import (
	"reflect"
	"strings"
	"testing"
)

// TestSnapshotCoversVaults fails when the state of a vault or a credential gains a field: teach
// vaults.json (the loader, the export, the schema) about it, then list it here. bytes is what the
// store charged, which build counts again.
func TestSnapshotCoversVaults(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[vault]():      "rec owner creds bytes",
		reflect.TypeFor[credential](): "rec secrets fromFixtures",
	} {
		var got []string
		for f := range typ.Fields() {
			got = append(got, f.Name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%v has the fields %v; snapshots know %s", typ, got, want)
		}
	}
}

// TestMaskSecretKeepsLength: a masked secret has the secret's length in bytes and in characters,
// and none of its characters: '*' for a character of one byte, '·' (2 bytes), '•' (3), '🔒' (4).
func TestMaskSecretKeepsLength(t *testing.T) {
	for secret, want := range map[string]string{
		"abc":      "***",
		"pässwörd": "*·***·**",
		"€1":       "•*",
		"key🔑":     "***🔒",
		"\xff\xfe": "**", // not UTF-8: one mask character a byte
		"":         "",
	} {
		got := maskSecret(secret).(string)
		if got != want || len(got) != len(secret) {
			t.Errorf("maskSecret(%q) = %q (%d bytes), want %q (%d bytes)", secret, got, len(got), want, len(secret))
		}
	}
}
