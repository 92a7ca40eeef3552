package skills

import (
	"reflect"
	"strings"
	"testing"
)

// TestSnapshotCoversSkills fails when the state of a skill or a version gains a field: teach
// skills.json (the loader, the export, the schema) about it, then list it here. bytes is what
// the store charged, which build counts again; a version's archive is written as its files.
func TestSnapshotCoversSkills(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[skill]():   "rec owner versions seq bytes",
		reflect.TypeFor[version](): "rec seq archive",
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
