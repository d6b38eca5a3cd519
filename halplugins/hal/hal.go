package hal

// HAL is one HAL instance: the hardware abstraction layer of one simulated
// machine. The SDK makes one per machine with the author's [Factory] and
// never calls it concurrently. Embed [Base] to get every method but
// Configure's source list and the programming for free.
//
// An error return means the HAL itself failed (the run stops with it); what
// a HAL does with a value it dislikes (clamping, quantising, refusing a
// start) is not an error: it shows in later queries and in the log lines of
// the programming.
type HAL interface {
	// Configure is called once, first, with the machine the instance
	// serves. If the HAL is [Configurable], its settings have already been
	// decoded (strictly) into the value Settings returned.
	Configure(m Machine) error
	// Describe returns the HAL's name, version and sources on the
	// configured machine (a PMU's sources depend on the vendor). It may
	// depend on the machine and the settings, not on the machine's Seed:
	// the host reuses a description across machines that differ only by
	// seed (a sweep), checks it against the answer of the instance's
	// configure call when it reaches the plugin, and fails the run if
	// they differ.
	Describe() Description
	// Reset returns the instance to the state Configure left it in: every
	// interval back to its default, every interrupt stopped. The lab resets
	// an instance between runs. The answer should disable whatever
	// hardware the instance programmed (Programming.ResetAll does it all).
	Reset() (Programming, error)
	// QuerySource is HalQuerySystemInformation(HalProfileSourceInformation)
	// on each processor of cpus: one SourceInfo per processor, in order.
	QuerySource(cpus []int, src Source) ([]SourceInfo, error)
	// SetInterval is HalSetSystemInformation(HalProfileSourceInterval) on
	// each processor of cpus. interval is the kernel's value in the
	// source's units; the HAL clamps or quantises it and returns the
	// interval in effect afterwards on each processor (in order), with the
	// programming the change implies (a started source is reprogrammed).
	SetInterval(cpus []int, src Source, interval uint32) ([]uint32, Programming, error)
	// StartInterrupt is HalStartProfileInterrupt(src) on each processor of
	// cpus: the programming makes the lab raise src's interrupts there.
	StartInterrupt(cpus []int, src Source) (Programming, error)
	// StopInterrupt is HalStopProfileInterrupt(src) on each processor of
	// cpus: the programming stops src's interrupts there.
	StopInterrupt(cpus []int, src Source) (Programming, error)
}

// Factory makes a fresh, unconfigured HAL value. A plugin's main passes its
// factory to halrpc.Serve; haltest.Run takes the same factory.
type Factory func() HAL

// Configurable is a HAL with settings: the `[hal.NAME.settings]` table of
// proflab's TOML config.
type Configurable interface {
	// Settings returns a pointer to the HAL's settings struct, holding the
	// documented defaults. The SDK decodes the settings table into it
	// strictly (JSON field names, via `json:"name"` tags; an unknown key is
	// an error naming it) before Configure. Its JSON form on a fresh value
	// is the sample settings `proflab config init` prints.
	Settings() any
}

// TimerRefiller is a HAL that programs one-shot timer queues
// ([TimerProgram.OneShot]): when a processor's queue runs out the lab calls
// RefillTimer for every processor then empty, and appends the answer's
// periods. Make the batches large (hundreds of periods): each refill is a
// round trip to the plugin (0.1–0.25 ms).
type TimerRefiller interface {
	RefillTimer(cpus []int) (Programming, error)
}

// ControlAreaObserver is a HAL that wants to know when processors gain
// (present) or lose a PEBS control area
// (NtSetSystemInformation(SystemProcessorProfileControlArea)). Whether a
// processor may have one is the kernel's check, not the HAL's. A HAL does
// not need this to use PEBS: programming marked RequiresControlArea is
// simply not delivered where there is none.
type ControlAreaObserver interface {
	ControlArea(cpus []int, present bool) (Programming, error)
}

// InterruptHook is a HAL that must see every profile interrupt its
// programming raised (an exotic custom policy). The lab collects them and
// calls Interrupts with a packed batch (see [PackInterrupts]) of up to
// InterruptBatchMax records, at the end of each batch and at the end of a
// run; the answer's programming takes effect from then on.
//
// Cost: a record is 32 bytes; packing and unpacking cost 56–130 ns per
// record against ~50 ns for the lab's own handling of an interrupt, plus a
// gRPC round trip (0.1–0.25 ms) per batch. A run with a hooked HAL is
// therefore roughly 2–3 times slower than without. Use only if the HAL's
// programming really depends on what was sampled.
type InterruptHook interface {
	Interrupts(batch []Interrupt) (Programming, error)
}

// CounterReporter is a HAL that answers HalQuerySystemInformation with
// HalQueryProfileNumberOfCounters (HAL information class 0x2C, Windows 10
// 1903 and later): how many performance counters each processor has for
// profiling. From 1903 the kernel takes its limit on the counters one ETW
// logger may collect (SystemPerformanceTraceInformation sub-class 0x0F)
// from it: the largest count any of the machine's HALs reports
// (docs/reference/tracing.md#eventtraceprofilecounterlistinformation-0x0f).
// [Base] implements it (from Base.Counters); a HAL
// that is not a CounterReporter reports 0.
type CounterReporter interface {
	// NumberOfCounters returns the counters per processor, 0…MaxCounters;
	// 0 for a HAL with no counters (a timer HAL, or a PMU HAL whose
	// interface offers no counter sources).
	NumberOfCounters() (uint32, error)
}

// MaxCounters is the most counters a HAL may report: no x86 or x64
// processor has more general-purpose performance counters per processor.
const MaxCounters = 32

// InterruptBatchMax is the largest batch the lab hands an [InterruptHook].
const InterruptBatchMax = 4096

// Machine is what a HAL instance is told about the simulated machine.
type Machine struct {
	// CPUs is the number of processors, 1–64 (KeNumberProcessors).
	// Processor numbers in calls are 0 … CPUs-1.
	CPUs int
	// FreqMHz is every processor's clock in MHz (1 cycle per instruction
	// at base rate); 3000 by default.
	FreqMHz uint32
	// Vendor is the CPUID vendor string: VendorIntel or VendorAMD
	// (KPRCB.CpuVendor).
	Vendor string
	// Arch is "x86" or "x64".
	Arch string
	// Version is the modelled Windows version ("10.0.19041", "6.1", …);
	// empty means the lab's default, 10.0.19041.
	Version string
	// Seed seeds anything random the HAL does (skid draws, jitter): the
	// same seed must give the same programming.
	Seed uint64
}

// Description is what a HAL says about itself on a configured machine.
type Description struct {
	// Name is the HAL's own name ("apic"). The host names it by its
	// config key, which may differ.
	Name string
	// Version is the HAL's version, free form ("1.0.0").
	Version string
	// Sources are the sources the HAL supports on this machine, in
	// ascending source order, each at most once.
	Sources []SourceSpec
	// Settings is the JSON form of the HAL's default settings ("{}" or
	// empty if it has none); the SDK fills it in.
	Settings string
}

// SourceSpec describes one source a HAL supports (what
// TraceQueryInformation(TraceProfileSourceListInfo) reports,
// docs/reference/tracing.md#traceprofilesourcelistinfo-7).
type SourceSpec struct {
	// Source is the KPROFILE_SOURCE value.
	Source Source
	// Name is the source's name, "Profile" + Description
	// ("ProfileTotalIssues"). Empty means SourceName(vendor, Source).
	Name string
	// Description is the HAL's description string ("Timer",
	// "TotalIssues"). Empty means SourceDescription(vendor, Source).
	Description string
	// Units is the interval's unit: Units100ns or UnitsEvents.
	Units string
	// Bounds are the interval's minimum, maximum and default in Units
	// (Min <= Default <= Max, Min >= 1).
	Bounds Bounds
	// Precise means samples report the exact instruction (PEBS), with no
	// skid.
	Precise bool
}

// SourceInfo is HAL_PROFILE_SOURCE_INFORMATION's output part
// (docs/reference/hal.md#the-structures).
type SourceInfo struct {
	// Supported is the Supported BOOLEAN.
	Supported bool
	// Interval is the interval in effect, in the source's units.
	Interval uint32
}
