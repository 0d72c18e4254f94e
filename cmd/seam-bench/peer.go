package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"
)

const bareProxyArg = "bare-proxy"

// bareProxy serves a reverse proxy to upstream on listen: the standard
// library's, flushing every write, recording nothing, with seam's
// transport settings. Interrupt stops it.
func bareProxy(upstream, listen string) error {
	u, err := url.Parse(upstream)
	if err != nil {
		return err
	}
	return serveUntilInterrupted(&http.Server{Addr: listen, Handler: bareHandler(u)}, nil)
}

// runBare runs seam-bench as one of its bare proxies when args (the
// arguments after the program's name) ask for one, as the benchmark
// starts them: ran reports whether they did.
func runBare(args []string) (ran bool, err error) {
	switch {
	case len(args) == 3 && args[0] == bareProxyArg:
		err = bareProxy(args[1], args[2])
		if err != nil {
			err = fmt.Errorf("bare proxy: %w", err)
		}
	case len(args) == 5 && args[0] == bareForwardArg:
		err = bareForward(args[1], args[2], args[3], args[4])
		if err != nil {
			err = fmt.Errorf("bare forward proxy: %w", err)
		}
	default:
		return false, nil
	}
	return true, err
}

// bareHandler is the bare proxy's handler, proxying to u.
func bareHandler(u *url.URL) http.Handler {
	p := httputil.NewSingleHostReverseProxy(u)
	p.FlushInterval = -1
	p.ErrorLog = log.New(io.Discard, "", 0) // a client that stops reading at [DONE] is no news
	p.Transport = &http.Transport{MaxIdleConnsPerHost: 1024, IdleConnTimeout: 90 * time.Second, DisableCompression: true}
	return fullDuplex(p)
}

// fullDuplex serves h with the request body readable while the response
// is written, as seam record serves: a reverse proxy sends the body on
// upstream while the response comes back, and net/http's HTTP/1 server
// otherwise closes the body once the headers are written, which fails
// the upstream request mid-stream when the upstream answers before it
// has read the body (the bare proxy failed 7 % of single back-to-back
// streams that way, "unexpected EOF" to its client).
func fullDuplex(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex() // HTTP/2 is full duplex already
		h.ServeHTTP(w, r)
	})
}

// serveUntilInterrupted serves srv until SIGINT, which closes it and then
// calls closed (when not nil): how the bare proxies run and stop.
func serveUntilInterrupted(srv *http.Server, closed func()) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Close()
		if closed != nil {
			closed()
		}
	}()
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// startPeer runs another proxy in front of upstream on a free port.
func startPeer(p peer, upstream string) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	r := strings.NewReplacer("{upstream}", upstream, "{port}", port)
	f := p.argv
	if f == nil {
		f = strings.Fields(p.command)
	}
	f = slices.Clone(f)
	for i := range f {
		f[i] = r.Replace(f[i])
	}
	cmd := exec.Command(f[0], f[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", p.name, err)
	}
	addr := "127.0.0.1:" + port
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("%s never listened on %s", p.name, addr)
		}
	}
	return &proxy{url: "http://" + addr, pid: cmd.Process.Pid, stop: func() error {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		return nil
	}}, nil
}

// proxy is a proxy process of one run.
type proxy struct {
	url     string
	pid     int
	stop    func() error
	capture string
	// cpu, for seam record, is the CPU time the process used over its
	// whole life, once stopped: what it did after the load ended (the
	// OTLP export catching up) included.
	cpu func() time.Duration
	// forward says url is a forward proxy (HTTPS_PROXY) for the upstream,
	// not a base URL standing for it.
	forward bool
}

// peer is another proxy to run: a command line, or argv (each word as it
// is), with {upstream} and {port} replaced.
type peer struct {
	name, command string
	argv          []string
}
