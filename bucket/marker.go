package bucket

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// MarkerExt ends the name of the marker kept beside each file the
// Uploader ships: x.ndjson.zst has x.ndjson.zst.upload.
const MarkerExt = ".upload"

// Upload states, as a marker holds them.
const (
	// StatePending: the file is to be uploaded (it may still be written).
	StatePending = "pending"
	// StateUploaded: the object holds the file; verified.
	StateUploaded = "uploaded"
)

// Marker is what the marker beside a capture file says of its upload.
type Marker struct {
	// Object is where the file goes: s3://bucket/prefix/name.
	Object string `json:"object"`
	State  string `json:"state"`
	// Closed is set once the file was closed whole, before its upload; a
	// pending file without it was still being written when its writer
	// ended, and may end in a cut line.
	Closed bool `json:"closed,omitempty"`
	// Size and SHA256 (hex) are the file's, once uploaded.
	Size   int64  `json:"size,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// Verified says how the object's content was checked: "sha256" (the
	// store's checksum), "md5" (its ETag) or "size" (neither was given).
	Verified string    `json:"verified,omitempty"`
	Uploaded time.Time `json:"uploaded,omitzero"`
}

// markerPath returns the marker's path for the file at path.
func markerPath(path string) string { return path + MarkerExt }

// readMarker reads the marker of the file at path.
func readMarker(path string) (Marker, error) {
	b, err := os.ReadFile(markerPath(path))
	if err != nil {
		return Marker{}, err
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil {
		return Marker{}, fmt.Errorf("%s: %w", markerPath(path), err)
	}
	return m, nil
}

// writeMarker writes the marker of the file at path whole or not at all:
// to a temporary file renamed over it, synced when sync is set (a marker
// that says uploaded; a pending one is written as a file is made, on the
// recording's path, and a kill does not lose it unsynced).
func writeMarker(path string, m Marker, sync bool) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	mp := markerPath(path)
	tmp, err := os.CreateTemp(filepath.Dir(mp), "."+filepath.Base(mp)+".*")
	if err != nil {
		return fmt.Errorf("upload marker: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if sync && err == nil {
		err = tmp.Sync()
	}
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), mp)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("upload marker: %w", err)
	}
	return nil
}

// pendingIn returns the files in dir whose marker says they are still to
// be uploaded, with their markers, in name order.
func pendingIn(dir string) ([]string, []Marker, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var paths []string
	var ms []Marker
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), MarkerExt)
		if !ok || e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, name)
		m, err := readMarker(path)
		if err != nil {
			return nil, nil, err
		}
		if m.State == StatePending {
			paths, ms = append(paths, path), append(ms, m)
		}
	}
	return paths, ms, nil
}
