// Package hal is the contract between proflab and a HAL plugin, and the SDK a
// HAL author writes against. It depends on the standard library only (and
// on proflab's leaf of NT constants, re-exported here so that an author
// never imports it).
//
// # The split
//
// A HAL in Windows is software that programs hardware: it writes the local
// APIC timer's count, a performance counter's event select and reload
// value, the PEBS threshold of the DS save area. The hardware then raises
// the interrupts, and the trap frame belongs to the interrupted code. proflab
// keeps that split: the lab (core/) simulates the hardware of every
// processor, and a HAL only programs it. Every call of the contract answers
// with the [Programming] it implies, and the lab applies that programming to
// its simulated timers, counters and DS save areas. Per-interrupt work stays
// in the lab: a plugin is called a handful of times per run, not once per
// interrupt.
//
// # Calls
//
// The host drives a HAL instance in this order: [HAL.Configure] once (with
// the settings already decoded into the value [Configurable.Settings]
// returned), [HAL.Describe], then any number of QuerySource, SetInterval,
// StartInterrupt and StopInterrupt calls, each addressing a set of
// processors (ascending, non-empty, each below [Machine.CPUs]) and a source
// the HAL described; [HAL.Reset] between runs returns the instance to the
// state Configure left it in.
//
// One plugin process serves many machines at once: the SDK keeps one HAL
// value per machine instance, made by the author's [Factory]. A HAL value is
// never called concurrently.
//
// # Writing a HAL
//
// Most HALs embed [Base], which keeps the per-processor intervals and
// started flags, clamps intervals to each source's bounds and answers the
// kernel's queries; the author supplies the sources and a Program function
// turning a change of one processor's source state into hardware
// programming. Optional abilities ([Configurable], [TimerRefiller],
// [ControlAreaObserver], [InterruptHook]) are separate interfaces.
package hal
