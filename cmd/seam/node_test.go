package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tlsca"
)

// nodePackages are the npm packages the node tests run, pinned: each test
// asserts what one release of an SDK does, and a fresh install gets that
// release. undici stays on 7 and openai on 6, which still run on Node 20.
var nodePackages = []string{
	"openai@6.49.0",
	"undici@7.30.2",
	"@google/genai@3.1.0",
	"@aws-sdk/client-bedrock-runtime@3.1162.0",
	"@smithy/node-http-handler@4.14.2",
	"https-proxy-agent@9.1.0",
	"cohere-ai@8.1.0",
	"ollama@0.6.4",
	"@mistralai/mistralai@2.7.0",
}

// nodeModules installs nodePackages into a cache directory outside the
// repository (once; a later run installs only what is missing or at
// another version) and returns it. It skips the test, saying why, when node
// or npm is missing or the install fails (no registry, as in an offline CI).
func nodeModules(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: the tests of the npm SDKs need node and npm", tool)
		}
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "seam-test-node")
	nodeInstall.Do(func() { nodeInstallErr = installNodePackages(dir) })
	if nodeInstallErr != nil {
		t.Skip(nodeInstallErr)
	}
	return dir
}

var (
	nodeInstall    sync.Once
	nodeInstallErr error
)

// installNodePackages installs into dir those of nodePackages that are not
// there at their version.
func installNodePackages(dir string) error {
	var missing []string
	for _, spec := range nodePackages {
		at := strings.LastIndex(spec, "@")
		var pkg struct{ Version string }
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(spec[:at]), "package.json"))
		if err != nil || json.Unmarshal(b, &pkg) != nil || pkg.Version != spec[at+1:] {
			missing = append(missing, spec)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot make %s for the npm packages: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private":true}`+"\n"), 0o644)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Fail fast offline: no retries, a short fetch timeout.
	args := append([]string{"install", "--no-audit", "--no-fund", "--silent", "--fetch-retries=0", "--fetch-timeout=20000", "--save-exact"}, missing...)
	npm := exec.CommandContext(ctx, "npm", args...)
	npm.Dir = dir
	if out, err := npm.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install %s failed (offline, or no registry?): %v\n%s", strings.Join(missing, " "), err, out)
	}
	return nil
}

// TestOpenAINodeThroughForward streams a chat completion with the real
// openai npm package through seam record --forward, trusting seam's CA with
// NODE_EXTRA_CA_CERTS and reaching the proxy with undici's ProxyAgent and
// EnvHttpProxyAgent: the final completion equals the one streamed directly,
// and the capture holds the exchanges byte for byte.
func TestOpenAINodeThroughForward(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the node test")
	}
	modules := nodeModules(t)
	api := newFakeAPI(t, "127.0.0.1", chatStream)
	_, port, _ := net.SplitHostPort(api.addr())
	caDir := t.TempDir()
	out := filepath.Join(t.TempDir(), "node.ndjson")
	cmd, proxy, _ := startForward(t, caDir, out, "--ca-file", api.caFile, "--host", api.addr())
	seamCA, err := os.ReadFile(filepath.Join(caDir, tlsca.CertFile))
	if err != nil {
		t.Fatal(err)
	}
	apiCA, _ := os.ReadFile(api.caFile)
	// One file trusted by node: the API's own CA (for the direct run) and
	// seam's (for the proxied ones).
	both := filepath.Join(t.TempDir(), "cas.pem")
	os.WriteFile(both, append(apiCA, seamCA...), 0o644)
	script, _ := filepath.Abs(filepath.Join("testdata", "node", "stream.js"))

	run := func(mode string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, "node", script, mode)
		c.Dir = modules
		c.Env = append(os.Environ(),
			"NODE_PATH="+filepath.Join(modules, "node_modules"),
			"NODE_EXTRA_CA_CERTS="+both,
			"BASE_URL=https://127.0.0.1:"+port+"/v1",
			"PROXY="+proxy.String(), "HTTPS_PROXY="+proxy.String(), "NO_PROXY=", "no_proxy=")
		var stderr bytes.Buffer
		c.Stderr = &stderr
		got, err := c.Output()
		if err != nil {
			t.Fatalf("node %s: %v\n%s", mode, err, stderr.Bytes())
		}
		var final map[string]any
		if err := json.Unmarshal(got, &final); err != nil {
			t.Fatalf("node %s printed %q: %v", mode, got, err)
		}
		return final
	}
	direct := run("direct")
	for _, mode := range []string{"proxy", "env"} {
		got := run(mode)
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(direct)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: final completion\n%s\ndiffers from the direct one\n%s", mode, a, b)
		}
	}
	msg := direct["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	if msg["content"] != "Hello, wörld!" {
		t.Errorf("content %v", msg["content"])
	}
	stopSeam(t, cmd)
	c, err := tape.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 2 {
		t.Fatalf("%d exchanges recorded, want the 2 proxied runs", len(c.Exchanges))
	}
	for _, x := range c.Exchanges {
		if x.Request.Host != api.addr() || !strings.Contains(x.Request.Headers["user-agent"][0], "OpenAI/JS") {
			t.Errorf("exchange %d: host %q user-agent %q", x.Ex, x.Request.Host, x.Request.Headers["user-agent"])
		}
		if !bytes.Equal(x.Upstream.Body(), x.Client.Body()) || !bytes.Contains(x.Client.Body(), []byte("[DONE]")) {
			t.Errorf("exchange %d: sides differ or no [DONE]", x.Ex)
		}
	}
}
