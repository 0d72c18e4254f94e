package main

import (
	"fmt"

	"github.com/seam-dev/seam/bucket"
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
