package importer_test

import (
	"fmt"

	"github.com/proflab/proflab/core/workload/importer"
)

// Import folded stacks: root-first lines become leaf-first weighted
// stacks of one process, the functions laid out 256 bytes apart.
func ExampleImport() {
	data := []byte("app;main;parse 30\napp;main;parse;lex 10\napp;main;render 60\n")
	im, err := importer.Import("app.folded", data, importer.Options{Process: "app"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(im.Summary())
	for _, s := range im.Spec.Processes[0].Threads[0].Stacks {
		fmt.Println(s.Frames, s.Weight)
	}
	img := im.Spec.Images[0]
	fmt.Println(img.Name, img.Base, img.Functions[3].Name, img.Functions[3].Offset)
	// Output:
	// app.folded: folded, 5 functions in 1 images, 3 stacks, 1 processes, 1 threads, 100 samples
	// [render main app] 60
	// [parse main app] 30
	// [lex parse main app] 10
	// folded 0x10000 lex 0x300
}
