// Package etlprof reads Windows' trace files (.etl, and PerfView's
// .etl.zip holding one) into the import's model: the CPU samples of an
// NT Kernel Logger session (SampledProfile, PmcCounterProfile) with their
// stacks (plain StackWalk events and stack caching's keys), the processes
// and threads the trace names, its images by base name, JIT-compiled
// .NET methods from the CLR's method events, and a symbol listing's
// function names where one is given.
//
// The file's bytes are read by core/etl (buffers, compression, record
// headers, payloads); this package joins them:
//
//   - scan.go: one pass over the records, keeping each event with its time;
//   - join.go: stacks to their samples, stack keys to their definitions;
//   - names.go: an address to its image, method or [unknown] function;
//   - build.go and sources.go: samples to weighted stacks of threads of
//     processes, counter samples to events, busy shares;
//   - notes.go: what was left out;
//   - format.go: detection, zip archives, errors.
//
// docs/etl.md ("Reading") and docs/workload-import.md describe the rules.
package etlprof
