//go:build race

package hashline

// raceDetector says the race detector is on; it changes how often maps
// allocate, so allocation counts are not checked under it.
const raceDetector = true
