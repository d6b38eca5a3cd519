// Package nt holds the constants of the Windows NT profiling subsystem that
// several parts of proflab share: NTSTATUS values with their names, the
// KPROFILE_SOURCE enumeration, information classes, hook IDs, privileges,
// access masks, bug-check codes, Win32 error codes and the table of default
// interval bounds that the shipped HALs and the kernel's test HAL both use.
//
// It is a leaf: it imports only the standard library, so that both the
// kernel model and the HAL plugin contract can depend on it. Every value
// comes from docs/reference/constants.md unless noted (the reference is
// docs/reference/README.md).
package nt
