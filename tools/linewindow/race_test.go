//go:build race

package linewindow

// raceEnabled makes the heaviest inputs smaller under the race detector,
// which runs this package's byte loops about twenty times slower.
const raceEnabled = true
