// Package profmodel is the model of a profile on its way to a workload:
// images of functions with the source addresses seen in them, and
// processes of threads with their weighted stacks. Every profile format
// fills it (the formats live in importer/native, importer/jsonprof and
// importer/calltree; importer/profread is the contract they implement):
//
//	m := profmodel.New(ctx)
//	img := m.Image("app", "app", false) // an image, by the format's key
//	t := m.Process("", "app").Thread("")  // a thread of a process
//	m.Add(t, []profmodel.Frame{           // a sample, leaf first
//		{Func: m.Func(img, "parse"), Addr: 0x401020, HasAddr: true},
//		{Func: m.Func(img, "main"), Addr: 0x401500, HasAddr: true},
//	}, 1)
//
// Layout then places each image's functions: at their source addresses
// where the source has them (aligned, padded, overlapping spans resolved),
// in a synthetic area where it has none, and relocates the images into the
// target machine's address space. Spec writes the workload.Spec: each
// function weighted by the samples that ran its code, with hotspots at
// its sampled addresses; each thread's distinct stacks with their inlined
// frames; busy shares. docs/workload-import.md gives the rules (alignment,
// padding, relocation, inlining, idle names) for people.
//
// Besides stacks, a format may give per-function event counts (AddEvent,
// then SetRates for CPI, cache and branch rates), threads' busy shares
// (SetBusy, or RelativeBusy), where a cost given apart from the stacks
// ran (AddCodeAt), and notes and warnings for the person importing.
//
// The model knows no file format and no import's options, and imports
// nothing of proflab but the workload model: the import is a pure
// function from a profile's bytes to a workload.
package profmodel
