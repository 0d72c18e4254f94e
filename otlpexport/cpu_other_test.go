//go:build !unix

package otlpexport

import "time"

// processCPU is not measured here: benchmarks report no CPU figure.
func processCPU() time.Duration { return 0 }
