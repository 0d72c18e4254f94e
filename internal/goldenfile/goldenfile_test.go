package goldenfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps its failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.Errorf("%s", fmt.Sprint(args...)) }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, env, got, fail, file string
	}{
		{"equal", "", "one\ntwo\n", "", "one\ntwo\n"},
		{"differs", "", "one\nTWO\n", "line 2, byte 4", "one\ntwo\n"},
		{"typo in SEAM_GEN never rewrites", "0", "one\nTWO\n", `SEAM_GEN="0"`, "one\ntwo\n"},
		{"regenerated fails for review", "1", "one\nTWO\n", "regenerated: review the diff", "one\nTWO\n"},
		{"regenerating an equal file passes", "1", "one\nTWO\n", "", "one\nTWO\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(Env, tc.env)
			r := &recorder{TB: t}
			Check(r, path, []byte(tc.got), "how")
			msg := strings.Join(r.errors, "; ")
			if tc.fail == "" && msg != "" || tc.fail != "" && !strings.Contains(msg, tc.fail) {
				t.Errorf("failures %q, want %q", msg, tc.fail)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.file {
				t.Errorf("file holds %q, want %q", b, tc.file)
			}
		})
	}
}
