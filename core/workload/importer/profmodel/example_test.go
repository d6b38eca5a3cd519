package profmodel_test

import (
	"context"
	"fmt"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// A format fills the model with weighted stacks; Layout places the
// functions at their source addresses (aligned down to 16 bytes, 16 bytes
// of padding after the last address seen) and Spec writes the workload.
func Example() {
	m := profmodel.New(context.Background())
	app := m.Image("app", "app", false)
	parse, main := m.Func(app, "parse"), m.Func(app, "main")
	t := m.Process("1234", "app").Thread("1234")
	m.Add(t, []profmodel.Frame{
		{Func: parse, Addr: 0x401028, HasAddr: true},
		{Func: main, Addr: 0x401504, HasAddr: true},
	}, 3)
	m.Add(t, []profmodel.Frame{{Func: main, Addr: 0x401510, HasAddr: true}}, 1)

	target, err := profmodel.TargetFor("x64")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Layout(target); err != nil {
		fmt.Println(err)
		return
	}
	spec := m.Spec("app.prof")
	for _, img := range spec.Images {
		for _, f := range img.Functions {
			fmt.Printf("%s!%s at %v+%#x, %d bytes, weight %v, hotspots %v\n", img.Name, f.Name, img.Base, uint64(f.Offset), f.Size, f.Weight, f.Hotspots)
		}
	}
	for _, s := range spec.Processes[0].Threads[0].Stacks {
		fmt.Println(s.Frames, s.Weight)
	}
	// Output:
	// app!parse at 0x401000+0x20, 24 bytes, weight 3, hotspots [{8 1 1}]
	// app!main at 0x401000+0x500, 32 bytes, weight 1, hotspots [{16 1 1}]
	// [parse main] 3
	// [main] 1
}
