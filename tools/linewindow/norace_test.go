//go:build !race

package linewindow

const raceEnabled = false
