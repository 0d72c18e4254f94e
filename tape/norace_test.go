//go:build !race

package tape

const raceEnabled = false
