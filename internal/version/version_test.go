package version

import (
	"runtime/debug"
	"testing"
)

func TestFrom(t *testing.T) {
	local := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"},
	}}
	for _, tc := range []struct {
		name, stamp string
		info        *debug.BuildInfo
		want        string
	}{
		{"stamped by make dist", "1.2.3", local, "1.2.3"},
		{"go install at a tag", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"local build with changes", "", local, "devel+0123456789ab-dirty"},
		{"local build, clean", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, "devel+abc"},
		{"no VCS information", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"no build information", "", nil, "devel"},
	} {
		if got := from(tc.stamp, tc.info); got != tc.want {
			t.Errorf("%s: from = %q, want %q", tc.name, got, tc.want)
		}
	}
}
