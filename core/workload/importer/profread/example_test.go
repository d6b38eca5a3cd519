package profread_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// A format is an entry that recognises its content and reads it into the
// model. This one reads `leaf<caller<… COUNT` lines (a toy): the registry
// (core/workload/importer/registry.go) would list it, and the importer
// would make the Reading, lay the model out and write the workload, as
// done here by hand.
func Example_format() {
	toy := &profread.Format{
		Name:  "toy",
		About: "toy stacks, `leaf<caller COUNT` lines after a `toy` line",
		Detect: func(c *profread.Content) (any, bool) {
			return nil, c.Text && len(c.Lines) > 0 && c.Lines[0] == "toy"
		},
		Read: func(r *profread.Reading) error {
			m := r.Model
			img := m.Image("toy", "toy", false)
			t := m.Process("", r.Name).Thread("")
			return profread.EachLine(r.Ctx, r.Data, func(ln int, line string) error {
				stack, count, ok := strings.Cut(line, " ")
				if ln == 1 || line == "" {
					return nil
				}
				n, err := strconv.ParseFloat(count, 64)
				if !ok || err != nil || n <= 0 {
					return r.LineErrorf(ln, "%q is not `leaf<caller COUNT`", profread.Clip(line))
				}
				var frames []profmodel.Frame
				for name := range strings.SplitSeq(stack, "<") {
					frames = append(frames, profmodel.Frame{Func: m.Func(img, name)})
				}
				m.Add(t, frames, n)
				r.Sampling.SampleType = "count"
				r.Sampling.Samples += int64(n)
				return nil
			})
		},
	}

	data := []byte("toy\nparse<main 30\nrender<main 70\n")
	if _, ok := toy.Detect(profread.NewContent(data)); !ok {
		fmt.Println("not toy")
		return
	}
	r := &profread.Reading{Name: "app.toy", Data: data, Model: profmodel.New(context.Background()), Ctx: context.Background(), Sampling: &profread.Sampling{}}
	if err := toy.Read(r); err != nil {
		fmt.Println(err)
		return
	}
	target, _ := profmodel.TargetFor("x64")
	if err := r.Model.Layout(target); err != nil {
		fmt.Println(err)
		return
	}
	spec := r.Model.Spec("app.toy")
	fmt.Println(r.Sampling.Samples, r.Sampling.SampleType)
	for _, s := range spec.Processes[0].Threads[0].Stacks {
		fmt.Println(s.Frames, s.Weight)
	}

	bad := &profread.Reading{Name: "bad.toy", Data: []byte("toy\nparse<main x\n"), Model: profmodel.New(context.Background()), Ctx: context.Background(), Sampling: &profread.Sampling{}}
	fmt.Println(toy.Read(bad))
	// Output:
	// 100 count
	// [render main] 70
	// [parse main] 30
	// bad.toy:2: "parse<main x" is not `leaf<caller COUNT`
}
