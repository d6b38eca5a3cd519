// Package workload is proflab's model of the programs a run profiles: images
// at base addresses holding functions (address ranges) with their share of
// execution and per-instruction behaviour, threads in processes with
// affinities, and kernel-mode activity (interrupt and DPC time) and idle
// time. A workload is data: a TOML file ([Load], [Parse]) or a Go value
// its caller builds (the Lua bindings convert lua-api.md's table forms in
// core/luart).
//
// [Spec.Resolve] checks a workload and fills every default, giving the
// [Resolved] form the execution engine (core/sim) runs. Errors are
// [FieldError]s naming the field as TOML users write it, with 1-based
// indexes (`process[1].function[2].size: must be > 0`).
//
// The package is a leaf: it imports no kernel, Lua, plugin or simulator
// code (imports_test.go keeps it so). The machine it is resolved for is
// described by a [Target].
package workload

import (
	"errors"
	"fmt"
	"math"
	"sort"
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
	Name string `toml:"name,omitempty"`
	// InstructionBytes is the size of one instruction (default 4).
	InstructionBytes uint64 `toml:"instruction_bytes,omitempty"`
	// QuantumUS is the scheduler's quantum in microseconds (default 10000).
	QuantumUS uint64 `toml:"quantum_us,omitempty"`
	// SegmentInstructions is the length of a run of one function before
	// the next is drawn by weight (default 10000).
	SegmentInstructions uint64 `toml:"segment_instructions,omitempty"`
	// Images hold functions at addresses. Kernel images are kernel mode.
	Images []Image `toml:"image,omitempty"`
	// Processes run threads that execute functions.
	Processes []Process `toml:"process,omitempty"`
	// Kernel is the kernel-mode activity of busy processors.
	Kernel Kernel `toml:"kernel,omitempty"`
}

// Image is an executable image: a base address and the functions in it.
type Image struct {
	// Name is the image's file name ("app.exe").
	Name string `toml:"name"`
	// Base is the image's load address; functions then give Offset.
	Base Address `toml:"base,omitempty"`
	// Kernel marks a kernel-mode image (a driver, ntoskrnl).
	Kernel bool `toml:"kernel,omitempty"`
	// Functions are the image's functions.
	Functions []Function `toml:"function,omitempty"`
}

// Function is an address range executed with its share of instructions
// and its per-instruction behaviour.
type Function struct {
	// Name is the function's name (unique in the workload).
	Name string `toml:"name"`
	// Base is the function's absolute address (when its image has no base).
	Base Address `toml:"base,omitempty"`
	// Offset is the function's offset from its image's base.
	Offset Address `toml:"offset,omitempty"`
	// Size is the function's size in bytes, > 0.
	Size uint64 `toml:"size"`
	// Weight is the function's share of its thread's instructions
	// (normalised over the functions the thread runs), >= 0.
	Weight float64 `toml:"weight"`
	// CPI is cycles per instruction (default 1).
	CPI float64 `toml:"cpi,omitempty"`
	// BranchRate is branches per instruction (0…1).
	BranchRate float64 `toml:"branch_rate,omitempty"`
	// MispredictRate is mispredicted branches per branch (0…1).
	MispredictRate float64 `toml:"mispredict_rate,omitempty"`
	// CacheMissRate is last-level cache misses per instruction (0…1).
	CacheMissRate float64 `toml:"cache_miss_rate,omitempty"`
	// CacheRefRate is last-level cache references per instruction (0…1).
	CacheRefRate float64 `toml:"cache_ref_rate,omitempty"`
	// Hotspots are sub-ranges with their share of the function's
	// instructions; the rest is spread over the whole function.
	Hotspots []Hotspot `toml:"hotspot,omitempty"`
	// LoopInstructions, when non-zero, makes the function a loop of that
	// many instructions from its base, repeated: the executing IP walks
	// the loop in order (no randomness), so a timer of a matching period
	// aliases with it.
	LoopInstructions uint64 `toml:"loop_instructions,omitempty"`
	// Caller names the function that calls this one (optional): the
	// workload's call structure, see [Resolved.Stack]. Each function has
	// at most one caller, so the functions form call trees; a sample in a
	// function gets the stack function ← caller ← caller's caller … .
	// Weight stays the function's own (self) share of execution: a
	// caller's inclusive time is its own plus its callees'.
	Caller string `toml:"caller,omitempty"`
}

// Hotspot is a sub-range of a function with its share of the function's
// instructions.
type Hotspot struct {
	// Offset from the function's start, in bytes.
	Offset uint64 `toml:"offset"`
	// Size in bytes, > 0.
	Size uint64 `toml:"size"`
	// Weight is the share of the function's instructions (0…1; the
	// weights of a function's hotspots add up to at most 1).
	Weight float64 `toml:"weight"`
}

// Process is a process of the workload and its threads.
type Process struct {
	// Name finds the process on the machine (the one a scenario made with
	// m:process{name = ...}); m:run refuses a name no process has (the
	// engine itself would create it with no privileges).
	Name string `toml:"name"`
	// Proc is the machine's process itself, when the caller holds it (the
	// Lua bindings attach the *kernel.Process of p); it takes precedence
	// over Name. The workload treats it as an opaque handle: the engine
	// (core/sim) requires a process of the machine it runs on.
	Proc ProcessHandle `toml:"-"`
	// Functions defined with the process (an anonymous image); a thread
	// without Run executes these.
	Functions []Function `toml:"function,omitempty"`
	// Threads of the process (default: one thread, all processors,
	// starting on processor 0, running the process's functions).
	Threads []Thread `toml:"thread,omitempty"`
}

// Thread is one thread of a process.
type Thread struct {
	// Affinity is the processors the thread may run on (0: all).
	Affinity uint64 `toml:"affinity,omitempty"`
	// CPU is the processor the thread starts on (default: the lowest its
	// affinity allows).
	CPU int `toml:"cpu,omitempty"`
	// Busy is the share of time the thread is runnable (default 1; after
	// each quantum it sleeps quantum×(1−busy)/busy).
	Busy float64 `toml:"busy,omitempty"`
	// Run lists the functions the thread executes with their weights
	// (default: the process's functions, else every user-mode function of
	// the images, with their own weights).
	Run []Share `toml:"run,omitempty"`
}

// Share names a function and its weight in a thread's or the kernel's mix.
type Share struct {
	// Function is the function's name.
	Function string `toml:"function"`
	// Weight is its share (normalised), >= 0; 0 takes the function's own
	// weight.
	Weight float64 `toml:"weight,omitempty"`
}

// Kernel is the kernel-mode activity on busy processors: the shares of
// their instructions spent in interrupt service routines and DPCs, at
// kernel addresses, so that the ISR/DPC flags of sampled profiles mean
// something.
type Kernel struct {
	// InterruptShare is the share of a busy processor's instructions in
	// ISRs (0…1).
	InterruptShare float64 `toml:"interrupt_share,omitempty"`
	// DPCShare is the share in DPCs (0…1; with InterruptShare below 1).
	DPCShare float64 `toml:"dpc_share,omitempty"`
	// ISR lists the ISR functions (kernel images' functions; default the
	// built-in KiInterruptDispatch).
	ISR []Share `toml:"isr,omitempty"`
	// DPC lists the DPC functions (default the built-in KiRetireDpcList).
	DPC []Share `toml:"dpc,omitempty"`
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

// FieldError is a workload error naming the field.
type FieldError struct {
	// Field is the path of the field ("process[1].thread[2].affinity").
	Field string
	// Msg says what is wrong.
	Msg string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

type checker struct{ errs []error }

func (c *checker) add(field, format string, args ...any) {
	c.errs = append(c.errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) rate(field string, v float64) {
	if math.IsNaN(v) || v < 0 || v > 1 {
		c.add(field, "must be between 0 and 1, got %v", v)
	}
}

func (c *checker) weight(field string, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		c.add(field, "must be >= 0, got %v", v)
	}
}

func join(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
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

	field string // where it was defined, for messages
}

// ResolvedThread is a thread with its function mix.
type ResolvedThread struct {
	Thread
	// Process is the thread's index in Resolved.Processes.
	Process int
	// Mix are the functions the thread runs (indexes into Resolved.Funcs)
	// with normalised weights.
	Mix []Weighted
}

// Weighted is a function index with a normalised weight.
type Weighted struct {
	Func   int
	Weight float64
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
	// ISR and DPC are the kernel activity's mixes.
	ISR, DPC []Weighted
	// Idle is the index of the idle loop function.
	Idle int
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

// Resolve checks the workload and fills its defaults for the target
// machine. Every problem is reported, each a [FieldError] naming its
// field, joined with errors.Join in the order the fields are checked.
func (s *Spec) Resolve(target Target) (*Resolved, error) {
	c := &checker{}
	sp := *s
	if sp.InstructionBytes == 0 {
		sp.InstructionBytes = DefaultInstructionBytes
	}
	if sp.QuantumUS == 0 {
		sp.QuantumUS = DefaultQuantumUS
	}
	if sp.SegmentInstructions == 0 {
		sp.SegmentInstructions = DefaultSegmentInstructions
	}
	if sp.InstructionBytes > 64 {
		c.add("instruction_bytes", "must be 1…64, got %d", sp.InstructionBytes)
	}
	if sp.QuantumUS > 10_000_000 {
		c.add("quantum_us", "must be at most 10000000 (10 s), got %d", sp.QuantumUS)
	}
	if len(sp.Processes) == 0 {
		c.add("process", "the workload has no process: give at least one with its functions")
	}
	r := &Resolved{}
	byName := map[string]int{}
	addFunc := func(field string, f Function, img *Image, proc int) {
		rf := Func{Function: f, Index: len(r.Funcs), Process: proc, field: field}
		if rf.CPI == 0 {
			rf.CPI = 1
		}
		if f.Name == "" {
			c.add(join(field, "name"), "must be given")
		} else if _, dup := byName[f.Name]; dup {
			c.add(join(field, "name"), "function %q is defined twice", f.Name)
		}
		if img != nil && img.Base != 0 {
			if f.Base != 0 {
				c.add(join(field, "base"), "the image has a base: give offset (from the image's base), not base")
			}
			rf.Addr = uint64(img.Base) + uint64(f.Offset)
			if rf.Addr < uint64(img.Base) {
				c.add(join(field, "offset"), "image base + offset overflows 64 bits")
			}
		} else {
			if f.Offset != 0 {
				c.add(join(field, "offset"), "offset needs an image base; give base (the absolute address)")
			}
			rf.Addr = uint64(f.Base)
		}
		if img != nil {
			rf.Image = img.Name
			if img.Kernel {
				rf.Mode = KernelMode
			}
		}
		if rf.Mode == User && rf.Addr > target.UserProbeAddress {
			rf.Mode = KernelMode
		}
		if f.Size == 0 {
			c.add(join(field, "size"), "must be > 0")
		} else if rf.Addr+f.Size-1 < rf.Addr {
			c.add(join(field, "size"), "base + size overflows 64 bits")
		} else if msg := outsideAddressSpace(target, rf.Addr, f.Size); msg != "" {
			name := "base"
			if img != nil && img.Base != 0 {
				name = "offset"
			}
			c.add(join(field, name), "%s", msg)
		}
		c.weight(join(field, "weight"), f.Weight)
		if math.IsNaN(rf.CPI) || rf.CPI < MinCPI || rf.CPI > 1000 {
			c.add(join(field, "cpi"), "must be between %v (%v instructions per cycle) and 1000, got %v", MinCPI, 1/MinCPI, f.CPI)
		}
		c.rate(join(field, "branch_rate"), f.BranchRate)
		c.rate(join(field, "mispredict_rate"), f.MispredictRate)
		c.rate(join(field, "cache_miss_rate"), f.CacheMissRate)
		c.rate(join(field, "cache_ref_rate"), f.CacheRefRate)
		rf.Instructions = max(1, f.Size/sp.InstructionBytes)
		var hot float64
		for j, h := range f.Hotspots {
			hf := fmt.Sprintf("%s.hotspot[%d]", field, j+1)
			if h.Size == 0 {
				c.add(join(hf, "size"), "must be > 0")
			}
			if h.Offset >= f.Size || h.Size > f.Size-h.Offset {
				c.add(hf, "offset 0x%X + size 0x%X is outside the function's 0x%X bytes", h.Offset, h.Size, f.Size)
			}
			c.rate(join(hf, "weight"), h.Weight)
			hot += h.Weight
		}
		if hot > 1+1e-9 {
			c.add(join(field, "hotspot"), "weights add up to %v, more than 1", hot)
		}
		if f.LoopInstructions > rf.Instructions {
			c.add(join(field, "loop_instructions"), "the loop's %d instructions do not fit the function's %d", f.LoopInstructions, rf.Instructions)
		}
		if f.LoopInstructions > 0 && len(f.Hotspots) > 0 {
			c.add(join(field, "hotspot"), "a loop function has no hotspots (its loop is its hot spot)")
		}
		byName[f.Name] = rf.Index
		r.Funcs = append(r.Funcs, rf)
	}
	for i := range sp.Images {
		img := &sp.Images[i]
		field := fmt.Sprintf("image[%d]", i+1)
		if img.Name == "" {
			c.add(join(field, "name"), "must be given")
		}
		for j, f := range img.Functions {
			addFunc(fmt.Sprintf("%s.function[%d]", field, j+1), f, img, -1)
		}
	}
	procField := func(i int) string { return fmt.Sprintf("process[%d]", i+1) }
	procFuncs := make([][]int, len(sp.Processes))
	for i := range sp.Processes {
		p := &sp.Processes[i]
		pf := procField(i)
		if p.Name == "" && p.Proc == nil {
			c.add(join(pf, "name"), "must be given (the process's name on the machine)")
		}
		for j, f := range p.Functions {
			procFuncs[i] = append(procFuncs[i], len(r.Funcs))
			addFunc(fmt.Sprintf("%s[%d]", join(pf, "function"), j+1), f, nil, i)
		}
	}
	// the built-in kernel image, unless the workload defines its names
	ki := kernelImage(target)
	for _, f := range ki.Functions {
		if _, ok := byName[f.Name]; !ok {
			addFunc("", f, &ki, -1)
		}
	}
	r.Idle = byName[IdleFunction]
	userFuncs := func() []Weighted {
		var out []Weighted
		for _, f := range r.Funcs {
			if f.Process < 0 && f.Mode == User {
				out = append(out, Weighted{f.Index, f.Weight})
			}
		}
		return out
	}
	mix := func(field string, shares []Share, def []Weighted) []Weighted {
		var out []Weighted
		if len(shares) == 0 {
			out = append(out, def...)
		}
		for j, sh := range shares {
			sf := fmt.Sprintf("%s[%d]", field, j+1)
			k, ok := byName[sh.Function]
			if !ok {
				c.add(join(sf, "function"), "no function named %q in the workload", sh.Function)
				continue
			}
			c.weight(join(sf, "weight"), sh.Weight)
			w := sh.Weight
			if w == 0 {
				w = r.Funcs[k].Weight
			}
			out = append(out, Weighted{k, w})
		}
		var sum float64
		for _, w := range out {
			sum += w.Weight
		}
		if math.IsInf(sum, 1) {
			// Weights near the largest float64 (two of 1e308) overflow the
			// sum: scale them by the largest first. (Finite sums keep the
			// plain division, so existing workloads draw the same numbers.)
			var top float64
			for _, w := range out {
				top = max(top, w.Weight)
			}
			sum = 0
			for i := range out {
				out[i].Weight /= top
				sum += out[i].Weight
			}
		}
		if len(out) > 0 && !(sum > 0) {
			c.add(field, "the weights add up to 0: give some function a weight > 0")
			return nil
		}
		for i := range out {
			out[i].Weight /= sum
		}
		return out
	}
	for i := range sp.Processes {
		p := &sp.Processes[i]
		pf := procField(i)
		if len(p.Threads) == 0 {
			p.Threads = []Thread{{}}
		}
		for j := range p.Threads {
			t := &p.Threads[j]
			tf := fmt.Sprintf("%s[%d]", join(pf, "thread"), j+1)
			if t.Busy == 0 {
				t.Busy = 1
			}
			if math.IsNaN(t.Busy) || t.Busy < 0 || t.Busy > 1 {
				c.add(join(tf, "busy"), "must be > 0 and at most 1, got %v", t.Busy)
			}
			if t.CPU < 0 || t.CPU >= 64 {
				c.add(join(tf, "cpu"), "must be a processor number 0…63, got %d", t.CPU)
			} else if t.Affinity != 0 && t.Affinity&(1<<t.CPU) == 0 {
				if t.CPU != 0 {
					c.add(join(tf, "cpu"), "processor %d is not in the affinity 0x%X", t.CPU, t.Affinity)
				}
			}
			var def []Weighted
			for _, k := range procFuncs[i] {
				def = append(def, Weighted{k, r.Funcs[k].Weight})
			}
			if len(def) == 0 {
				def = userFuncs()
			}
			rt := ResolvedThread{Thread: *t, Process: i, Mix: mix(join(tf, "run"), t.Run, def)}
			if len(rt.Mix) == 0 && len(t.Run) == 0 {
				c.add(tf, "has nothing to run: give the process functions, the thread a run list, or an image user-mode functions")
			}
			r.Threads = append(r.Threads, rt)
		}
	}
	k := &sp.Kernel
	c.rate("kernel.interrupt_share", k.InterruptShare)
	c.rate("kernel.dpc_share", k.DPCShare)
	if k.InterruptShare+k.DPCShare >= 1 {
		c.add("kernel", "interrupt_share + dpc_share must be below 1, got %v", k.InterruptShare+k.DPCShare)
	}
	r.ISR = mix("kernel.isr", k.ISR, []Weighted{{byName[ISRFunction], 1}})
	r.DPC = mix("kernel.dpc", k.DPC, []Weighted{{byName[DPCFunction], 1}})
	for _, set := range [][]Weighted{r.ISR, r.DPC} {
		for _, w := range set {
			if r.Funcs[w.Func].Mode != KernelMode {
				c.add("kernel", "function %q is not in a kernel image: ISRs and DPCs run in kernel mode", r.Funcs[w.Func].Name)
			}
		}
	}
	checkCallers(c, r, byName)
	if err := errors.Join(c.errs...); err != nil {
		return nil, err
	}
	// ranges must not overlap
	r.ByAddress = make([]int, len(r.Funcs))
	for i := range r.ByAddress {
		r.ByAddress[i] = i
	}
	sortByAddr(r)
	for i := 1; i < len(r.ByAddress); i++ {
		a, b := &r.Funcs[r.ByAddress[i-1]], &r.Funcs[r.ByAddress[i]]
		if a.Addr+a.Size > b.Addr {
			c.add("", "functions %q [0x%X, 0x%X) and %q [0x%X, 0x%X) overlap", a.Name, a.Addr, a.Addr+a.Size, b.Name, b.Addr, b.Addr+b.Size)
		}
	}
	if err := errors.Join(c.errs...); err != nil {
		return nil, err
	}
	sp.Images = append(append([]Image(nil), sp.Images...), ki)
	for i := range r.Funcs {
		if r.Funcs[i].CPI == 0 {
			r.Funcs[i].CPI = 1
		}
	}
	r.Spec = sp
	return r, nil
}

func sortByAddr(r *Resolved) {
	idx := r.ByAddress
	sort.SliceStable(idx, func(i, j int) bool { return r.Funcs[idx[i]].Addr < r.Funcs[idx[j]].Addr })
}

// FuncAt returns the function holding addr, or -1.
func (r *Resolved) FuncAt(addr uint64) int {
	lo, hi := 0, len(r.ByAddress)
	for lo < hi {
		mid := (lo + hi) / 2
		if r.Funcs[r.ByAddress[mid]].Addr <= addr {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return -1
	}
	f := &r.Funcs[r.ByAddress[lo-1]]
	if addr-f.Addr < f.Size {
		return f.Index
	}
	return -1
}
