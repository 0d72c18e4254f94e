package replay

import "fmt"

// ServeRequest is what a run of seam serve was asked to do: the mode, the
// captures named, --upstream, -o, and whether it is a forward proxy
// (requests then go to the host each names, never to an upstream).
type ServeRequest struct {
	Mode     Mode
	Captures []string
	Upstream string
	Output   string
	Forward  bool
	// Exists reports whether a capture file or directory with captures
	// is at path: --mode once records it when not, replays it when so.
	Exists func(path string) (bool, error)
}

// ServePlan is what a serve run does, decided from its request by
// PlanServe.
type ServePlan struct {
	Mode Mode
	// Replay are the captures to replay: none when --mode once records.
	Replay []string
	// Forwards says some requests go upstream: to Upstream, or in
	// forward mode to the host each names.
	Forwards bool
	// Upstream is --upstream when requests go to it, else "".
	Upstream string
	// Record is where recordings go (a capture spec, "" for the default
	// place) when RecordOn.
	Record   string
	RecordOn bool
}

// PlanError is a request that does not fit its mode: what is wrong, and a
// command line that would do what the mode does.
type PlanError struct {
	Msg, Example string
}

func (e *PlanError) Error() string { return e.Msg }

// serveExamples are the examples of usage errors per mode that forwards.
var serveExamples = map[Mode]string{
	ModeOnce:        "seam serve --mode once --upstream https://api.openai.com captures/chat.ndjson",
	ModeNewEpisodes: "seam serve --mode new_episodes --upstream https://api.openai.com captures/",
	ModeAll:         "seam serve --mode all --upstream https://api.openai.com -o captures/",
	ModePassthrough: "seam serve --mode passthrough --upstream https://api.openai.com",
}

// Example is a command line running seam serve in p's mode, for a usage
// error about an upstream.
func (p *ServePlan) Example() string { return serveExamples[p.Mode] }

// PlanServe checks the captures, -o, --upstream and --forward against
// the mode and decides what is replayed, forwarded and recorded. A
// request that does not fit is a *PlanError; an error of Exists is
// returned as it is.
func PlanServe(r ServeRequest) (*ServePlan, error) {
	p := &ServePlan{Mode: r.Mode}
	if p.Mode == "" {
		p.Mode = ModeNone
	}
	needUpstream, err := p.checkMode(r)
	if err != nil {
		return nil, err
	}
	if err := p.checkUpstream(r, needUpstream); err != nil {
		return nil, err
	}
	return p, nil
}

func planErr(msg, example string) error { return &PlanError{Msg: msg, Example: example} }

// checkMode checks the captures and -o against the mode and says where
// recordings go, which captures are replayed (none when --mode once
// records) and whether requests go upstream.
func (p *ServePlan) checkMode(r ServeRequest) (needUpstream bool, err error) {
	upEx := serveExamples[p.Mode]
	args := r.Captures
	switch p.Mode {
	case ModeNone:
		if len(args) == 0 {
			return false, planErr("no capture given", "seam serve captures/")
		}
		if r.Upstream != "" {
			return false, planErr("--mode none never forwards, so --upstream does not apply; to forward what matches nothing use --mode new_episodes", "seam serve --mode new_episodes --upstream https://api.openai.com captures/")
		}
		if r.Output != "" {
			return false, planErr("--mode none records nothing, so -o does not apply", "seam serve captures/")
		}
	case ModeOnce:
		if len(args) != 1 {
			return false, planErr("--mode once takes exactly one capture file or directory: recorded if it does not exist, replayed if it does", upEx)
		}
		if r.Output != "" {
			return false, planErr("--mode once records to the capture given, so -o does not apply", upEx)
		}
		exists, err := r.Exists(args[0])
		if err != nil {
			return false, err
		}
		if !exists {
			p.RecordOn, p.Record = true, args[0]
			return true, nil
		}
	case ModeNewEpisodes:
		if len(args) == 0 {
			return false, planErr("no capture given (--mode all records everything without one)", upEx)
		}
		needUpstream, p.RecordOn, p.Record = true, true, r.Output
	case ModeAll, ModePassthrough:
		if len(args) > 0 {
			return false, planErr(fmt.Sprintf("--mode %s replays nothing, so it takes no capture (recordings go to -o)", p.Mode), upEx)
		}
		needUpstream = true
		if p.Mode == ModeAll {
			p.RecordOn, p.Record = true, r.Output
		} else if r.Output != "" {
			return false, planErr("--mode passthrough records nothing, so -o does not apply; --mode all records", upEx)
		}
	}
	p.Replay = args
	return needUpstream, nil
}

// checkUpstream checks --upstream and --forward against a mode that does
// or does not send requests upstream.
func (p *ServePlan) checkUpstream(r ServeRequest, needUpstream bool) error {
	p.Forwards = needUpstream
	if !needUpstream {
		return nil
	}
	if r.Forward {
		if r.Upstream != "" {
			return planErr("--forward sends each request to the host it names, so --upstream does not apply", "seam serve --forward --mode new_episodes captures/")
		}
		return nil
	}
	if r.Upstream == "" {
		what := "--mode " + string(p.Mode)
		if p.Mode == ModeOnce {
			what += " with a capture that does not exist yet"
		}
		return planErr(what+" needs --upstream", serveExamples[p.Mode])
	}
	p.Upstream = r.Upstream
	return nil
}

// Describe says in one line what the mode does in this run, requests
// forwarded going to upstream ("" for the host each names) and
// recordings to the capture at path.
func (p *ServePlan) Describe(upstream, path string) string {
	up := "the host each names"
	if upstream != "" {
		up = upstream
	}
	switch p.Mode {
	case ModeOnce:
		if p.RecordOn {
			return "mode once: " + p.Record + " does not exist yet: forwarding every request to " + up + " and recording to " + path
		}
		return "mode once: the capture exists: strict replay, a request that matches nothing gets a 404"
	case ModeNewEpisodes:
		return "mode new_episodes: replaying what matches; forwarding the rest to " + up + " and recording it to " + path
	case ModeAll:
		return "mode all: forwarding every request to " + up + " and recording to " + path
	case ModePassthrough:
		return "mode passthrough: forwarding every request to " + up + ", recording nothing"
	}
	return "mode none: strict replay, a request that matches nothing gets a 404"
}
