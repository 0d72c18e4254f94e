//go:build !unix

package main

import "os"

// peakRSS returns 0: this system's peak resident set is not read here.
func peakRSS(*os.ProcessState) int64 { return 0 }
