//go:build race

package review

// raceEnabled keeps the stress tests small under the race detector.
const raceEnabled = true
