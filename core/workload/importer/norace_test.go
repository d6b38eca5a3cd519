//go:build !race

package importer_test

// raceEnabled: the race detector is on (see race_test.go).
const raceEnabled = false
