// Package etl is Windows' own trace file format (.etl): the buffers an
// ETW session writes, their record headers, and the layouts of the kernel
// and CLR events a CPU-sampling trace holds. It is what the lab writes for
// an NT Kernel Logger session and what `proflab workload import` reads.
//
// The facts come from real files, checked byte by byte
// (shared spec etl.md; docs/etl.md says what is written and read, field by
// field). All integers are little-endian. Pointer-sized fields are 4 or 8
// bytes as the file header's PointerSize says.
//
// The package is a leaf: standard library only, no model package.
package etl
