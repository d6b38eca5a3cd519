//go:build race

package sweep_test

// raceDetector is whether the tests run under the race detector.
const raceDetector = true
