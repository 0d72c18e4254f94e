package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is the unit of the CPU times in /proc/PID/stat: USER_HZ, 100
// on every Linux architecture Go supports.
const clockTicks = 100

// ProcSample is what /proc says about a process at one moment.
type ProcSample struct {
	At  time.Time
	CPU time.Duration // user + system time so far, all threads
	RSS int64         // resident set, bytes
}

// ReadProc reads the CPU time and resident set of process pid from /proc.
func ReadProc(pid int) (ProcSample, error) {
	s := ProcSample{At: time.Now()}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, fmt.Errorf("read process stats: %w", err)
	}
	// The command name (field 2) may hold spaces: fields count from the
	// last ')'.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	f := strings.Fields(rest)
	if len(f) < 22 {
		return s, fmt.Errorf("read process stats: %d fields in /proc/%d/stat", len(f)+2, pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	s.CPU = time.Duration(utime+stime) * time.Second / clockTicks
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, fmt.Errorf("read process status: %w", err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			s.RSS = kb << 10
		}
	}
	return s, nil
}

// Sampler samples a process every interval until stopped, keeping every
// sample, so a run can show CPU use and whether memory stays flat.
type Sampler struct {
	pid     int
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	samples []ProcSample
	err     error
}

// NewSampler starts sampling process pid.
func NewSampler(pid int, interval time.Duration) *Sampler {
	s := &Sampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	s.take()
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				s.take()
				return
			case <-t.C:
				s.take()
			}
		}
	}()
	return s
}

func (s *Sampler) take() {
	p, err := ReadProc(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return
	}
	s.samples = append(s.samples, p)
}

// Stop takes a last sample and returns them all, with the first error.
func (s *Sampler) Stop() ([]ProcSample, error) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.samples, s.err
}

// ProcSummary sums up samples: CPU in cores (CPU seconds per second), the
// peak resident set, and the peaks of the first and the second half of the
// run, whose difference says whether memory grows.
type ProcSummary struct {
	Cores               float64
	PeakRSS             int64
	FirstHalf, LastHalf int64
}

// Summarize sums up samples.
func Summarize(samples []ProcSample) ProcSummary {
	var s ProcSummary
	if len(samples) < 2 {
		return s
	}
	a, b := samples[0], samples[len(samples)-1]
	if wall := b.At.Sub(a.At); wall > 0 {
		s.Cores = float64(b.CPU-a.CPU) / float64(wall)
	}
	mid := a.At.Add(b.At.Sub(a.At) / 2)
	for _, p := range samples {
		s.PeakRSS = max(s.PeakRSS, p.RSS)
		if p.At.Before(mid) {
			s.FirstHalf = max(s.FirstHalf, p.RSS)
		} else {
			s.LastHalf = max(s.LastHalf, p.RSS)
		}
	}
	return s
}
