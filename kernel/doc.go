// Package kernel is proflab's model of the Windows NT kernel's profiling
// machinery: profile objects and their buckets, the profile services,
// profile intervals per source, the profile interrupt, PEBS control areas,
// the NT Kernel Logger's profile events and the bug check, per modelled
// Windows version (3.10 to 10.0.19041, x86 and x64).
//
// The model is pure and deterministic: no I/O, no wall clock, no
// goroutines and no global state. Two Machines never share anything. The
// behaviour reference is spec/nt-profiling.md; where it is silent the
// choices below are made.
package kernel
