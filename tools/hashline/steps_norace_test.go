//go:build !race

package hashline

const raceDetector = false
