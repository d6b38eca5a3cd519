package hal_test

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
)

// A description with a source out of order and bounds that do not hold
// says what is wrong, one line each.
func ExampleDescription_Validate() {
	d := hal.Description{Name: "mine", Sources: []hal.SourceSpec{
		{Source: hal.ProfileTotalIssues, Name: "ProfileTotalIssues", Description: "retired instructions", Units: hal.UnitsEvents,
			Bounds: hal.Bounds{Min: 4096, Default: 65536, Max: 0x7FFFFFFF}},
		{Source: hal.ProfileTime, Name: "ProfileTime", Description: "the timer", Units: hal.Units100ns,
			Bounds: hal.Bounds{Min: 1221, Default: 1000, Max: 10_000_000}},
	}}
	fmt.Println(d.Validate())
	// Output:
	// sources are not in ascending order without repeats: ProfileTime after ProfileTotalIssues
	// ProfileTime's bounds want 1 <= min <= default <= max, got min=1221 default=1000 max=10000000
}
