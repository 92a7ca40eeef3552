//go:build !race

package fake

// raceDetector: see race_on_test.go.
const raceDetector = false
