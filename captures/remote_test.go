package captures

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/bucket"
)

// TestOpenRemoteStreams: an s3:// capture is handed over exchange by
// exchange as its body arrives. The store here sends the header and one
// whole exchange, then holds the rest of the body until the reader has
// that exchange: a reader that took the body whole first would wait
// forever.
func TestOpenRemoteStreams(t *testing.T) {
	gotFirst := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/caps/p/x.ndjson" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprint(w, `{"type":"capture","v":3,"seam":"t","id":"a","started":"2026-11-27T09:30:00Z","upstream":"http://u","engine":{"profile":"passthrough"}}`+"\n")
		exchange := func(ex int) {
			fmt.Fprintf(w, `{"type":"request","ex":%d,"t":1,"method":"POST","url":"/v1/chat/completions","headers":{}}`+"\n", ex)
			for _, side := range []string{"upstream", "client"} {
				fmt.Fprintf(w, `{"type":"response","ex":%d,"side":"%s","t":2,"status":200,"headers":{}}`+"\n", ex, side)
				fmt.Fprintf(w, `{"type":"chunk","ex":%d,"side":"%s","t":3,"off":0,"data":"data: [DONE]\n\n"}`+"\n", ex, side)
				fmt.Fprintf(w, `{"type":"end","ex":%d,"side":"%s","t":4,"outcome":"complete","bytes":14}`+"\n", ex, side)
			}
		}
		exchange(1)
		// Another exchange's line, so the reader knows the first is done,
		// and enough bytes to pass any read-ahead block.
		fmt.Fprint(w, `{"type":"note","ex":2,"t":5,"text":"`+strings.Repeat("x", 1<<20)+`"}`+"\n")
		w.(http.Flusher).Flush()
		select {
		case <-gotFirst:
		case <-time.After(10 * time.Second):
			return // the reader never had exchange 1: the body is cut
		}
		exchange(2)
	}))
	defer srv.Close()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_S3": srv.URL, "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_REGION": "us-east-1",
		"AWS_CONFIG_FILE": dir + "/none", "AWS_SHARED_CREDENTIALS_FILE": dir + "/none", "AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
	src, err := Open(context.Background(), "s3://caps/p/x.ndjson", Options{Bucket: bucket.NewStore(bucket.AddressingAuto)})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	x, err := src.Next()
	if err != nil || x.Ex != 1 {
		t.Fatalf("first exchange: %v, %v", x != nil && x.Ex == 1, err)
	}
	close(gotFirst)
	x, err = src.Next()
	if err != nil || x.Ex != 2 || x.Client.End == nil {
		t.Fatalf("second exchange: %v (whole: %v), %v", x != nil && x.Ex == 2, x != nil && x.Client.End != nil, err)
	}
	if _, err := src.Next(); err != io.EOF {
		t.Fatalf("after the last: %v", err)
	}
	if ws := src.Warnings(); len(ws) > 0 {
		t.Fatalf("warnings %v", ws)
	}
}

// TestRemoteWithoutBucket: a command not given a store refuses s3:// and
// says so, as it does a file it cannot read.
func TestRemoteWithoutBucket(t *testing.T) {
	_, err := Open(context.Background(), "s3://caps/p/x.ndjson", Options{})
	if err == nil || !strings.Contains(err.Error(), "s3://caps/p/x.ndjson: this command does not read objects from a store") {
		t.Fatalf("err %v", err)
	}
}
