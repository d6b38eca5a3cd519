// Package calltree reads the reports of tools that give a call tree or a
// call graph with costs rather than samples:
//
//   - [Instruments]: the text of Instruments' Deep Copy of a call tree
//     (macOS Time Profiler) (instruments.go);
//   - [Callgrind]: callgrind's profile format (valgrind
//     --tool=callgrind, cachegrind, and other tools that write it)
//     (callgrind.go), whose call graph is turned into calling contexts as
//     gprof does (callcontexts.go);
//   - [GHCProf]: the cost-centre report of a GHC program, `+RTS -p` text
//     or `+RTS -pj` JSON (ghcprof.go).
//
// Each format is a profread.Format entry, listed in the importer's
// registry; it reads into a profmodel.Model. docs/workload-import.md
// describes what each keeps.
package calltree
