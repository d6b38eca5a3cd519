// Package jsonprof reads the JSON profiles of browsers' and language
// runtimes' profilers, which name functions by source file and line:
//
//   - [CPUProfile]: V8's .cpuprofile (node --cpu-prof, Chrome DevTools,
//     V8's inspector) (cpuprofile.go, v8profile.go);
//   - [ChromeTrace]: Chrome traces holding V8's CPU profile events, or
//     their samples or duration events (chrometrace.go,
//     chrometrace_samples.go, chrometrace_spans.go);
//   - [Speedscope]: speedscope's file format, which py-spy, rbspy,
//     Austin and others export (speedscope.go);
//   - [Gecko]: the Firefox Profiler's formats (gecko.go, geckotable.go);
//   - [Stackprof]: Ruby stackprof's JSON (stackprof.go).
//
// They share a builder (srcprofile.go) that makes an image per source
// file and names the functions of one file apart, and a JSON detection
// by top-level keys (profread.JSONTop). GHC's JSON report is read with
// its text report, in importer/calltree.
//
// Each format is a profread.Format entry, listed in the importer's
// registry; it reads into a profmodel.Model. docs/workload-import.md
// describes what each keeps.
package jsonprof
