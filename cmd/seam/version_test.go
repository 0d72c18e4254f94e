package main

import "testing"

func TestDescribeRevision(t *testing.T) {
	for _, tc := range []struct {
		rev, at  string
		modified bool
		want     string
	}{
		{"", "", false, ""},
		{"355df1ef0aa9b744a5377f99a7c828df20bb99b0", "2026-11-24T20:27:59Z", false, "355df1ef0aa9 2026-11-24T20:27:59Z"},
		{"355df1ef0aa9b744a5377f99a7c828df20bb99b0", "2026-11-24T20:27:59Z", true, "355df1ef0aa9 2026-11-24T20:27:59Z, modified"},
		{"abc", "", true, "abc, modified"},
	} {
		if got := describeRevision(tc.rev, tc.at, tc.modified); got != tc.want {
			t.Errorf("describeRevision(%q, %q, %v) = %q, want %q", tc.rev, tc.at, tc.modified, got, tc.want)
		}
	}
}
