//go:build race

package memgov

// raceEnabled makes workloads smaller under the race detector.
const raceEnabled = true
