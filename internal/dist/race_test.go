//go:build race

package dist

// raceEnabled is set under -race, whose runtime allocates on its own
// account, so allocation counts are checked only without it.
const raceEnabled = true
