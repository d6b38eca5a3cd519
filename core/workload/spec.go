// Package workload is proflab's model of the programs a run profiles: images
// at base addresses holding functions (address ranges) with their share of
// execution and per-instruction behaviour, threads in processes with
// affinities, and kernel-mode activity (interrupt and DPC time) and idle
// time. A workload is data: a TOML file ([Load], [Parse]), the same keys
// in a table as Lua scenarios write it ([DecodeTable], from plain Go
// values the Lua runtime converts the table to), or a Go value its caller
// builds (core/workload/importer and the packages below it build them
// from real programs' profiles; this package knows nothing of them). Each field's TOML key and its keys in a table are declared
// together, in its struct tags (`toml:"thread" lua:"thread,threads"`).
//
// [Spec.Resolve] checks a workload and fills every default, giving the
// [Resolved] form the execution engine (core/sim) runs. Errors are
// [FieldError]s naming the field as the workload's source spells it, with
// 1-based indexes: `process[1].function[2].size: must be > 0` for a TOML
// file, `processes[1].functions[2].size` for a table that says
// `processes` and `functions` (see [Spec.Field]).
//
// The package is a leaf: it imports no kernel, Lua, plugin or simulator
// code (imports_test.go keeps it so). The machine it is resolved for is
// described by a [Target].
package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// Defaults of a workload's fields.
const (
	// DefaultInstructionBytes is the size of one instruction: IPs within a
	// function are base + k×InstructionBytes.
	DefaultInstructionBytes = 4
	// DefaultQuantumUS is the scheduler's quantum in microseconds.
	DefaultQuantumUS = 10000
	// DefaultSegmentInstructions is how many instructions a thread runs in
	// one function before drawing the next function by weight.
	DefaultSegmentInstructions = 10000
	// MinCPI is the smallest cycles per instruction a function may have:
	// 100 instructions per cycle, far beyond any processor; smaller values
	// would let the simulator run no cycles at all.
	MinCPI = 0.01
	// DefaultKernelImage is the name of the built-in kernel image holding
	// the idle loop and the default ISR and DPC functions.
	DefaultKernelImage = "ntoskrnl.exe"
	// IdleFunction, ISRFunction and DPCFunction are the built-in kernel
	// functions of the idle context and of interrupt and DPC time.
	IdleFunction = "KiIdleLoop"
	ISRFunction  = "KiInterruptDispatch"
	DPCFunction  = "KiRetireDpcList"
)

// Address is a 64-bit address. In TOML it is an integer (hex literals
// welcome) or, above 2^63 where TOML integers stop, a string
// ("0xFFFFF80000001000").
type Address uint64

// UnmarshalText reads a decimal or 0x-prefixed hexadecimal address.
func (a *Address) UnmarshalText(b []byte) error {
	s := strings.ReplaceAll(strings.TrimSpace(string(b)), "_", "")
	if strings.HasPrefix(s, "-") {
		return fmt.Errorf("address %q is negative", s)
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return fmt.Errorf("address %q: want an integer or a string such as \"0xFFFFF80000001000\"", s)
	}
	*a = Address(v)
	return nil
}

// MarshalText writes the address as 0x-prefixed upper-case hexadecimal.
func (a Address) MarshalText() ([]byte, error) {
	return []byte(fmt.Sprintf("0x%X", uint64(a))), nil
}

// String is the 0x-prefixed hexadecimal form.
func (a Address) String() string { return fmt.Sprintf("0x%X", uint64(a)) }

// Spec is a workload as written. Zero fields take their defaults in
// [Spec.Resolve].
type Spec struct {
	// Name names the workload in outputs (optional).
	Name string `toml:"name,omitempty" lua:"name"`
	// InstructionBytes is the size of one instruction (default 4).
	InstructionBytes uint64 `toml:"instruction_bytes,omitempty,omitzero" lua:"instruction_bytes"`
	// QuantumUS is the scheduler's quantum in microseconds (default 10000).
	QuantumUS uint64 `toml:"quantum_us,omitempty,omitzero" lua:"quantum_us"`
	// SegmentInstructions is the length of a run of one function before
	// the next is drawn by weight (default 10000).
	SegmentInstructions uint64 `toml:"segment_instructions,omitempty,omitzero" lua:"segment_instructions"`
	// Images hold functions at addresses. Kernel images are kernel mode.
	Images []Image `toml:"image,omitempty" lua:"image,images"`
	// Processes run threads that execute functions.
	Processes []Process `toml:"process,omitempty" lua:"process,processes"`
	// Kernel is the kernel-mode activity of busy processors.
	Kernel Kernel `toml:"kernel,omitempty" lua:"kernel"`
	// CreateProcesses makes a run create, for the run, the processes the
	// workload names that the machine does not have (with the token a
	// normal process gets). Imported workloads set it; a hand-written
	// workload leaves it false, and then an unknown process is an error.
	CreateProcesses bool `toml:"create_processes,omitempty,omitzero" lua:"create_processes"`

	// spelling is how the table the workload was decoded from spelled its
	// keys (nil: as TOML does), for the errors (see Field).
	spelling *spelling
}

// Image is an executable image: a base address and the functions in it.
type Image struct {
	// Name is the image's file name ("app.exe").
	Name string `toml:"name" lua:"name"`
	// Base is the image's load address; functions then give Offset.
	Base Address `toml:"base,omitempty,omitzero" lua:"base"`
	// Kernel marks a kernel-mode image (a driver, ntoskrnl).
	Kernel bool `toml:"kernel,omitempty,omitzero" lua:"kernel"`
	// Functions are the image's functions.
	Functions []Function `toml:"function,omitempty" lua:"function,functions"`
}

// Function is an address range executed with its share of instructions
// and its per-instruction behaviour.
type Function struct {
	// Name is the function's name, unique in its image (or its process's
	// own functions); references qualify a name defined in several images
	// as "image!name".
	Name string `toml:"name" lua:"name"`
	// Inline marks a function the compiler inlined everywhere: it has no
	// code of its own, so it owns no address (no base, offset, size,
	// hotspot or loop) and no rates, and it runs only as a frame of a
	// stack, inlined into the frame after it (see [Stack.Inlined]); its
	// weight is 0 and no run list or caller names it. An address-based
	// profile (buckets, a PE symbol lookup) charges its time to the
	// function it is inlined into, while its truth and the profiles'
	// stacks keep it as a function.
	Inline bool `toml:"inline,omitempty,omitzero" lua:"inline"`
	// Base is the function's absolute address (when its image has no base).
	Base Address `toml:"base,omitempty,omitzero" lua:"base"`
	// Offset is the function's offset from its image's base.
	Offset Address `toml:"offset,omitempty,omitzero" lua:"offset"`
	// Size is the function's size in bytes, > 0 (an inline function has
	// none).
	Size uint64 `toml:"size,omitzero" lua:"size"`
	// Weight is the function's share of its thread's instructions
	// (normalised over the functions the thread runs), >= 0.
	Weight float64 `toml:"weight" lua:"weight"`
	// CPI is cycles per instruction (default 1).
	CPI float64 `toml:"cpi,omitempty,omitzero" lua:"cpi"`
	// BranchRate is branches per instruction (0…1).
	BranchRate float64 `toml:"branch_rate,omitempty,omitzero" lua:"branch_rate"`
	// MispredictRate is mispredicted branches per branch (0…1).
	MispredictRate float64 `toml:"mispredict_rate,omitempty,omitzero" lua:"mispredict_rate"`
	// CacheMissRate is last-level cache misses per instruction (0…1).
	CacheMissRate float64 `toml:"cache_miss_rate,omitempty,omitzero" lua:"cache_miss_rate"`
	// CacheRefRate is last-level cache references per instruction (0…1).
	CacheRefRate float64 `toml:"cache_ref_rate,omitempty,omitzero" lua:"cache_ref_rate"`
	// Hotspots are sub-ranges with their share of the function's
	// instructions; the rest is spread over the whole function.
	Hotspots []Hotspot `toml:"hotspot,omitempty" lua:"hotspot,hotspots"`
	// LoopInstructions, when non-zero, makes the function a loop of that
	// many instructions from its base, repeated: the executing IP walks
	// the loop in order (no randomness), so a timer of a matching period
	// aliases with it.
	LoopInstructions uint64 `toml:"loop_instructions,omitempty,omitzero" lua:"loop_instructions"`
	// Caller names the function that calls this one (optional): the
	// workload's call structure, see [Resolved.Stack]. Each function has
	// at most one caller, so the functions form call trees; a sample in a
	// function gets the stack function ← caller ← caller's caller … .
	// Weight stays the function's own (self) share of execution: a
	// caller's inclusive time is its own plus its callees'.
	Caller string `toml:"caller,omitempty" lua:"caller"`
}

// Hotspot is a sub-range of a function with its share of the function's
// instructions.
type Hotspot struct {
	// Offset from the function's start, in bytes.
	Offset uint64 `toml:"offset" lua:"offset"`
	// Size in bytes, > 0.
	Size uint64 `toml:"size" lua:"size"`
	// Weight is the share of the function's instructions (0…1; the
	// weights of a function's hotspots add up to at most 1).
	Weight float64 `toml:"weight" lua:"weight"`
}

// Process is a process of the workload and its threads.
type Process struct {
	// Name finds the process on the machine (the one a scenario made with
	// m:process{name = ...}); m:run refuses a name no process has (the
	// engine itself would create it with no privileges).
	Name string `toml:"name" lua:"name"`
	// Proc is the machine's process itself, when the caller holds it (the
	// Lua bindings attach the *kernel.Process of p); it takes precedence
	// over Name. The workload treats it as an opaque handle: the engine
	// (core/sim) requires a process of the machine it runs on.
	Proc ProcessHandle `toml:"-" lua:"proc"`
	// Functions defined with the process (an anonymous image); a thread
	// without Run executes these.
	Functions []Function `toml:"function,omitempty" lua:"function,functions"`
	// Stacks are the process's calling contexts with their weights: a
	// thread that lists neither Run nor Stacks of its own runs these.
	Stacks []Stack `toml:"stack,omitempty" lua:"stack,stacks"`
	// Threads of the process (default: one thread, all processors,
	// starting on processor 0, running the process's stacks, else its
	// functions).
	Threads []Thread `toml:"thread,omitempty" lua:"thread,threads"`
}

// Stack is a calling context: the functions on the stack, leaf first, and
// its share of its thread's instructions. The leaf's code is what runs;
// the frames above it are its callers, outermost last. A frame names a
// function as a function reference does (see [Share]).
//
// A frame may be inlined into the frame after it (its caller): its code
// is part of its caller's, as a compiler's inlining makes it, so the
// code that runs is that of the innermost frame that is not inlined
// (the physical function), at its addresses, with its rates. The
// inlined frames stay frames of the stack: the truth per function
// counts the stack's execution as the leaf's own, and the profiles'
// stacks keep them (a pprof location with several lines).
type Stack struct {
	// Frames are function references, leaf first; at least one.
	Frames []string `toml:"frames" lua:"frames"`
	// Inlined are the positions in Frames (1 is the leaf) of the frames
	// inlined into the frame after them. A frame of an [Function.Inline]
	// function is inlined whether or not it is listed; the outermost
	// frame cannot be.
	Inlined []int `toml:"inlined,omitempty" lua:"inlined"`
	// Weight is the stack's share (normalised over the thread's stacks),
	// >= 0.
	Weight float64 `toml:"weight" lua:"weight"`
}

// Thread is one thread of a process.
type Thread struct {
	// Affinity is the processors the thread may run on (0: all).
	Affinity uint64 `toml:"affinity,omitempty,omitzero" lua:"affinity"`
	// CPU is the processor the thread starts on (default: the lowest its
	// affinity allows).
	CPU int `toml:"cpu,omitempty,omitzero" lua:"cpu"`
	// Busy is the share of time the thread is runnable (default 1; after
	// each quantum it sleeps quantum×(1−busy)/busy).
	Busy float64 `toml:"busy,omitempty,omitzero" lua:"busy"`
	// Run lists the functions the thread executes with their weights
	// (default: the thread's stacks, else the process's, else the
	// process's functions, else every user-mode function of the images,
	// with their own weights).
	Run []Share `toml:"run,omitempty" lua:"run"`
	// Stacks are the thread's own calling contexts (instead of Run).
	Stacks []Stack `toml:"stack,omitempty" lua:"stack,stacks"`
}

// Share names a function and its weight in a thread's or the kernel's mix.
//
// A function reference (Share.Function, Function.Caller, a stack's
// frames) is a function's name, or "image!name" where several images
// define the name (a process's own functions: "process!name").
type Share struct {
	// Function is the function's name.
	Function string `toml:"function" lua:"function"`
	// Weight is its share (normalised), >= 0; 0 takes the function's own
	// weight.
	Weight float64 `toml:"weight,omitempty,omitzero" lua:"weight"`
}

// Kernel is the kernel-mode activity on busy processors: the shares of
// their instructions spent in interrupt service routines and DPCs, at
// kernel addresses, so that the ISR/DPC flags of sampled profiles mean
// something.
type Kernel struct {
	// InterruptShare is the share of a busy processor's instructions in
	// ISRs (0…1).
	InterruptShare float64 `toml:"interrupt_share,omitempty,omitzero" lua:"interrupt_share"`
	// DPCShare is the share in DPCs (0…1; with InterruptShare below 1).
	DPCShare float64 `toml:"dpc_share,omitempty,omitzero" lua:"dpc_share"`
	// ISR lists the ISR functions (kernel images' functions; default the
	// built-in KiInterruptDispatch).
	ISR []Share `toml:"isr,omitempty" lua:"isr"`
	// DPC lists the DPC functions (default the built-in KiRetireDpcList).
	DPC []Share `toml:"dpc,omitempty" lua:"dpc"`
}

// ProcessHandle is a machine's process as a workload's caller holds it
// (core/sim wants a *kernel.Process); the workload only asks its name.
type ProcessHandle interface {
	// Name is the process's image name.
	Name() string
}

// OneProcess is the workload of one process running fns: one thread,
// starting on processor 0, executing them with their weights. p names the
// process (and may be nil when name is given).
func OneProcess(name string, p ProcessHandle, fns []Function) *Spec {
	if p != nil {
		name = p.Name()
	}
	return &Spec{Processes: []Process{{Name: name, Proc: p, Functions: fns}}}
}

// Mode is the processor mode a function runs in.
type Mode uint8

// Function modes.
const (
	User Mode = iota
	KernelMode
)

// Func is a resolved function: absolute address, instruction count and
// every rate filled.
type Func struct {
	Function
	// Index is the function's index in Resolved.Funcs.
	Index int
	// Image is the image's name ("" for a process's own functions).
	Image string
	// Addr is the function's absolute start address.
	Addr uint64
	// Instructions is the number of instruction slots (Size / instruction
	// bytes, at least 1).
	Instructions uint64
	// Mode is the function's processor mode.
	Mode Mode
	// Process is the process whose functions list defined it (-1: an
	// image's).
	Process int
	// Caller is the index in Resolved.Funcs of the function's caller
	// (-1: none); see Function.Caller.
	Caller int
	// An Inline function (Function.Inline) has no address: Addr, Size
	// and Instructions are 0 and ByAddress does not list it.

	field funcField // where it was defined, for messages
	owner string    // its image's or process's name, which qualifies it
}

// Builtin reports whether f is one of the lab's built-in kernel
// functions (the idle loop, ISR and DPC time) that the workload did not
// define: code of the lab, in the image DefaultKernelImage, not of the
// workload.
func (f *Func) Builtin() bool { return f.field.img < 0 && f.field.proc < 0 }

// Ref is the function's qualified reference, "image!name" (a process's
// own functions: "process!name").
func (f *Func) Ref() string { return qualify(f.owner, f.Name) }

// ResolvedThread is a thread with its function mix.
type ResolvedThread struct {
	Thread
	// Process is the thread's index in Resolved.Processes.
	Process int
	// Mix are the functions the thread runs (indexes into Resolved.Funcs)
	// with normalised weights.
	Mix []Weighted
}

// Weighted is a function index with a normalised weight, and the
// calling context it runs in.
type Weighted struct {
	// Func is the function that executes: a stack's leaf, or the
	// function the leaf is inlined into (the stack's innermost frame
	// that is not inlined, see ResolvedStack.Physical).
	Func int
	// Weight is the normalised share.
	Weight float64
	// Stack is the index in Resolved.Stacks of the calling context, or
	// NoStack for a function drawn on its own (its stack is then its
	// caller chain, see Resolved.Stack).
	Stack int
}

// NoStack is Weighted.Stack of a function drawn without a stack of its own.
const NoStack = -1

// ResolvedStack is a calling context of the workload: function indexes,
// leaf first.
type ResolvedStack struct {
	Frames []int
	// Inlined says, per frame, whether it is inlined into the frame
	// after it; nil when none is.
	Inlined []bool
}

// IsInlined reports whether frame i is inlined into frame i+1.
func (s *ResolvedStack) IsInlined(i int) bool { return i < len(s.Inlined) && s.Inlined[i] }

// Physical is the index in Frames of the frame whose code runs: the
// innermost frame that is not inlined (0 when the leaf is not).
func (s *ResolvedStack) Physical() int {
	i := 0
	for i < len(s.Frames)-1 && s.IsInlined(i) {
		i++
	}
	return i
}

// Resolved is a checked workload with every default filled, for one
// machine architecture.
type Resolved struct {
	// Spec is the workload with its defaults written in (what the
	// resolved-config output shows).
	Spec Spec
	// Funcs are every function, images' first, then processes', then the
	// built-in kernel functions; sorted by nothing (see ByAddress).
	Funcs []Func
	// ByAddress are indexes of Funcs in address order.
	ByAddress []int
	// Threads are every thread of every process, in order.
	Threads []ResolvedThread
	// Stacks are the calling contexts the threads draw (Weighted.Stack),
	// each distinct list of frames once.
	Stacks []ResolvedStack
	// ISR and DPC are the kernel activity's mixes.
	ISR, DPC []Weighted
	// Idle is the index of the idle loop function.
	Idle int

	names *names
}

// Target is the machine a workload is resolved for.
type Target struct {
	// X86 selects the 32-bit layout: the built-in kernel image loads at
	// 0x80400000 rather than 0xFFFFF80000000000, and every address is
	// below 4 GB.
	X86 bool
	// UserProbeAddress is the machine's MmUserProbeAddress: a function
	// above it that no kernel image holds runs in kernel mode.
	UserProbeAddress uint64
}

// outsideAddressSpace says why [addr, addr+size) cannot exist on the
// target machine, or returns "": an x86 machine's addresses are 32 bits
// (0 … 0xFFFFFFFF); an x64 machine's are canonical, user space 0 …
// 0x7FFFFFFFFFFF and system space from 0xFFFF800000000000, a range lying
// in one of them.
func outsideAddressSpace(t Target, addr, size uint64) string {
	last := addr + size - 1
	if t.X86 {
		if last > 0xFFFFFFFF {
			return fmt.Sprintf("0x%X…0x%X lies above the x86 machine's 4 GB address space (0x0…0xFFFFFFFF): use an address below 0x80000000 for user code or from 0x80000000 for kernel code, or make the machine x64", addr, last)
		}
		return ""
	}
	const userEnd, systemStart = 0x7FFFFFFFFFFF, 0xFFFF800000000000
	if (last <= userEnd) || (addr >= systemStart) {
		return ""
	}
	return fmt.Sprintf("0x%X…0x%X is not in the x64 machine's address space (user 0x0…0x7FFFFFFFFFFF, system from 0xFFFF800000000000: the addresses between are not canonical)", addr, last)
}

// kernelImage is the built-in kernel image for t.
func kernelImage(t Target) Image {
	base := Address(0xFFFFF80000000000)
	if t.X86 {
		base = 0x80400000
	}
	return Image{Name: DefaultKernelImage, Base: base, Kernel: true, Functions: []Function{
		{Name: IdleFunction, Offset: 0x1000, Size: 0x100, LoopInstructions: 16},
		{Name: ISRFunction, Offset: 0x2000, Size: 0x400},
		{Name: DPCFunction, Offset: 0x3000, Size: 0x800},
	}}
}
