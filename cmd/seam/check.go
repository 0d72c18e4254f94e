package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/check"
	"github.com/seam-dev/seam/internal/junit"
)

type checkOptions struct {
	update bool
	json   bool
	junit  string
	faults faultFlag
	seed   uint64
}

func (o *checkOptions) flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.update, "update", false, "rewrite the goldens")
	fs.BoolVar(&o.json, "json", false, "print the results as JSON")
	fs.StringVar(&o.junit, "junit", "", "also write the results as JUnit XML to `file` (- for stdout, instead of the results)")
	fs.Var(&o.faults, "fault", "also replay with `fault` (split-event, split-rune, coalesce, latency, stall, jitter) and check nothing changes (repeatable)")
	fs.Uint64Var(&o.seed, "seed", 1, "`seed` for the positions faults pick")
}

// errCheckFailed reports failing fixtures: exit status 1.
var errCheckFailed = errors.New("check failed")

func (o *checkOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	batchGC(e)
	if fs.NArg() == 0 {
		return &usageError{cmd: "check", msg: "no fixtures given", example: "seam check fixtures/"}
	}
	if o.json && o.junit == "-" {
		return &usageError{cmd: "check", msg: "--json and --junit - both want stdout", example: "seam check --json --junit report.xml fixtures/"}
	}
	if err := check.Faultable(o.faults); err != nil {
		return &usageError{cmd: "check", msg: err.Error(), example: "seam check --fault split-rune --fault coalesce=3 fixtures/"}
	}
	if o.update && len(o.faults) > 0 {
		return &usageError{cmd: "check", msg: "--update writes the goldens of the replay without faults: leave --fault out", example: "seam check --update fixtures/"}
	}
	paths, err := captures.Expand(ctx, fs.Args(), e.open())
	if err != nil {
		return err
	}
	start := time.Now()
	passed, failed := 0, 0
	copts := check.Options{Update: o.update, Faults: o.faults, Seed: o.seed, Open: e.open()}
	results, err := check.Run(ctx, paths, copts, func(r check.Result) {
		if r.OK {
			passed++
		} else {
			failed++
		}
		if !o.json && o.junit != "-" {
			check.WriteResult(e.stdout, r)
		}
	})
	if err != nil {
		return err // interrupted: the fixture did not fail
	}
	switch {
	case o.json:
		if err := writeJSON(e.stdout, check.Summary{Passed: passed, Failed: failed, Fixtures: results}); err != nil {
			return err
		}
	case o.junit != "-":
		fmt.Fprintf(e.stdout, "%d passed, %d failed\n", passed, failed)
	}
	if o.junit != "" {
		if err := junit.WriteTo(e.stdout, o.junit, "seam check", check.JUnitCases(results), time.Since(start)); err != nil {
			return err
		}
	}
	if failed > 0 {
		return errCheckFailed
	}
	return nil
}
