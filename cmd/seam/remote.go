package main

import (
	"context"
	"fmt"
	"os"

	"github.com/seam-dev/seam/bucket"
	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/visible"
)

// bucketStore returns what reads s3:// inputs: the AWS SDK's standard
// configuration (credentials, AWS_REGION, AWS_ENDPOINT_URL_S3), the
// bucket in the URL's path or host as SEAM_S3_ADDRESSING says (path,
// virtual; by default the path for an endpoint other than AWS's). Its
// client is set up when an s3:// input is first read.
func (e *env) bucketStore() *bucket.Store {
	if e.store == nil {
		a, err := bucket.ParseAddressing(e.getenv("SEAM_S3_ADDRESSING"))
		if err != nil {
			fmt.Fprintf(e.stderr, "seam: warning: SEAM_S3_ADDRESSING: %s; addressing buckets the default way\n", visible.String(err.Error()))
		}
		e.store = bucket.NewStore(a)
	}
	return e.store
}

// localCopies returns args with each s3:// input replaced by local copies
// of the captures it names, streamed into a private temporary directory
// that cleanup removes: for the TUI, which reads files in place.
func localCopies(ctx context.Context, e *env, args []string) (_ []string, cleanup func(), err error) {
	cleanup = func() {}
	var out []string
	var dir string
	for _, a := range args {
		if !captures.IsRemote(a) {
			out = append(out, a)
			continue
		}
		if dir == "" {
			if dir, err = os.MkdirTemp("", "seam-s3-"); err != nil {
				return nil, cleanup, fmt.Errorf("fetch %s: %w", a, err)
			}
			cleanup = func() { os.RemoveAll(dir) }
		}
		sub, err := os.MkdirTemp(dir, "in-")
		if err != nil {
			return nil, cleanup, fmt.Errorf("fetch %s: %w", a, err)
		}
		paths, err := captures.Fetch(ctx, a, sub, e.open())
		if err != nil {
			return nil, cleanup, err
		}
		out = append(out, paths...)
	}
	return out, cleanup, nil
}
