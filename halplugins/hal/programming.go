package hal

// Programming is the hardware programming a HAL call implies: what the lab
// writes into its simulated processors' timers, performance counters and
// DS save areas. Entries apply in order (ResetAll first, then Timers,
// Counters and DS), each naming its processor; a later entry for the same
// processor and unit replaces an earlier one. The zero value programs
// nothing.
//
// Each HAL instance owns its own bank of units: one timer per processor and
// its counters 0 … n-1 per processor, so that two HALs of one machine never
// reprogram each other's hardware.
type Programming struct {
	// ResetAll returns every unit this HAL instance programmed, on every
	// processor, to its power-on state (timer disabled, counters disabled
	// and freed, PEBS off) before the rest applies.
	ResetAll bool
	// Timers programs processors' local APIC timers (one per processor).
	Timers []TimerProgram
	// Counters programs processors' performance counters (IA32_PERFEVTSELx
	// with IA32_PMCx on Intel, PerfEvtSel/PerfCtr on AMD).
	Counters []CounterProgram
	// DS programs processors' PEBS DS save areas (the PEBS_DS_SAVE_AREA of
	// the PROCESSOR_PROFILE_CONTROL_AREA,
	// docs/reference/system-information.md#processor_profile_control_area).
	DS []DSProgram
	// Log lines go to the run log, attributed to the HAL (why a start was
	// refused, what was clamped). They are not part of the kernel's HAL
	// call log.
	Log []string
}

// Empty reports whether p programs nothing and logs nothing.
func (p Programming) Empty() bool {
	return !p.ResetAll && len(p.Timers) == 0 && len(p.Counters) == 0 && len(p.DS) == 0 && len(p.Log) == 0
}

// Merge appends q's entries after p's (q's ResetAll ORs in: it applies
// before everything, so merge a reset first).
func (p Programming) Merge(q Programming) Programming {
	p.ResetAll = p.ResetAll || q.ResetAll
	p.Timers = append(p.Timers, q.Timers...)
	p.Counters = append(p.Counters, q.Counters...)
	p.DS = append(p.DS, q.DS...)
	p.Log = append(p.Log, q.Log...)
	return p
}

// Logf appends a formatted log line.
func (p *Programming) Logf(format string, args ...any) {
	p.Log = append(p.Log, sprintf(format, args...))
}

// TimerMode is how a timer fires.
type TimerMode uint8

const (
	// TimerPeriodic fires every Period (the LVT timer in periodic mode).
	TimerPeriodic TimerMode = iota
	// TimerOneShot fires after each period of the OneShot queue in turn
	// (the LVT timer in one-shot mode, re-armed by the HAL's handler).
	TimerOneShot
)

// TimerProgram programs one processor's local APIC timer. A fire raises
// the profile interrupt for Source on that processor
// (KeProfileInterruptWithSource with the interrupted code's trap frame).
type TimerProgram struct {
	// CPU is the processor, 0 … Machine.CPUs-1.
	CPU int
	// Enabled unmasks the timer; false masks it (and the rest is ignored).
	Enabled bool
	// Source is the profile source its interrupts report (ProfileTime).
	Source Source
	// Mode is TimerPeriodic or TimerOneShot.
	Mode TimerMode
	// Period is the periodic interval in 100 ns units of simulated time
	// (the APIC initial count scaled to 100 ns), >= 1. Periodic mode only.
	// Reprogramming an enabled periodic timer restarts its count.
	Period uint32
	// OneShot is the queue of one-shot periods, in 100 ns units, each
	// >= 1, fired in order. When it runs dry the lab asks the HAL's
	// TimerRefiller for more; a HAL that is not one stops the timer.
	// Reprogramming replaces the queue; a refill's entries are appended.
	OneShot []uint32
}

// CounterProgram programs one performance counter of one processor. The
// counter counts EventSelect's event on that processor; after Reload
// events it overflows and raises the profile interrupt for Source, with
// the reported instruction pointer Skid instructions after the one that
// overflowed it (or exactly it, with PEBS).
type CounterProgram struct {
	// CPU is the processor, 0 … Machine.CPUs-1.
	CPU int
	// Index is the counter number on that processor, 0 … 7 (the x of
	// IA32_PERFEVTSELx / IA32_PMCx, or of PerfEvtSelx on AMD).
	Index int
	// Enabled starts counting; false disables and frees the counter (the
	// rest is ignored).
	Enabled bool
	// Source is the profile source its overflow interrupts report.
	Source Source
	// EventSelect is the event-select register value (EventSelect(vendor,
	// Source), docs/reference/hal.md#the-hals-profile-interfaces); the lab
	// derives the counted event from Source.
	EventSelect uint32
	// Reload is the number of events from one overflow to the next: the
	// interval the kernel set (the counter is loaded with 2^width −
	// Reload). 1 … 0x7FFFFFFF.
	Reload uint32
	// Skid is the distribution of the reported IP's distance, in
	// instructions after the overflowing one; empty means zero skid.
	// Ignored with PEBS.
	Skid []SkidWeight
	// PEBS makes overflows write a PEBS record (exact IP, no skid) into
	// the processor's DS save area instead of interrupting directly; the
	// interrupt comes at the DS threshold (DSProgram).
	PEBS bool
	// RequiresControlArea means the programming only takes effect on a
	// processor with a PROCESSOR_PROFILE_CONTROL_AREA (PEBS needs one);
	// elsewhere the lab delivers nothing from this counter and logs why.
	RequiresControlArea bool
}

// SkidWeight is one entry of a skid distribution: the reported IP lands
// Instructions instructions after the overflowing one with probability
// Weight / (sum of the distribution's weights).
type SkidWeight struct {
	// Instructions after the event, 0 … 1000.
	Instructions uint32
	// Weight is relative, >= 1.
	Weight uint32
}

// DSProgram programs one processor's PEBS DS save area (the
// PEBS_DS_SAVE_AREA at offset 0 of the PROCESSOR_PROFILE_CONTROL_AREA,
// docs/reference/system-information.md#processor_profile_control_area).
// The lab writes records of RecordSize bytes from PebsBufferBase,
// advancing PebsIndex, and raises the profile interrupt for each record's
// source when PebsIndex reaches PebsInterruptThreshold; the handler then
// rewinds PebsIndex to the base. It always requires a control area.
type DSProgram struct {
	// CPU is the processor, 0 … Machine.CPUs-1.
	CPU int
	// Enabled turns PEBS recording on; false turns it off (IA32_PEBS_ENABLE
	// cleared) and the rest is ignored.
	Enabled bool
	// RecordSize is the bytes per PEBS record (0xC0 on recent cores).
	RecordSize uint32
	// BufferRecords is the buffer's capacity in records:
	// PebsAbsoluteMaximum = PebsBufferBase + BufferRecords×RecordSize.
	BufferRecords uint32
	// ThresholdRecords is how many records trigger the interrupt:
	// PebsInterruptThreshold = PebsBufferBase + ThresholdRecords×RecordSize.
	// 1 … BufferRecords.
	ThresholdRecords uint32
	// CounterReset are PebsCounterReset0–3 expressed as events until the
	// counter's next overflow after a record (the register holds
	// 2^width − value); 0 leaves that counter's reload unchanged.
	CounterReset [4]uint32
}
