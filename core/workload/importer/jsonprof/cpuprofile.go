package jsonprof

import (
	"path/filepath"

	"github.com/proflab/proflab/core/workload/importer/profread"
)

// CPUProfile reads a .cpuprofile: the DevTools protocol's
// Profiler.Profile, an object of nodes (a call tree: each node a call
// frame {functionName, scriptId, url, lineNumber, columnNumber} with its
// children's ids), samples (node ids) and timeDeltas (microseconds since
// the previous sample, the first since startTime), startTime and endTime
// (microseconds). The old form of V8's C++ API (a "head" tree, times in
// seconds, absolute "timestamps") is read too.
//
// Weight is time: a sample weighs the time to the next one (the last:
// to endTime), in microseconds, as DevTools' timeline draws it. Names are
// DevTools': a function without a name is "(anonymous)"; "(program)",
// "(garbage collector)" and "(idle)" are functions of the image
// V8NativeImage; "(root)" is dropped. Each script URL is an image named
// by its file name. One process (--process, else the file's base name)
// of one thread, busy for its samples' time over endTime − startTime;
// --drop-idle drops the "(idle)" samples.
var CPUProfile = &profread.Format{
	Name:  "cpuprofile",
	About: "V8 CPU profiles, .cpuprofile JSON (node --cpu-prof, Chrome DevTools, V8's inspector)",
	Detect: func(c *profread.Content) (any, bool) {
		j := c.JSON()
		modern := j.Has("nodes", '[') && (j.Has("samples", '[') || j.Has("timeDeltas", '[') || j.Has("startTime", '0'))
		old := j.Has("head", '{') && j.Has("samples", '[') && j.Has("timestamps", '[')
		return nil, modern || old
	},
	Read: readCPUProfile,
}

// readCPUProfile reads a .cpuprofile.
func readCPUProfile(r *profread.Reading) error {
	var p v8Profile
	if err := r.DecodeJSON(r.Data, &p, "V8 CPU profile"); err != nil {
		return err
	}
	if p.Nodes == nil && p.Head == nil {
		return r.Errorf("the JSON has no \"nodes\": a .cpuprofile is an object of nodes, samples, timeDeltas, startTime and endTime (node --cpu-prof writes one)")
	}
	pname := r.Options.Process
	if pname == "" {
		pname = filepath.Base(r.Name)
	}
	b := newSrcBuilder(r.Model)
	t := b.thread("", pname, "")
	var st v8Stats
	if err := v8Import(r, b, &p, t, "", &st); err != nil {
		return err
	}
	if st.samples == 0 {
		return r.Errorf("no sample is left to import (%d idle samples dropped, %d of no time)", st.idle, st.zero)
	}
	if err := b.finish(r); err != nil {
		return err
	}
	v8Notes(r.Model, r.Sampling, &st)
	return nil
}
