package luart

import (
	"sort"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
)

// machineImages is m:images{ workload = PATH_OR_TABLE }: the images
// (modules) a run of the workload has on this machine, and its processes,
// without running anything. A profiler enumerates the loaded modules
// before it creates a profile per module (kernrate asks the system for
// its module list); on the model the modules exist through the workload,
// so this is where a tool finds them. It returns { name, cpus, images = { {
// name, base, size, kernel, process, share, functions = { { name, base,
// size, builtin }, ... } }, ... }, processes = { { name, process, images
// = { NAME, ... } }, ... } } (builtin: true for the lab's built-in kernel
// functions, absent otherwise):
//
//   - cpus: the processors an imported profile was recorded on, where
//     it says (an .etl trace; nil otherwise);
//   - images in address order, the workload's own and the built-in kernel
//     image (ntoskrnl.exe) alike; a process's own functions form an image
//     named after the process (process = its name), as the pprof outputs
//     name them. base is the image's base (its lowest function's address
//     when it has none or a function lies below it: a workload's own
//     ntoskrnl.exe holds the built-in kernel functions too), size reaches
//     the end of its last function, kernel
//     is whether its functions run in kernel mode; share is the share of
//     the workload's threads' execution its functions hold (imageShares:
//     for an imported profile, its share of the source's samples);
//     functions are in address order;
//     a function the lab itself runs (its built-in idle loop, ISR and DPC
//     dispatch, workload.Func.Builtin) has builtin = true;
//   - processes in the workload's order: process is the machine's process
//     of that name (nil when the machine has none yet: m:run would refuse
//     the workload until m:process{ name = ... } makes it), images the
//     user-mode images its threads execute, in address order, share its
//     threads' busy shares over all the threads' (for an imported profile,
//     its share of the source's samples).
func (rt *Runtime) machineImages(L *lua.LState) int {
	const fn = "m:images"
	m := checkMachine(L, fn)
	f := luavm.CheckFields(L, fn, L.Get(2), "workload", "import")
	if !f.Has("workload") {
		f.Errorf("workload", "is required: a workload file's path or a table, as m:run takes")
	}
	spec, key, im := rt.workloadSpec(L, f, m)
	r, err := rt.cfg.Prepared.Resolve(key, spec, sim.Target(m.km.Arch()))
	if err != nil {
		f.Errorf("workload", "%v", err)
	}
	imgs := resolvedImages(r)
	imageOf := imageIndex(imgs)
	imageShares(r, imgs, imageOf)
	out := L.CreateTable(0, 4)
	out.RawSetString("name", lua.LString(r.Spec.Name))
	if im != nil && im.CPUs > 0 {
		out.RawSetString("cpus", lua.LNumber(im.CPUs))
	}
	list := L.CreateTable(len(imgs), 0)
	for _, im := range imgs {
		list.Append(imageTable(L, r, im))
	}
	out.RawSetString("images", list)
	out.RawSetString("processes", processesTable(L, m, r, imgs, imageOf))
	L.Push(out)
	return 1
}

// image is one module of a resolved workload.
type image struct {
	name, process string // process: the owner of a process's own functions
	base, end     uint64
	kernel        bool
	share         float64 // see imageShares
	funcs         []int   // indexes into Resolved.Funcs, in address order
}

// resolvedImages groups the resolved functions by image, in address order.
func resolvedImages(r *workload.Resolved) []*image {
	byName := map[string]*image{}
	var out []*image
	bases := map[string]uint64{}
	for _, im := range r.Spec.Images {
		if im.Base != 0 {
			bases[im.Name] = uint64(im.Base)
		}
	}
	for _, i := range r.ByAddress {
		fn := &r.Funcs[i]
		key, owner := fn.Image, ""
		if key == "" && fn.Process >= 0 {
			owner = r.Spec.Processes[fn.Process].Name
			key = owner
		}
		im := byName[key]
		if im == nil {
			im = &image{name: key, process: owner, base: fn.Addr, end: fn.Addr + fn.Size}
			if b, ok := bases[key]; ok && owner == "" {
				im.base = b
			}
			byName[key] = im
			out = append(out, im)
		}
		im.funcs = append(im.funcs, i)
		im.base = min(im.base, fn.Addr) // a workload's own ntoskrnl.exe may lie above the built-in functions
		im.end = max(im.end, fn.Addr+fn.Size)
		im.kernel = im.kernel || fn.Mode == workload.KernelMode
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].base < out[b].base })
	return out
}

// imageShares sets each image's share of the workload's execution: what
// its threads run, each thread weighted by its busy share, in the
// functions that execute (a stack's physical leaf, where its samples
// land), over all the threads' busy time. An imported profile's threads
// are its own with their busy shares and their functions' shares of its
// samples, so an image's share is its share of the source's samples: the
// images a program's samples are in, which a profiler of the program
// must cover (scripts/program.lua ranks them).
func imageShares(r *workload.Resolved, imgs []*image, imageOf map[int]*image) {
	var busy float64
	for _, th := range r.Threads {
		busy += th.Busy
		for _, w := range th.Mix {
			if im := imageOf[w.Func]; im != nil {
				im.share += float64(th.Busy * w.Weight)
			}
		}
	}
	for _, im := range imgs {
		if busy > 0 {
			im.share /= busy
		}
	}
}

// imageIndex is the image of each resolved function (by its index in
// Resolved.Funcs).
func imageIndex(imgs []*image) map[int]*image {
	imageOf := map[int]*image{}
	for _, im := range imgs {
		for _, i := range im.funcs {
			imageOf[i] = im
		}
	}
	return imageOf
}

func imageTable(L *lua.LState, r *workload.Resolved, im *image) *lua.LTable {
	t := L.CreateTable(0, 7)
	t.RawSetString("name", lua.LString(im.name))
	t.RawSetString("base", luavm.ResultValue(L, im.base))
	t.RawSetString("size", luavm.ResultValue(L, im.end-im.base))
	t.RawSetString("kernel", lua.LBool(im.kernel))
	t.RawSetString("share", lua.LNumber(im.share))
	if im.process != "" {
		t.RawSetString("process", lua.LString(im.process))
	}
	fns := L.CreateTable(len(im.funcs), 0)
	for _, i := range im.funcs {
		fn := &r.Funcs[i]
		ft := L.CreateTable(0, 4)
		ft.RawSetString("name", lua.LString(fn.Name))
		ft.RawSetString("base", luavm.ResultValue(L, fn.Addr))
		ft.RawSetString("size", luavm.ResultValue(L, fn.Size))
		if fn.Builtin() {
			ft.RawSetString("builtin", lua.LTrue)
		}
		fns.Append(ft)
	}
	t.RawSetString("functions", fns)
	return t
}

// processesTable lists the workload's processes with the machine's
// process of each name and the user-mode images their threads run.
func processesTable(L *lua.LState, m *machine, r *workload.Resolved, imgs []*image, imageOf map[int]*image) *lua.LTable {
	threadsOf := make([][]workload.ResolvedThread, len(r.Spec.Processes))
	var busy float64
	for _, th := range r.Threads {
		threadsOf[th.Process] = append(threadsOf[th.Process], th)
		busy += th.Busy
	}
	byName := m.km.ProcessesByName()
	out := L.CreateTable(len(r.Spec.Processes), 0)
	for pi, p := range r.Spec.Processes {
		t := L.CreateTable(0, 4)
		t.RawSetString("name", lua.LString(p.Name))
		var share float64
		for _, th := range threadsOf[pi] {
			share += th.Busy
		}
		if busy > 0 {
			share /= busy
		}
		t.RawSetString("share", lua.LNumber(share))
		if kp := processFor(byName, p); kp != nil {
			t.RawSetString("process", newCaller(L, &caller{kind: kindProcess, m: m, proc: kp}))
		}
		used := map[*image]bool{}
		for _, th := range threadsOf[pi] {
			for _, w := range th.Mix {
				if im := imageOf[w.Func]; im != nil && !im.kernel {
					used[im] = true
				}
			}
		}
		names := L.CreateTable(len(used), 0)
		for _, im := range imgs {
			if used[im] {
				names.Append(lua.LString(im.name))
			}
		}
		t.RawSetString("images", names)
		out.Append(t)
	}
	return out
}

// processFor is the machine's process a workload process stands for:
// the one it holds, or the first of its name (as m:run finds it) in
// byName, the machine's processes by name.
func processFor(byName map[string]*kernel.Process, p workload.Process) *kernel.Process {
	if kp, ok := p.Proc.(*kernel.Process); ok && kp != nil {
		return kp
	}
	return byName[p.Name]
}
