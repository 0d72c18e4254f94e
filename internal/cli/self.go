package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/seam-dev/seam/internal/shellquote"
)

// Self returns how a user runs this seam again: "seam" when that
// name on PATH is this executable, "go run ./cmd/seam" when go run built it
// (in a go-build directory), else the executable's absolute path.
func Self() string {
	exe, err := os.Executable()
	if err != nil {
		return "seam"
	}
	exe, _ = filepath.EvalSymlinks(exe)
	if p, err := exec.LookPath("seam"); err == nil {
		if p, err = filepath.EvalSymlinks(p); err == nil && p == exe {
			return "seam"
		}
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/seam"
	}
	return shellquote.Word(exe)
}
