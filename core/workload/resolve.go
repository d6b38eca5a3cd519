package workload

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Resolve checks the workload and fills its defaults for the target
// machine. Every problem is reported, each a [FieldError] naming its
// field, joined with errors.Join in the order the fields are checked. The
// workload s is left as it was: the result holds a copy with its
// defaults filled in (Resolved.Spec).
func (s *Spec) Resolve(target Target) (*Resolved, error) {
	rs := newResolver(s, target)
	rs.checkSpec()
	rs.addImages()
	procFuncs := rs.addProcessFunctions()
	if rs.reportAbove4GB() {
		// the rest depends on where the functions lie (a function above
		// 4 GB would count as kernel code): this error is the one to fix
		return nil, errors.Join(rs.c.errs...)
	}
	ki := rs.addKernelImage()
	rs.r.Idle = rs.builtin(IdleFunction)
	rs.resolveThreads(procFuncs)
	rs.resolveKernel()
	checkCallers(rs.c, rs.r, rs.names)
	if err := errors.Join(rs.c.errs...); err != nil {
		return nil, err
	}
	rs.indexByAddress()
	if err := errors.Join(rs.c.errs...); err != nil {
		return nil, err
	}
	rs.sp.Images = append(rs.sp.Images, ki)
	rs.r.Spec = rs.sp
	rs.r.names = rs.names
	return rs.r, nil
}

// resolver is one resolution: the copy of the workload it fills, the
// result it builds and the problems found.
type resolver struct {
	c      *checker
	target Target
	sp     Spec // a copy of the workload, defaults filled
	r      *Resolved
	names  *names // functions by reference
	// stacks finds a resolved stack by the hash of its frames (for
	// sharing): the first of that hash; sameHash chains the others
	stacks   map[uint64]int
	sameHash []int
	// procStacks are the processes' resolved stacks (shared by their
	// threads)
	procStacks map[*Process][]Weighted
	// above4GB are the functions an x86 machine cannot hold: how many,
	// and the first's field and addresses (reportAbove4GB)
	above4GB      int
	firstAbove4GB string
}

// newResolver copies s deeply enough that filling its defaults (threads,
// busy shares) never writes into the caller's workload, and fills the
// workload-wide defaults.
func newResolver(s *Spec, target Target) *resolver {
	sp := *s
	sp.Images = slices.Clone(s.Images)
	sp.Processes = slices.Clone(s.Processes)
	for i := range sp.Processes {
		sp.Processes[i].Threads = slices.Clone(sp.Processes[i].Threads)
	}
	if sp.InstructionBytes == 0 {
		sp.InstructionBytes = DefaultInstructionBytes
	}
	if sp.QuantumUS == 0 {
		sp.QuantumUS = DefaultQuantumUS
	}
	if sp.SegmentInstructions == 0 {
		sp.SegmentInstructions = DefaultSegmentInstructions
	}
	nStacks := countStacks(&sp)
	r := &Resolved{Stacks: make([]ResolvedStack, 0, nStacks), Funcs: make([]Func, 0, countFuncs(&sp))}
	return &resolver{c: &checker{spelling: s.spelling}, target: target, sp: sp, r: r, names: newNames(),
		stacks: make(map[uint64]int, nStacks), sameHash: make([]int, 0, nStacks), procStacks: map[*Process][]Weighted{}}
}

// checkSpec checks the workload-wide fields.
func (rs *resolver) checkSpec() {
	sp, c := &rs.sp, rs.c
	if sp.InstructionBytes > 64 {
		c.add("instruction_bytes", "must be 1…64, got %d", sp.InstructionBytes)
	}
	if sp.QuantumUS > 10_000_000 {
		c.add("quantum_us", "must be at most 10000000 (10 s), got %d", sp.QuantumUS)
	}
	if len(sp.Processes) == 0 {
		c.add("process", "the workload has no process: give at least one with its functions")
	}
}

// addImages adds the images' functions.
func (rs *resolver) addImages() {
	for i := range rs.sp.Images {
		img := &rs.sp.Images[i]
		field := fmt.Sprintf("image[%d]", i+1)
		if img.Name == "" {
			rs.c.add(join(field, "name"), "must be given")
		}
		for j, f := range img.Functions {
			rs.addFunc(funcField{img: i, proc: -1, j: j}, f, img, -1, img.Name)
		}
	}
}

// addProcessFunctions adds the processes' own functions and returns the
// indexes of each process's.
func (rs *resolver) addProcessFunctions() [][]int {
	procFuncs := make([][]int, len(rs.sp.Processes))
	for i := range rs.sp.Processes {
		p := &rs.sp.Processes[i]
		pf := procField(i)
		if p.Name == "" && p.Proc == nil {
			rs.c.add(join(pf, "name"), "must be given (the process's name on the machine)")
		}
		for j, f := range p.Functions {
			procFuncs[i] = append(procFuncs[i], len(rs.r.Funcs))
			rs.addFunc(funcField{img: -1, proc: i, j: j}, f, nil, i, processName(p))
		}
	}
	return procFuncs
}

// addKernelImage adds the built-in kernel image's functions whose names
// the workload does not define, and returns the image.
func (rs *resolver) addKernelImage() Image {
	ki := kernelImage(rs.target)
	for _, f := range ki.Functions {
		if !rs.names.has(f.Name) {
			rs.addFunc(funcField{img: -1, proc: -1}, f, &ki, -1, ki.Name)
		}
	}
	return ki
}

func procField(i int) string { return fmt.Sprintf("process[%d]", i+1) }

// processName is the name a process's own functions are qualified by.
func processName(p *Process) string {
	if p.Proc != nil {
		return p.Proc.Name()
	}
	return p.Name
}

// builtin is the index of the built-in kernel function name (or of the
// workload's function of that name, which replaces it).
func (rs *resolver) builtin(name string) int {
	k, msg := rs.names.find(name, rs.r.Funcs)
	if k < 0 {
		rs.c.add("", "%s", msg)
		return 0
	}
	return k
}

// funcField is where a function was defined: image[img+1].function[j+1]
// or process[proc+1].function[j+1] (neither: the built-in kernel image).
// Its name is made only for a message: an imported workload has
// thousands of functions.
type funcField struct{ img, proc, j int }

func (ff funcField) String() string {
	switch {
	case ff.img >= 0:
		return fmt.Sprintf("image[%d].function[%d]", ff.img+1, ff.j+1)
	case ff.proc >= 0:
		return fmt.Sprintf("%s.function[%d]", procField(ff.proc), ff.j+1)
	}
	return ""
}

// addFunc checks the function f (of img, or of process proc) defined at
// ff and adds it; owner is the image's or the process's name.
func (rs *resolver) addFunc(ff funcField, f Function, img *Image, proc int, owner string) {
	c := rs.c
	rf := Func{Function: f, Index: len(rs.r.Funcs), Process: proc, field: ff, owner: owner}
	if rf.CPI == 0 {
		rf.CPI = 1
	}
	if f.Name == "" {
		c.add(join(ff.String(), "name"), "must be given")
	} else if rs.names.define(rs.r.Funcs, owner, f.Name, rf.Index) {
		c.add(join(ff.String(), "name"), "function %q is defined twice", f.Name)
	}
	if f.Inline {
		rs.addInline(&rf, f, ff, img)
		return
	}
	rs.place(&rf, ff, img)
	if !validWeight(f.Weight) {
		c.weight(join(ff.String(), "weight"), f.Weight)
	}
	if math.IsNaN(rf.CPI) || rf.CPI < MinCPI || rf.CPI > 1000 {
		c.add(join(ff.String(), "cpi"), "must be between %v (%v instructions per cycle) and 1000, got %v", MinCPI, 1/MinCPI, f.CPI)
	}
	for _, r := range [...]struct {
		name string
		v    float64
	}{{"branch_rate", f.BranchRate}, {"mispredict_rate", f.MispredictRate}, {"cache_miss_rate", f.CacheMissRate}, {"cache_ref_rate", f.CacheRefRate}} {
		if !validRate(r.v) {
			c.rateOf(ff.String(), r.name, r.v)
		}
	}
	rf.Instructions = max(1, f.Size/rs.sp.InstructionBytes)
	rs.checkHotspots(ff, f, rf.Instructions)
	rs.r.Funcs = append(rs.r.Funcs, rf)
}

// addInline checks and adds an inline function (Function.Inline): it has
// no code, so every field about code is an error.
func (rs *resolver) addInline(rf *Func, f Function, ff funcField, img *Image) {
	c := rs.c
	const why = "an inline function has no code of its own (it runs inlined into the frame after it in its stacks)"
	for _, x := range [...]struct {
		name string
		set  bool
	}{
		{"base", f.Base != 0}, {"offset", f.Offset != 0}, {"size", f.Size != 0}, {"hotspot", len(f.Hotspots) > 0},
		{"loop_instructions", f.LoopInstructions != 0}, {"weight", f.Weight != 0}, {"cpi", f.CPI != 0},
		{"branch_rate", f.BranchRate != 0}, {"mispredict_rate", f.MispredictRate != 0},
		{"cache_miss_rate", f.CacheMissRate != 0}, {"cache_ref_rate", f.CacheRefRate != 0},
	} {
		if x.set {
			c.add(join(ff.String(), x.name), "must not be given: %s, so it has no address, weight or rates: its caller's code runs", why)
		}
	}
	if f.Caller != "" {
		c.add(join(ff.String(), "caller"), "must not be given: %s; its callers are the frames after it in each stack", why)
	}
	rf.Function = f // no default CPI: none of its code runs
	if img != nil {
		rf.Image = img.Name
		if img.Kernel {
			rf.Mode = KernelMode
		}
	}
	rs.r.Funcs = append(rs.r.Funcs, *rf)
}

// place sets the function's absolute address, image and mode, and checks
// that it fits the target's address space.
func (rs *resolver) place(rf *Func, ff funcField, img *Image) {
	c, f := rs.c, rf.Function
	if img != nil && img.Base != 0 {
		if f.Base != 0 {
			c.add(join(ff.String(), "base"), "the image has a base: give offset (from the image's base), not base")
		}
		rf.Addr = uint64(img.Base) + uint64(f.Offset)
		if rf.Addr < uint64(img.Base) {
			c.add(join(ff.String(), "offset"), "image base + offset overflows 64 bits")
		}
	} else {
		if f.Offset != 0 {
			c.add(join(ff.String(), "offset"), "offset needs an image base; give base (the absolute address)")
		}
		rf.Addr = uint64(f.Base)
	}
	if img != nil {
		rf.Image = img.Name
		if img.Kernel {
			rf.Mode = KernelMode
		}
	}
	if rf.Mode == User && rf.Addr > rs.target.UserProbeAddress {
		rf.Mode = KernelMode
	}
	if f.Size == 0 {
		c.add(join(ff.String(), "size"), "must be > 0")
	} else if rf.Addr+f.Size-1 < rf.Addr {
		c.add(join(ff.String(), "size"), "base + size overflows 64 bits")
	} else if msg := outsideAddressSpace(rs.target, rf.Addr, f.Size); msg != "" {
		name := "base"
		if img != nil && img.Base != 0 {
			name = "offset"
		}
		if rs.target.X86 {
			// said once for the whole workload (reportAbove4GB)
			rs.above4GB++
			if rs.above4GB == 1 {
				rs.firstAbove4GB = fmt.Sprintf("%s: 0x%X…0x%X", c.spelling.field(join(ff.String(), name)), rf.Addr, rf.Addr+f.Size-1)
			}
			return
		}
		c.add(join(ff.String(), name), "%s", msg)
	}
}

// reportAbove4GB says in one line that functions lie above an x86
// machine's 4 GB, and what to do, and reports whether it did: an x64
// workload gave one such error per function (47 to 140 lines for an
// imported profile) and never said to import it for x86. One function of
// a hand-written workload keeps its field's error.
func (rs *resolver) reportAbove4GB() bool {
	switch {
	case rs.above4GB == 0:
		return false
	case rs.above4GB == 1 && !rs.sp.CreateProcesses:
		field, addrs, _ := strings.Cut(rs.firstAbove4GB, ": ")
		rs.c.errs = append(rs.c.errs, &FieldError{Field: field, Msg: addrs + " lies above the x86 machine's 4 GB address space (0x0…0xFFFFFFFF): use an address below 0x80000000 for user code or from 0x80000000 for kernel code, or make the machine x64"})
		return true
	}
	more, verb := "", "lie"
	switch {
	case rs.above4GB == 2:
		more = " and 1 more function"
	case rs.above4GB > 2:
		more = fmt.Sprintf(" and %d more functions", rs.above4GB-1)
	default:
		verb = "lies"
	}
	advice := "move its images below 4 GB (user code below 0x80000000, kernel code from 0x80000000), or make the machine x64"
	if rs.sp.CreateProcesses {
		advice = "it was imported for x64: re-import its profile with `proflab workload import --arch x86`, or make the machine x64"
	}
	rs.c.errs = append(rs.c.errs, fmt.Errorf("%s%s %s above the x86 machine's 4 GB address space (0x0…0xFFFFFFFF): %s", rs.firstAbove4GB, more, verb, advice))
	return true
}

// checkHotspots checks a function's hotspots and loop.
func (rs *resolver) checkHotspots(ff funcField, f Function, instructions uint64) {
	c := rs.c
	var hot float64
	for j, h := range f.Hotspots {
		// (the field's name is made only for an error: an imported
		// function has a hotspot per sampled address)
		hf := func() string { return fmt.Sprintf("%s.hotspot[%d]", ff, j+1) }
		if h.Size == 0 {
			c.add(join(hf(), "size"), "must be > 0")
		}
		if h.Offset >= f.Size || h.Size > f.Size-h.Offset {
			c.add(hf(), "offset 0x%X + size 0x%X is outside the function's 0x%X bytes", h.Offset, h.Size, f.Size)
		}
		if math.IsNaN(h.Weight) || h.Weight < 0 || h.Weight > 1 {
			c.rate(join(hf(), "weight"), h.Weight)
		}
		hot += h.Weight
	}
	if hot > 1+1e-9 {
		c.add(join(ff.String(), "hotspot"), "weights add up to %v, more than 1", hot)
	}
	if f.LoopInstructions > instructions {
		c.add(join(ff.String(), "loop_instructions"), "the loop's %d instructions do not fit the function's %d", f.LoopInstructions, instructions)
	}
	if f.LoopInstructions > 0 && len(f.Hotspots) > 0 {
		c.add(join(ff.String(), "hotspot"), "a loop function has no hotspots (its loop is its hot spot)")
	}
}

// userFuncs are the images' user-mode functions with their weights: what
// a thread of a process without functions of its own runs.
func (rs *resolver) userFuncs() []Weighted {
	var out []Weighted
	for _, f := range rs.r.Funcs {
		if f.Process < 0 && f.Mode == User && !f.Inline {
			out = append(out, Weighted{Func: f.Index, Weight: f.Weight, Stack: NoStack})
		}
	}
	return out
}

// mix resolves a list of shares (def when it is empty) into normalised
// weights.
func (rs *resolver) mix(field string, shares []Share, def []Weighted) []Weighted {
	c := rs.c
	var out []Weighted
	if len(shares) == 0 {
		out = append(out, def...)
	}
	for j, sh := range shares {
		sf := fmt.Sprintf("%s[%d]", field, j+1)
		k, msg := rs.names.find(sh.Function, rs.r.Funcs)
		if k < 0 {
			c.add(join(sf, "function"), "%s", msg)
			continue
		}
		if rs.r.Funcs[k].Inline {
			c.add(join(sf, "function"), "function %q is inline (it has no code of its own): it runs only as a frame of a stack, inlined into the frame after it", sh.Function)
			continue
		}
		c.weight(join(sf, "weight"), sh.Weight)
		w := sh.Weight
		if w == 0 {
			w = rs.r.Funcs[k].Weight
		}
		out = append(out, Weighted{Func: k, Weight: w, Stack: NoStack})
	}
	return rs.normalise(field, out)
}

// normalise scales the weights of a mix to add up to 1.
func (rs *resolver) normalise(field string, out []Weighted) []Weighted {
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
		rs.c.add(field, "the weights add up to 0: give some function a weight > 0")
		return nil
	}
	for i := range out {
		out[i].Weight /= sum
	}
	return out
}

// resolveThreads fills each process's threads (one when it has none) and
// checks them and what they run.
func (rs *resolver) resolveThreads(procFuncs [][]int) {
	c := rs.c
	for i := range rs.sp.Processes {
		p := &rs.sp.Processes[i]
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
			rt := ResolvedThread{Thread: *t, Process: i, Mix: rs.threadMix(pf, tf, p, t, procFuncs[i])}
			if len(rt.Mix) == 0 && len(t.Run) == 0 && len(t.Stacks) == 0 && len(p.Stacks) == 0 {
				c.add(tf, "has nothing to run: give the process functions, the thread a run list, or an image user-mode functions")
			}
			rs.r.Threads = append(rs.r.Threads, rt)
		}
	}
}

// resolveKernel checks the kernel-mode activity and resolves its ISR and
// DPC mixes.
func (rs *resolver) resolveKernel() {
	c, k, r := rs.c, &rs.sp.Kernel, rs.r
	c.rate("kernel.interrupt_share", k.InterruptShare)
	c.rate("kernel.dpc_share", k.DPCShare)
	if k.InterruptShare+k.DPCShare >= 1 {
		c.add("kernel", "interrupt_share + dpc_share must be below 1, got %v", k.InterruptShare+k.DPCShare)
	}
	r.ISR = rs.mix("kernel.isr", k.ISR, []Weighted{{Func: rs.builtin(ISRFunction), Weight: 1, Stack: NoStack}})
	r.DPC = rs.mix("kernel.dpc", k.DPC, []Weighted{{Func: rs.builtin(DPCFunction), Weight: 1, Stack: NoStack}})
	for _, set := range [][]Weighted{r.ISR, r.DPC} {
		for _, w := range set {
			if r.Funcs[w.Func].Mode != KernelMode {
				c.add("kernel", "function %q is not in a kernel image: ISRs and DPCs run in kernel mode", r.Funcs[w.Func].Name)
			}
		}
	}
}

// indexByAddress orders the functions that have code by address and
// checks that no two ranges overlap.
func (rs *resolver) indexByAddress() {
	r := rs.r
	r.ByAddress = make([]int, 0, len(r.Funcs))
	for i := range r.Funcs {
		if !r.Funcs[i].Inline {
			r.ByAddress = append(r.ByAddress, i) // an inline function has no address
		}
	}
	sortByAddr(r)
	for i := 1; i < len(r.ByAddress); i++ {
		a, b := &r.Funcs[r.ByAddress[i-1]], &r.Funcs[r.ByAddress[i]]
		if a.Addr+a.Size > b.Addr {
			rs.c.add("", "functions %q [0x%X, 0x%X) and %q [0x%X, 0x%X) overlap", a.Name, a.Addr, a.Addr+a.Size, b.Name, b.Addr, b.Addr+b.Size)
		}
	}
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

// countFuncs is how many functions the workload defines (and the
// built-in kernel image, at most, adds).
func countFuncs(sp *Spec) int {
	n := len(kernelImage(Target{}).Functions)
	for _, img := range sp.Images {
		n += len(img.Functions)
	}
	for _, p := range sp.Processes {
		n += len(p.Functions)
	}
	return n
}

// countStacks is how many stacks the workload lists.
func countStacks(sp *Spec) int {
	n := 0
	for _, p := range sp.Processes {
		n += len(p.Stacks)
		for _, t := range p.Threads {
			n += len(t.Stacks)
		}
	}
	return n
}
