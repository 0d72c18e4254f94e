package captures

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/seam-dev/seam/bucket"
	"github.com/seam-dev/seam/tape"
)

// An input may name objects in an S3-compatible store, as seam record
// --upload leaves them: s3://bucket/prefix/name for one capture, or
// s3://bucket/prefix for the captures (*.ndjson, *.ndjson.zst) under it
// at any depth, in key order (seam's names sort in the order they were
// recorded), as a directory stands for the captures in it. An object is
// read as it arrives, never held whole, through Options.Bucket.

// IsRemote reports whether path names objects in a store (s3://).
func IsRemote(path string) bool { return bucket.IsURI(path) }

// expandRemote lists the captures uri names.
func expandRemote(ctx context.Context, uri string, o Options) ([]string, error) {
	store, l, err := remote(uri, o)
	if err != nil {
		return nil, err
	}
	objs, err := store.List(ctx, l, tape.HasCaptureExt)
	if err != nil {
		return nil, err
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("%s: no captures (*.ndjson or *.ndjson.zst) under this prefix", uri)
	}
	paths := make([]string, len(objs))
	for i, obj := range objs {
		paths[i] = obj.String()
	}
	return paths, nil
}

// openRemote opens the object uri names for reading as it arrives.
func openRemote(ctx context.Context, uri string, o Options) (io.ReadCloser, error) {
	store, l, err := remote(uri, o)
	if err != nil {
		return nil, err
	}
	if l.Key == "" {
		return nil, fmt.Errorf("%s names a bucket, not a capture: name an object, or give it to a command that takes a directory", uri)
	}
	return store.Open(ctx, l)
}

func remote(uri string, o Options) (*bucket.Store, bucket.Location, error) {
	l, err := bucket.Parse(uri)
	if err != nil {
		return nil, bucket.Location{}, err
	}
	if o.Bucket == nil {
		return nil, l, fmt.Errorf("%s: this command does not read objects from a store", uri)
	}
	return o.Bucket, l, nil
}

// Fetch copies the captures uri names (see Expand) into dir, each object
// streamed to a file of its base name (the later of two objects with one
// name under different prefixes gets a numbered name), for a reader that
// needs files it can read in place (the terminal UI). It returns the files
// in key order.
func Fetch(ctx context.Context, uri, dir string, o Options) ([]string, error) {
	uris, err := expandRemote(ctx, uri, o)
	if err != nil {
		return nil, err
	}
	var paths []string
	for i, u := range uris {
		l, _ := bucket.Parse(u)
		path := filepath.Join(dir, l.Name())
		if _, err := os.Lstat(path); err == nil {
			path = filepath.Join(dir, fmt.Sprintf("%d-%s", i+1, l.Name()))
		}
		if err := fetchOne(ctx, u, path, o); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func fetchOne(ctx context.Context, uri, path string, o Options) error {
	body, err := openRemote(ctx, uri, o)
	if err != nil {
		return err
	}
	defer body.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", uri, err)
	}
	_, err = io.Copy(f, body)
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("fetch %s: %w", uri, err)
	}
	return nil
}

// IsDir reports whether path names a directory, or an s3:// prefix (a
// URI not ending in a capture's name): inputs that stand for the captures
// in them.
func IsDir(path string) bool {
	if IsRemote(path) {
		return !tape.HasCaptureExt(path)
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
