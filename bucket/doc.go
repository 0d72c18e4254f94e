// Package bucket ships capture files to an S3-compatible object store and
// reads them back: s3://bucket/prefix URIs (Location), a client set up
// the AWS SDK's standard way (Store: the credential chain, the shared
// config files, AWS_REGION, AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL, with
// path-style addressing for an endpoint other than AWS's: MinIO, Ceph,
// R2, SeaweedFS), listing and streaming objects, and the Uploader that
// seam record --upload runs.
//
// The Uploader takes capture files once they are closed and puts each
// under the target prefix by its base name, on a goroutine of its own
// (the recording never waits for it), one file at a time, retrying with
// backoff until it succeeds. An upload counts only once verified: the
// object's size read back with HEAD equals the file's, and so does its
// content, by the SHA-256 checksum the store keeps when it reports one,
// else by an ETag that is the MD5 of a single-part upload. Each file has
// a small marker beside it (NAME.upload: the object, the state, the
// size and SHA-256), written when the file is created and rewritten once
// the upload is verified, so that a restart uploads what a process that
// died left pending (a file whose writer is gone: see internal/filelock)
// and nothing twice (an object already there with the same content is
// taken as uploaded; one with other content is never overwritten). Local
// files are kept unless asked otherwise, and deleted only after their
// upload is verified.
//
// It does not decide what a capture file is or how it is named (package
// captures), read captures (package tape) or print anything but the
// Uploader's lines on its log.
package bucket
