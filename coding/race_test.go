//go:build race

package coding

// raceEnabled is set under the race detector, whose memory and pace the
// memory-bound tests would measure: they skip then (.ci/run runs them
// without -race).
const raceEnabled = true
