package bucket

import (
	"fmt"
	"path"
	"strings"
)

// Scheme starts every object URI seam takes.
const Scheme = "s3://"

// Location is a bucket and a key or key prefix in it: s3://bucket/key.
type Location struct {
	Bucket string
	// Key is an object's key, or a prefix of keys (without a trailing
	// slash); "" for the whole bucket.
	Key string
}

// IsURI reports whether s is an s3:// URI.
func IsURI(s string) bool { return strings.HasPrefix(s, Scheme) }

// Parse parses s3://bucket[/key]. A trailing slash is dropped from the key.
func Parse(s string) (Location, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return Location{}, fmt.Errorf("%q is not an s3:// URI (s3://bucket/prefix)", s)
	}
	b, key, _ := strings.Cut(rest, "/")
	if b == "" {
		return Location{}, fmt.Errorf("%q names no bucket (s3://bucket/prefix)", s)
	}
	if strings.ContainsAny(b, " \t\r\n") {
		return Location{}, fmt.Errorf("%q: a bucket name has no spaces", s)
	}
	return Location{Bucket: b, Key: strings.TrimRight(key, "/")}, nil
}

// String returns the URI: s3://bucket/key.
func (l Location) String() string {
	if l.Key == "" {
		return Scheme + l.Bucket
	}
	return Scheme + l.Bucket + "/" + l.Key
}

// Join returns the object name under the prefix l.
func (l Location) Join(name string) Location {
	if l.Key == "" {
		return Location{Bucket: l.Bucket, Key: name}
	}
	return Location{Bucket: l.Bucket, Key: l.Key + "/" + name}
}

// Name returns the last element of the key.
func (l Location) Name() string { return path.Base(l.Key) }
