// Package native reads the profiles of native-code samplers, which give
// machine addresses, symbols and the images (mappings, dsos, modules)
// that hold them:
//
//   - [Pprof]: pprof's profile.proto, gzipped or not, and the legacy
//     forms github.com/google/pprof/profile parses (pprof.go);
//   - [Perf]: the text `perf script` prints, with or without call graphs,
//     with several events for per-function rates (perf.go; perfparse.go
//     reads the text, perfbusy.go the threads' busy shares, perfrates.go
//     the rates);
//   - [Folded]: folded stacks, `root;caller;leaf COUNT` lines (folded.go);
//   - [Pmcstat]: FreeBSD's pmcstat -G callchain reports (pmcstat.go);
//   - [DTrace]: DTrace stack aggregations (dtrace.go).
//
// Addresses that cannot belong to their image (a garbage unwind's) are
// found the same way for pprof and perf (outliers.go).
//
// Each format is a profread.Format entry, listed in the importer's
// registry; it reads into a profmodel.Model. docs/workload-import.md
// describes what each keeps.
package native
