package captures

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Ref names one exchange: N, or CAPTURE#N among several captures. It is
// a flag.Value (seam inspect --ex, seam export --ex); the zero Ref names
// none.
type Ref struct {
	Capture string // "" when only the number was given
	N       int
}

func (r *Ref) String() string {
	if r.N == 0 {
		return ""
	}
	if r.Capture != "" {
		return r.Capture + "#" + strconv.Itoa(r.N)
	}
	return strconv.Itoa(r.N)
}

// Set reads N or CAPTURE#N, N from 1.
func (r *Ref) Set(v string) error {
	num := v
	if i := strings.LastIndexByte(v, '#'); i >= 0 {
		r.Capture, num = v[:i], v[i+1:]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return fmt.Errorf("want an exchange number from 1, or CAPTURE#N, got %q", v)
	}
	r.N = n
	return nil
}

// Matches reports whether exchange ex of the capture at path is the one r
// names: the capture as given, or by its file name when r gives a bare
// file name.
func (r *Ref) Matches(path string, ex int) bool {
	if r.N != ex {
		return false
	}
	return r.Capture == "" || r.Capture == path || filepath.Base(r.Capture) == filepath.Base(path) && !strings.Contains(r.Capture, "/")
}
