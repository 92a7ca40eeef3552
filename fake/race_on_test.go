//go:build race

package fake

// raceDetector: this test binary was built with -race, which slows the fake some tenfold, so a
// bound on CPU time means nothing in it (make resources holds those bounds without -race).
const raceDetector = true
