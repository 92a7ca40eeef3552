package agents

import (
	"reflect"
	"strings"
	"testing"
)

// TestSnapshotCoversEntry fails when the state of an agent gains a field: teach agents.json (the
// loader, the export, the schema) about it, then list it here. encoded is a cache of the latest
// version's JSON, and bytes what the store charged, which build counts again.
func TestSnapshotCoversEntry(t *testing.T) {
	var got []string
	for f := range reflect.TypeFor[entry]().Fields() {
		got = append(got, f.Name)
	}
	if want := "org versions bytes encoded"; strings.Join(got, " ") != want {
		t.Errorf("entry has the fields %v; snapshots know %s", got, want)
	}
}
