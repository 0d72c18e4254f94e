//go:build !linux

package tape

import (
	"errors"
	"os"
)

// worthReserving reports false: see reserve.
func worthReserving(*os.File) bool { return false }

// reserve is not done on this system: the file is written as it is.
func reserve(*os.File, int64, int64) error { return errors.ErrUnsupported }

// writeBuffers writes bufs to f in order, one write per writeMax bytes.
func writeBuffers(f *os.File, bufs [][]byte) (int64, error) {
	var total int64
	for _, b := range bufs {
		for len(b) > 0 {
			n, err := f.Write(b[:min(len(b), writeMax)])
			total += int64(n)
			if err != nil {
				return total, err
			}
			b = b[n:]
		}
	}
	return total, nil
}
