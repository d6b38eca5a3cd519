package importer

import "path/filepath"

// cpuprofileFormat reads a .cpuprofile: the DevTools protocol's
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
var cpuprofileFormat = format{
	name:  "cpuprofile",
	about: "V8 CPU profiles, .cpuprofile JSON (node --cpu-prof, Chrome DevTools, V8's inspector)",
	detect: func(c *content) (any, bool) {
		j := c.jsonTop()
		modern := j.has("nodes", '[') && (j.has("samples", '[') || j.has("timeDeltas", '[') || j.has("startTime", '0'))
		old := j.has("head", '{') && j.has("samples", '[') && j.has("timestamps", '[')
		return nil, modern || old
	},
	read: readCPUProfile,
}

// readCPUProfile reads a .cpuprofile.
func readCPUProfile(r *reading) error {
	var p v8Profile
	if err := r.decodeJSON(r.data, &p, "V8 CPU profile"); err != nil {
		return err
	}
	if p.Nodes == nil && p.Head == nil {
		return r.errorf("the JSON has no \"nodes\": a .cpuprofile is an object of nodes, samples, timeDeltas, startTime and endTime (node --cpu-prof writes one)")
	}
	pname := r.opt.Process
	if pname == "" {
		pname = filepath.Base(r.name)
	}
	b := newSrcBuilder(r.m)
	t := b.thread("", pname, "")
	var st v8Stats
	if err := v8Import(r, b, &p, t, "", &st); err != nil {
		return err
	}
	if st.samples == 0 {
		return r.errorf("no sample is left to import (%d idle samples dropped, %d of no time)", st.idle, st.zero)
	}
	if err := b.finish(r); err != nil {
		return err
	}
	v8Notes(r.m, r.out, &st)
	return nil
}
