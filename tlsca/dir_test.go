package tlsca

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDir: --ca-dir first, then $SEAM_CA_DIR, then seam/ in the user's
// config directory.
func TestDir(t *testing.T) {
	env := map[string]string{"SEAM_CA_DIR": "/env/ca"}
	getenv := func(k string) string { return env[k] }
	if d, err := Dir("/flag/ca", getenv); err != nil || d != "/flag/ca" {
		t.Errorf("flag: %s, %v", d, err)
	}
	if d, err := Dir("", getenv); err != nil || d != "/env/ca" {
		t.Errorf("env: %s, %v", d, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	t.Setenv("HOME", "/home/u")
	delete(env, "SEAM_CA_DIR")
	if d, err := Dir("", getenv); err != nil || filepath.Base(d) != "seam" || !strings.HasPrefix(d, "/") {
		t.Errorf("config: %s, %v", d, err)
	}
}
