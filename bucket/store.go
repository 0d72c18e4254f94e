package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
)

// Addressing says how the bucket goes into a request's URL.
type Addressing int

const (
	// AddressingAuto puts the bucket in the path (https://host/bucket/key)
	// when an endpoint other than AWS's is configured, as MinIO, Ceph,
	// SeaweedFS and a local R2 or store expect, and in the host name
	// (https://bucket.s3.region.amazonaws.com/key) on AWS.
	AddressingAuto Addressing = iota
	// AddressingPath always puts the bucket in the path.
	AddressingPath
	// AddressingVirtual always puts the bucket in the host name.
	AddressingVirtual
)

// ParseAddressing reads "path", "virtual" or "" (auto).
func ParseAddressing(s string) (Addressing, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return AddressingAuto, nil
	case "path":
		return AddressingPath, nil
	case "virtual":
		return AddressingVirtual, nil
	}
	return 0, fmt.Errorf("addressing %q: want path, virtual or auto", s)
}

// DefaultRegion is the region requests are signed for when none is
// configured (a MinIO or Ceph endpoint ignores it; AWS needs the bucket's).
const DefaultRegion = "us-east-1"

// Store reaches S3-compatible object stores. Its client is set up on
// first use, the AWS SDK's standard way (environment, shared config and
// credentials files, SSO, web identity, the instance's role); it is safe
// for concurrent use.
type Store struct {
	addressing Addressing
	// HTTPClient, if set before first use, sends the requests (tests).
	HTTPClient *http.Client

	once   sync.Once
	client *s3.Client
	err    error
	// endpoint is the endpoint configured, "" for AWS's.
	endpoint string
}

// NewStore returns a Store addressing buckets as a says.
func NewStore(a Addressing) *Store { return &Store{addressing: a} }

// Client returns the S3 client, set up on first use.
func (s *Store) Client(ctx context.Context) (*s3.Client, error) {
	s.once.Do(func() {
		// The SDK's own log lines (a response without a checksum to check,
		// an instance metadata fallback) are not for seam's users: what
		// fails is returned and said by seam.
		opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{})}
		if s.HTTPClient != nil {
			opts = append(opts, config.WithHTTPClient(s.HTTPClient))
		}
		cfg, err := config.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			s.err = fmt.Errorf("s3: load the AWS configuration: %w", err)
			return
		}
		if cfg.Region == "" {
			cfg.Region = DefaultRegion
		}
		s.client = s3.NewFromConfig(cfg, func(o *s3.Options) {
			o.Logger = logging.Nop{}
			if o.BaseEndpoint != nil {
				s.endpoint = *o.BaseEndpoint
			}
			switch s.addressing {
			case AddressingPath:
				o.UsePathStyle = true
			case AddressingAuto:
				o.UsePathStyle = o.BaseEndpoint != nil
			}
		})
	})
	return s.client, s.err
}

// Endpoint returns the endpoint configured ("" for AWS's), once the
// client is set up.
func (s *Store) Endpoint() string { return s.endpoint }

// CheckCredentials reports an error when the credential chain finds no
// credentials, so a recorder that cannot upload says so when it starts.
func (s *Store) CheckCredentials(ctx context.Context) error {
	c, err := s.Client(ctx)
	if err != nil {
		return err
	}
	if _, err := c.Options().Credentials.Retrieve(ctx); err != nil {
		return fmt.Errorf("s3: no credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or another source of the AWS credential chain): %w", err)
	}
	return nil
}

// CheckBucket asks whether the bucket of l can be reached.
func (s *Store) CheckBucket(ctx context.Context, l Location) error {
	c, err := s.Client(ctx)
	if err != nil {
		return err
	}
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(l.Bucket)}); err != nil {
		return fmt.Errorf("%s: %w", Location{Bucket: l.Bucket}, Cause(err))
	}
	return nil
}

// Object is an object listed under a prefix.
type Object struct {
	Location
	Size int64
}

// List returns the objects under prefix l whose names keep returns true
// for, in key order. l.Key may name one object (s3://b/p/x.ndjson.zst),
// which is then the only one returned, or a prefix (s3://b/p), whose
// objects below it at any depth are returned.
func (s *Store) List(ctx context.Context, l Location, keep func(name string) bool) ([]Object, error) {
	c, err := s.Client(ctx)
	if err != nil {
		return nil, err
	}
	if l.Key != "" {
		head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(l.Bucket), Key: aws.String(l.Key)})
		if err == nil {
			return []Object{{Location: l, Size: aws.ToInt64(head.ContentLength)}}, nil
		}
		if !IsNotFound(err) {
			return nil, fmt.Errorf("%s: %w", l, Cause(err))
		}
	}
	prefix := l.Key
	if prefix != "" {
		prefix += "/"
	}
	var objs []Object
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(l.Bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", l, Cause(err))
		}
		for _, o := range page.Contents {
			key := aws.ToString(o.Key)
			ol := Location{Bucket: l.Bucket, Key: key}
			if keep == nil || keep(ol.Name()) {
				objs = append(objs, Object{Location: ol, Size: aws.ToInt64(o.Size)})
			}
		}
	}
	slices.SortFunc(objs, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
	return objs, nil
}

// Open returns the body of object l as it arrives from the store: it is
// streamed, never held whole. Close releases the connection.
func (s *Store) Open(ctx context.Context, l Location) (io.ReadCloser, error) {
	c, err := s.Client(ctx)
	if err != nil {
		return nil, err
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(l.Bucket), Key: aws.String(l.Key)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l, Cause(err))
	}
	return out.Body, nil
}

// IsNotFound reports whether err is the store saying there is no such
// object (404).
func IsNotFound(err error) bool {
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound
}

// Cause shortens an SDK error to what a user needs: the operation, the
// status and the store's message, without the request ids.
func Cause(err error) error {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		msg := re.Err.Error()
		if re.HTTPStatusCode() == http.StatusNotFound && strings.Contains(msg, "StatusCode: 404") {
			msg = "not found"
		}
		return fmt.Errorf("HTTP %d: %s", re.HTTPStatusCode(), msg)
	}
	return err
}
