package workload_test

import (
	"fmt"

	"github.com/proflab/proflab/core/workload"
)

// A workload in its table form, as a Lua scenario's m:run{ workload =
// { processes = { ... } } } hands it over: the TOML form's keys, lists
// also under their plurals. Its errors name the fields with the table's
// own keys.
func ExampleDecodeTable() {
	table := map[string]any{
		"processes": []any{map[string]any{
			"name": "app",
			"functions": []any{
				map[string]any{"name": "main", "base": "0x401000", "size": 4096.0, "weight": 1.0},
			},
			"threads": []any{map[string]any{}, map[string]any{"cpu": 99.0}},
		}},
	}
	s, err := workload.DecodeTable(table)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Processes[0].Name, s.Processes[0].Functions[0].Base, len(s.Processes[0].Threads))
	_, err = s.Resolve(workload.Target{UserProbeAddress: 0x7FFFFFEFFFF})
	fmt.Println(err)
	// Output:
	// app 0x401000 2
	// processes[1].threads[2].cpu: must be a processor number 0…63, got 99
}
