package workload_test

import (
	"fmt"

	"github.com/proflab/proflab/core/workload"
)

// A workload file is TOML: images of functions at addresses, processes of
// threads that run them. Parse decodes it strictly; Resolve checks it for
// a machine and fills every default (the built-in kernel image with its
// idle loop, instruction size, quantum…).
func ExampleParse() {
	spec, err := workload.Parse("server.toml", []byte(`
name = "server"

[[image]]
name = "server.exe"
base = 0x140000000

[[image.function]]
name = "parse"
offset = 0x1000
size = 0x400
weight = 3

[[image.function]]
name = "hash"
offset = 0x2000
size = 0x200
weight = 1
cpi = 2.5

[[process]]
name = "server.exe"

[[process.thread]]
cpu = 0
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := spec.Resolve(workload.Target{UserProbeAddress: 0x7FFFFFFF0000})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, f := range r.Funcs {
		if f.Image == "server.exe" {
			fmt.Printf("%s at %#x, %d bytes, weight %g, cpi %g\n", r.Ref(i), f.Addr, f.Size, f.Weight, f.CPI)
		}
	}
	fmt.Println(r.Spec.InstructionBytes, "bytes an instruction; idle loop:", r.Ref(r.Idle))
	// Output:
	// parse at 0x140001000, 1024 bytes, weight 3, cpi 1
	// hash at 0x140002000, 512 bytes, weight 1, cpi 2.5
	// 4 bytes an instruction; idle loop: KiIdleLoop
}

// A mistake is an error naming the file, the line and the key, with the
// nearest key the format has.
func ExampleParse_unknownKey() {
	_, err := workload.Parse("app.toml", []byte("[[image]]\nname = \"app.exe\"\n[[image.function]]\nname = \"main\"\nsize = 16\nwieght = 1\n"))
	fmt.Println(err)
	// Output:
	// app.toml:6: unknown key "image.function.wieght" (did you mean "image.function.weight"?)
}
