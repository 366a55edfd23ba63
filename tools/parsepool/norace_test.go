//go:build !race

package parsepool

// raceEnabled keeps stress tests at their small size under -race.
const raceEnabled = false
