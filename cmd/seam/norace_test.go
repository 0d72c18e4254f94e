//go:build !race

package main

// raceEnabled is set when the tests run under -race, where memory bounds
// do not hold (the race runtime keeps shadow memory for every allocation):
// .ci/run checks them in a run without -race.
const raceEnabled = false
