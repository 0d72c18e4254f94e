package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
	"github.com/seam-dev/seam/tape"
)

// rssBound is what seam may take, at its peak, on any one hostile input.
const rssBound = 256 << 20

// bombBody writes "data: " and then n bytes of one line that never ends
// through the encoder enc makes, after a first whole event: a few hundred
// bytes to a few hundred KB on the wire for n decoded.
func bombBody(t *testing.T, n int, enc func(io.Writer) io.WriteCloser) []byte {
	t.Helper()
	var b bytes.Buffer
	w := enc(&b)
	io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: ")
	line := bytes.Repeat([]byte("a"), 1<<20)
	for left := n; left > 0; left -= len(line) {
		if _, err := w.Write(line[:min(left, len(line))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wsOverflowUpstream answers a WebSocket upgrade with 101 and then a frame
// header declaring a payload of 2^63-1 bytes (ten bytes), and holds the
// connection until the client goes.
func wsOverflowUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") == "" {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]\n\n")
			return
		}
		conn, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: x\r\n\r\n")
		brw.Write(overflowFrame(false))
		brw.Flush()
		io.Copy(io.Discard, brw)
	}))
}

// overflowFrame is a text frame header whose 64-bit length is 2^63-1,
// masked as a client's must be when masked is set.
func overflowFrame(masked bool) []byte {
	b := []byte{0x81, 127}
	if masked {
		b[1] |= 0x80
	}
	b = binary.BigEndian.AppendUint64(b, 1<<63-1)
	if masked {
		b = append(b, 1, 2, 3, 4)
	}
	return b
}

// wsOverflowClient upgrades a connection to addr, sends the overflow
// header and 64 KB of its payload, reads the upstream's overflow header as
// seam relays it, and hangs up.
func wsOverflowClient(t *testing.T, addr string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v1/realtime?model=m HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", addr)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("upgrade through seam: %v", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade through seam: %s", resp.Status)
	}
	conn.Write(overflowFrame(true))
	conn.Write(bytes.Repeat([]byte("x"), 64<<10))
	got := make([]byte, len(overflowFrame(false)))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(br, got); err != nil || !bytes.Equal(got, overflowFrame(false)) {
		t.Errorf("the upstream's frame header through seam: %x, %v", got, err)
	}
}

// peakRSS is the largest resident set a finished process had. It is an
// upper bound: Linux carries the high-water mark of the memory a child
// was started from (the test process's, os/exec starting it with vfork)
// into the child's, so a figure at or below selfRSS says only that seam
// took no more than the test had.
func peakRSS(cmd *exec.Cmd) int64 {
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
}

// selfRSS is the test process's own peak resident set so far.
func selfRSS() int64 {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return u.Maxrss << 10
}

// peakWatch samples a running process's own peak resident set: VmHWM in
// /proc/PID/status, the high-water mark of the memory it has had since
// exec, which the test process's does not reach (unlike the rusage
// figure). A sample every 2 ms can miss a peak in the last moment of a
// process; the rusage figure bounds it from above.
type peakWatch struct {
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func watchPeak(pid int) *peakWatch {
	w := &peakWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				for _, line := range strings.Split(string(b), "\n") {
					if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
						var n int64
						fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), &n)
						if n<<10 > w.peak.Load() {
							w.peak.Store(n << 10)
						}
					}
				}
			}
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// end stops sampling and returns the largest sample.
func (w *peakWatch) end() int64 {
	close(w.stop)
	<-w.done
	return w.peak.Load()
}

// checkRSS fails t when the finished process cmd (what says which one)
// took more than 256 MB at its peak: its own sampled peak (sampled) is
// over, or the rusage figure is and is not the test process's own. It
// returns the figure it goes by: the rusage one when that is the
// process's own, else the sampled one.
func checkRSS(t *testing.T, cmd *exec.Cmd, sampled int64, what string) int64 {
	t.Helper()
	rss, self := peakRSS(cmd), selfRSS()
	own := rss > self
	if !own {
		rss = sampled
	}
	if rss > rssBound || sampled > rssBound {
		t.Errorf("%s peaked at %d MB (sampled %d MB), over 256 MB", what, rss>>20, sampled>>20)
	}
	return rss
}

// TestHostileInputsBinaryRSS runs the real binary on each hostile input of
// the recorder and of the readers: seam record takes the hostile exchange,
// records a plain one after it, ends cleanly on SIGINT with both
// exchanges ended in the capture, and seam inspect reads that capture,
// each within 256 MB at its peak.
func TestHostileInputsBinaryRSS(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race: the bombs are measured without -race (.ci/run's memory step)")
	}
	brotliEnc := func(w io.Writer) io.WriteCloser { return brotli.NewWriterLevel(w, 5) }
	gzipEnc := func(w io.Writer) io.WriteCloser { z, _ := gzip.NewWriterLevel(w, gzip.BestCompression); return z }
	zstdEnc := func(w io.Writer) io.WriteCloser {
		z, _ := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault))
		return z
	}
	bombs := []struct {
		name, coding string
		body         func(t *testing.T) []byte
	}{
		{"br 512 MiB", "br", func(t *testing.T) []byte { return bombBody(t, 512<<20, brotliEnc) }},
		{"gzip 256 MiB", "gzip", func(t *testing.T) []byte { return bombBody(t, 256<<20, gzipEnc) }},
		{"zstd 1 GiB", "zstd", func(t *testing.T) []byte { return bombBody(t, 1<<30, zstdEnc) }},
	}
	for _, bomb := range bombs {
		t.Run(bomb.name, func(t *testing.T) {
			body := bomb.body(t)
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				if r.URL.Path == "/v1/plain" {
					io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]\n\n")
					return
				}
				w.Header().Set("Content-Encoding", bomb.coding)
				for off := 0; off < len(body); off += 4 << 10 {
					w.Write(body[off:min(off+4<<10, len(body))])
					w.(http.Flusher).Flush()
				}
			}))
			defer up.Close()
			hostileThenPlain(t, up.URL, fmt.Sprintf("%d bytes of %s", len(body), bomb.coding), func(addr string) {
				tr := &http.Transport{DisableCompression: true}
				defer tr.CloseIdleConnections()
				resp, err := (&http.Client{Transport: tr}).Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
				if err != nil {
					t.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if n != int64(len(body)) {
					t.Errorf("the client got %d bytes of the %d the upstream sent", n, len(body))
				}
			})
		})
	}
	t.Run("websocket frame of 2^63-1 bytes from the upstream", func(t *testing.T) {
		up := wsOverflowUpstream(t)
		defer up.Close()
		hostileThenPlain(t, up.URL, "10 bytes", func(addr string) { wsOverflowClient(t, addr) })
	})
}

// hostileThenPlain runs seam record in front of upstream, sends the
// hostile exchange (send), then a plain one to /v1/plain, interrupts seam
// and checks the capture and both processes' peak RSS.
func hostileThenPlain(t *testing.T, upstream, what string, send func(addr string)) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "hostile.ndjson")
	cmd, addr := startRecord(t, upstream, out)
	recPeak := watchPeak(cmd.Process.Pid)
	send(addr)
	if code, body := postJSON(t, "http://"+addr+"/v1/plain", `{"stream":true}`); code != 200 || !strings.Contains(body, "[DONE]") {
		t.Fatalf("the exchange after the hostile one: %d %q", code, body)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	recSampled := recPeak.end()
	if err != nil {
		t.Fatalf("seam record after the hostile input: %v, want status 0", err)
	}
	c, err := tape.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 2 {
		t.Fatalf("%d exchanges recorded, want 2", len(c.Exchanges))
	}
	for _, x := range c.Exchanges {
		if x.Upstream.End == nil || x.Client.End == nil {
			t.Errorf("exchange #%d lacks an end line", x.Ex)
		}
	}
	inspect := exec.Command("seam", "inspect", "--color", "never", out)
	var stderr bytes.Buffer
	inspect.Stdout, inspect.Stderr = io.Discard, &stderr
	inspSampled, err := runSampled(inspect)
	if code := inspect.ProcessState.ExitCode(); code != 0 && code != 1 {
		t.Fatalf("seam inspect: %v\n%s", err, stderr.Bytes())
	}
	if runtime.GOOS != "linux" {
		return
	}
	rec, insp := checkRSS(t, cmd, recSampled, "seam record"), checkRSS(t, inspect, inspSampled, "seam inspect")
	t.Logf("%s: peak RSS seam record %d MB, seam inspect %d MB", what, rec>>20, insp>>20)
}

// TestHostileCapturesBinaryRSS runs seam inspect on captures made to eat
// memory: a .ndjson.zst whose second line inflates to 1 GiB with no
// newline (the line cap), and a stream whose tool call index is 2^31-1 on
// both protocols that key tool calls by index. Each is reported (exit 0
// or 1 with findings, or 1 with the cause) within 256 MB.
func TestHostileCapturesBinaryRSS(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race: the bombs are measured without -race (.ci/run's memory step)")
	}
	dir := t.TempDir()
	header := tape.AppendHeader(nil, tape.Header{V: tape.Version, Engine: tape.Engine{Profile: "passthrough"}})
	longLine := filepath.Join(dir, "long-line.ndjson.zst")
	f, err := os.Create(longLine)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedDefault))
	zw.Write(header)
	zw.Write([]byte(`{"t":"chunk","ex":1,"side":"upstream","data":"`))
	line := bytes.Repeat([]byte("a"), 1<<20)
	for range 1024 {
		zw.Write(line)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	toolIndex := filepath.Join(dir, "tool-index.ndjson")
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions", Body: []byte(`{"stream":true}`)}}
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":2147483647,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"index\":2147483647,\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n"
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(side)
		sd.Response = &tape.Response{Ex: 1, Side: side, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}}
		sd.Chunks = []tape.Chunk{{Ex: 1, Side: side, T: 1, Data: []byte(body)}}
		sd.End = &tape.End{Ex: 1, Side: side, T: 2, Outcome: tape.Complete, Bytes: int64(len(body))}
	}
	if err := os.WriteFile(toolIndex, tape.AppendExchange(append([]byte(nil), header...), x), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{longLine, toolIndex} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cmd := exec.Command("seam", "inspect", "--color", "never", path)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			sampled, err := runSampled(cmd)
			if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
				t.Fatalf("seam inspect: %v\n%s", err, stderr.Bytes())
			}
			if stdout.Len()+stderr.Len() == 0 {
				t.Errorf("seam inspect said nothing")
			}
			if runtime.GOOS != "linux" {
				return
			}
			rss := checkRSS(t, cmd, sampled, "seam inspect")
			t.Logf("seam inspect %s: peak RSS %d MB, exit %d: %s", filepath.Base(path), rss>>20, cmd.ProcessState.ExitCode(), firstLine(stderr.String()+stdout.String()))
		})
	}
}

// runSampled runs cmd as Run does, sampling its own peak resident set
// (see peakWatch) on Linux.
func runSampled(cmd *exec.Cmd) (int64, error) {
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	w := watchPeak(cmd.Process.Pid)
	err := cmd.Wait()
	return w.end(), err
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
