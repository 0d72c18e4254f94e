package record_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/record"
)

// TestForwardPlan: the default LLM hosts are intercepted plus --host's,
// or every host; a --resolve or --host mistake is a ConfigError naming
// the flag; a listen address beyond loopback allows remote clients; a
// --ca-file without a certificate is refused.
func TestForwardPlan(t *testing.T) {
	p, err := record.ForwardConfig{Hosts: []string{"api.example.com"}, Listen: "127.0.0.1:0"}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if p.AllowRemote || p.Intercept.All() || !p.Intercept.Names("api.example.com") || !p.Intercept.Names("api.openai.com") {
		t.Errorf("loopback plan: remote %v, all %v, hosts %v", p.AllowRemote, p.Intercept.All(), p.Intercept.Hosts())
	}
	p, err = record.ForwardConfig{InterceptAll: true, Listen: "0.0.0.0:8080", Resolve: []string{"api.openai.com:443:127.0.0.1"}}.Plan()
	if err != nil || !p.Intercept.All() || !p.AllowRemote || p.Upstream.Dial == nil {
		t.Fatalf("exposed plan: %+v, %v", p, err)
	}
	for _, c := range []record.ForwardConfig{
		{Resolve: []string{"api.openai.com:443"}},
		{Resolve: []string{":443:127.0.0.1"}},
		{Hosts: []string{"https://api.example.com/v1"}},
	} {
		var ce *record.ConfigError
		if _, err := c.Plan(); !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), ce.Flag+" ") {
			t.Errorf("%+v: %v, want a ConfigError", c, err)
		}
	}
	junk := filepath.Join(t.TempDir(), "junk.pem")
	os.WriteFile(junk, []byte("not a certificate"), 0o600)
	if _, err := (record.ForwardConfig{CAFiles: []string{junk}}).Plan(); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("junk CA file: %v", err)
	}
}
