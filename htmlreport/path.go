package htmlreport

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// PagePath decides where the page on the capture at in goes: output as
// given ("-" for stdout, a directory for <name>.report.html in it), else
// <name>.report.html in the current directory, name being the capture's
// file name without its extension. A capture read from stdin ("-") has no
// name: output must then name a file.
func PagePath(in, output string) (string, error) {
	if output == "-" {
		return "-", nil
	}
	name := strings.TrimSuffix(filepath.Base(in), filepath.Ext(in)) + ".report.html"
	if output == "" {
		if in == "-" {
			return "", errors.New("reading stdin: name the page with -o FILE (or -o - for stdout)")
		}
		return name, nil
	}
	if st, err := os.Stat(output); err == nil && st.IsDir() {
		if in == "-" {
			return "", errors.New("reading stdin: name the page with -o FILE, not a directory")
		}
		return filepath.Join(output, name), nil
	}
	return output, nil
}
