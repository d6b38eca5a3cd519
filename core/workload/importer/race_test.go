//go:build race

package importer_test

// raceEnabled: the race detector is on. It empties sync.Pools at random
// (regexp's machines, fmt's printers), so allocation counts mean nothing.
const raceEnabled = true
