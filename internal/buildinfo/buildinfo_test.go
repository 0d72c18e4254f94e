package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func info(mainVersion string, kv ...string) *debug.BuildInfo {
	bi := &debug.BuildInfo{Main: debug.Module{Version: mainVersion}}
	for i := 0; i+1 < len(kv); i += 2 {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
	}
	return bi
}

func TestFromInfo(t *testing.T) {
	const rev = "355df1ef0aa9b744a5377f99a7c828df20bb99b0"
	for _, tc := range []struct {
		bi        *debug.BuildInfo
		want, why string
	}{
		{info("(devel)", "vcs.revision", rev, "vcs.time", "2026-11-24T20:27:59Z"), "355df1ef0aa9 2026-11-24T20:27:59Z", ""},
		{info("(devel)", "vcs.revision", rev, "vcs.time", "2026-11-24T20:27:59Z", "vcs.modified", "true"), "355df1ef0aa9 2026-11-24T20:27:59Z, modified", ""},
		{info("", "vcs.revision", "abc", "vcs.modified", "true"), "abc, modified", ""},
		{info("(devel)", "-buildvcs", "false"), "", "-buildvcs=false"},
		{info("v0.2.0"), "", "v0.2.0"},
		{info("(devel)"), "", "go run and go test record none"},
	} {
		got, why := FromInfo(tc.bi)
		if got != tc.want || (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
			t.Errorf("FromInfo(%v) = %q, %q; want %q and a reason with %q", tc.bi.Settings, got, why, tc.want, tc.why)
		}
	}
}
