//go:build !race

package memgov

const raceEnabled = false
