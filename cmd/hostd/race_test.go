//go:build race

package main

// raceEnabled makes workloads smaller under the race detector.
const raceEnabled = true
