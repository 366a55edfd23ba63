//go:build race

package blocks

// raceEnabled keeps stress tests at their small size under -race.
const raceEnabled = true
