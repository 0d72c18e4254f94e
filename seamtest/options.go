package seamtest

import (
	"fmt"

	"github.com/seam-dev/seam/inspect"
)

// An Option changes what [Serve] serves and how [Server.Check] judges.
type Option func(*config) error

// config is what the options set.
type config struct {
	paths       []string
	speed       float64
	faults      []string
	seed        uint64
	mode        string
	upstream    string
	recordTo    string
	ignore      []string
	redact      []string
	proxy       func(upstream string) string
	failOn      inspect.Severity
	allowMisses bool
}

func defaults(capture string) config {
	return config{paths: []string{capture}, speed: 1, seed: 1, mode: "none", failOn: inspect.Error}
}

// Captures serves these captures (files or directories) too, beside the
// one given to Serve. A request that several exchanges match is answered
// by each in the order they were loaded, then by the last again, as seam
// serve does.
func Captures(paths ...string) Option {
	return func(c *config) error {
		c.paths = append(c.paths, paths...)
		return nil
	}
}

// Speed scales the recorded timing: 1 (the default) sends each chunk at
// its recorded time, 10 ten times faster, 0 everything at once.
func Speed(x float64) Option {
	return func(c *config) error {
		if x < 0 {
			return fmt.Errorf("Speed(%g): want 0 or more", x)
		}
		c.speed = x
		return nil
	}
}

// Fault injects a fault into every response, as seam serve --fault does:
// "split-rune", "split-event", "coalesce=3", "drop-delta=5",
// "dup-delta", "reorder=2", "drop-terminal", "truncate=2048",
// "disconnect=1.5s", "status=429:2", "latency=300ms",
// "stall=2s@event:40", "jitter=20ms". Repeat it to combine faults; they
// apply in order. [Server.Check] judges what a fault did to the stream as
// it judges any stream (a status fault is an http.status error): a test
// of how a client copes with a fault checks the client, or looks at
// [Server.Exchanges].
func Fault(spec string) Option {
	return func(c *config) error {
		c.faults = append(c.faults, spec)
		return nil
	}
}

// Seed seeds the positions faults pick (which event, where to split): the
// same seed gives the same bytes. The default is 1, as seam serve's.
func Seed(n uint64) Option {
	return func(c *config) error {
		c.seed = n
		return nil
	}
}

// Mode sets the VCR mode, as seam serve --mode does:
//
//   - "none" (the default) replays strictly: a request that matches no
//     recorded exchange gets a 404 naming the closest one and why it
//     differs, and fails the test at cleanup.
//   - "once": when the capture given to Serve does not exist, every
//     request goes to [Upstream] and is recorded there; when it exists,
//     as "none". The first run records, every later one replays.
//   - "new_episodes" replays what matches and sends the rest to Upstream,
//     recording it to [RecordTo] (by default a new file in the capture's
//     directory).
//   - "all" sends everything to Upstream and records it to RecordTo.
//   - "passthrough" sends everything to Upstream and records nothing.
//
// Recordings are redacted as seam record redacts them.
func Mode(m string) Option {
	return func(c *config) error {
		c.mode = m
		return nil
	}
}

// Upstream is the base URL the modes that forward send requests to, e.g.
// "https://api.openai.com".
func Upstream(url string) Option {
	return func(c *config) error {
		c.upstream = url
		return nil
	}
}

// RecordTo is the capture file, or directory for a new file, where modes
// "new_episodes" and "all" record what they forward. It is never
// overwritten.
func RecordTo(path string) Option {
	return func(c *config) error {
		c.recordTo = path
		return nil
	}
}

// Ignore has matching ignore these top-level request fields too, beside
// the volatile ones seam serve ignores.
func Ignore(fields ...string) Option {
	return func(c *config) error {
		c.ignore = append(c.ignore, fields...)
		return nil
	}
}

// Redact adds redaction patterns, as seam record --redact does
// ("header:NAME", "json:PATH", "re:REGEXP"): they apply to what the modes
// that forward record, and requests are matched as a capture recorded
// with them stores its requests.
func Redact(patterns ...string) Option {
	return func(c *config) error {
		c.redact = append(c.redact, patterns...)
		return nil
	}
}

// Proxy puts a proxy under test between the client and the captures, the
// way seam record's sandwich does. start gets the URL of the mock upstream
// (a recording leg in front of the captures) and returns the URL of the
// proxy, set up to forward to it; [Server.URL] is then the client-facing
// leg in front of the proxy. [Server.Check] compares what the proxy got
// from the upstream with what the client got from the proxy.
func Proxy(start func(upstream string) (proxyURL string)) Option {
	return func(c *config) error {
		c.proxy = start
		return nil
	}
}

// FailOn sets the least severity of a finding that fails [Server.Check]:
// "error" (the default), "warn" or "info".
func FailOn(severity string) Option {
	return func(c *config) error {
		s, err := inspect.ParseSeverity(severity)
		if err != nil {
			return fmt.Errorf("FailOn: %w", err)
		}
		c.failOn = s
		return nil
	}
}

// AllowMisses lets requests that match no recorded exchange pass without
// failing the test (they still get the 404 that says why).
func AllowMisses() Option {
	return func(c *config) error {
		c.allowMisses = true
		return nil
	}
}
