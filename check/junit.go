package check

import (
	"time"

	"github.com/seam-dev/seam/internal/junit"
)

// JUnitCases makes one JUnit test case per fixture result, failed by its
// problems.
func JUnitCases(results []Result) []junit.Case {
	cases := make([]junit.Case, len(results))
	for i, r := range results {
		cases[i] = junit.Case{Name: r.Path, Classname: "seam.check", Time: junit.Seconds(time.Duration(r.Ms * float64(time.Millisecond)))}
		if !r.OK {
			cases[i].Failure = junit.NewFailure("seam.check", r.Problems)
		}
	}
	return cases
}
