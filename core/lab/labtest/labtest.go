// Package labtest assembles labs (core/lab) on the shipped HALs, for the
// tests and benchmarks of the lab's packages.
package labtest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// Lab is a machine on the shipped HALs with a simulator attached.
type Lab struct {
	M    *kernel.Machine
	Sim  *sim.Sim
	P    *kernel.Process
	HALs []*halhost.MachineHAL

	lab *lab.Lab
}

// Close releases the lab's HALs now (the test's cleanup does otherwise)
// and lets go of its machine and simulator, so that a benchmark making
// lab after lab keeps none of them alive. It is idempotent.
func (l *Lab) Close() {
	if l.lab != nil {
		l.lab.Close()
	}
	*l = Lab{}
}

// Calls is the number of calls the machine's HALs have answered (plugin
// round trips, when the transport is a plugin).
func (l *Lab) Calls() int64 {
	var n int64
	for _, h := range l.HALs {
		n += h.Calls()
	}
	return n
}

// HALs is the shipped HALs' configuration with the given transport.
func HALs(transport string) map[string]config.HAL {
	return map[string]config.HAL{
		"apic": {Plugin: "proflab-hal-apic", Transport: transport},
		"pmu":  {Plugin: "proflab-hal-pmu", Transport: transport},
		"pebs": {Plugin: "proflab-hal-pebs", Transport: transport},
	}
}

// New opens names (default apic, pmu) on host for a cpus-processor machine.
func New(tb testing.TB, host *halhost.Host, cpus int, seed uint64, names ...string) *Lab {
	tb.Helper()
	return newLab(tb, host, cpus, seed, lab.Overrides{}, names)
}

// InprocArch is Inproc for a machine of architecture arch ("x86", "x64").
func InprocArch(tb testing.TB, cpus int, seed uint64, arch string, names ...string) *Lab {
	tb.Helper()
	host := halhost.New(HALs(config.TransportInproc), halhost.Options{})
	tb.Cleanup(host.Close)
	return newLab(tb, host, cpus, seed, lab.Overrides{Arch: &arch}, names)
}

func newLab(tb testing.TB, host *halhost.Host, cpus int, seed uint64, o lab.Overrides, names []string) *Lab {
	tb.Helper()
	if len(names) == 0 {
		names = []string{"apic", "pmu"}
	}
	spec, err := lab.Resolve(config.DefaultMachine(), o, seed)
	if err != nil {
		tb.Fatal(err)
	}
	spec.CPUs, spec.HALs = cpus, names
	l, err := lab.Assemble(&lab.HostHALs{Host: host, HALNames: names}, spec)
	if err != nil {
		tb.Fatal(err)
	}
	m, s := l.Machine, l.Sim
	var mh []*halhost.MachineHAL
	for _, h := range m.Config().HALs {
		mh = append(mh, h.(*halhost.MachineHAL))
	}
	p := m.NewProcess("app", kernel.Token{Privileges: map[int]bool{nt.SeSystemProfilePrivilege: true, nt.SeProfileSingleProcessPrivilege: true}, Integrity: kernel.IntegrityHigh})
	lb := &Lab{M: m, Sim: s, P: p, HALs: mh, lab: l}
	tb.Cleanup(lb.Close)
	return lb
}

// Inproc is New with the shipped HALs in-process.
func Inproc(tb testing.TB, cpus int, seed uint64, names ...string) *Lab {
	host := halhost.New(HALs(config.TransportInproc), halhost.Options{})
	tb.Cleanup(host.Close)
	return New(tb, host, cpus, seed, names...)
}

// Profile creates and starts a profile of l.p over [base, base+size) with
// 2^bucket-byte buckets for src on every processor; it returns the handle.
func (l *Lab) Profile(tb testing.TB, base, size uint64, bucket uint32, src nt.Source) uint64 {
	tb.Helper()
	t := l.P.MainThread()
	hp, err := l.P.Alloc(8, kernel.ProtReadWrite)
	if err != nil {
		tb.Fatal(err)
	}
	n := (size >> bucket) + 1
	buf, err := l.P.Alloc(n*4, kernel.ProtReadWrite)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := t.NtCreateProfile(kernel.CreateArgs{ProfileHandle: hp, Process: ^uint64(0), ProfileBase: base, ProfileSize: size,
		BucketSize: bucket, Buffer: buf, BufferSize: uint32(n * 4), ProfileSource: uint32(src), Affinity: 1<<uint(l.M.CPUCount()) - 1})
	if err != nil || st != kernel.StatusSuccess {
		tb.Fatalf("NtCreateProfile: %v %v", st, err)
	}
	var hb [8]byte
	_ = l.P.Read(hp, hb[:])
	h := binary.LittleEndian.Uint64(hb[:])
	if st, err := t.NtStartProfile(h); err != nil || st != kernel.StatusSuccess {
		tb.Fatalf("NtStartProfile: %v %v", st, err)
	}
	return h
}

// SetInterval sets a source's interval as the process.
func (l *Lab) SetInterval(tb testing.TB, src nt.Source, v uint32) {
	tb.Helper()
	if st, err := l.P.MainThread().NtSetIntervalProfile(v, src); err != nil || st != kernel.StatusSuccess {
		tb.Fatalf("NtSetIntervalProfile: %v %v", st, err)
	}
}

// Counters reads a profile's bucket counters.
func (l *Lab) Counters(tb testing.TB, h uint64) []uint32 {
	tb.Helper()
	for _, r := range l.M.Profiles() {
		if r.Handle == h && r.Owner == l.P {
			c, err := r.Counters()
			if err != nil {
				tb.Fatal(err)
			}
			return c
		}
	}
	tb.Fatalf("no profile %#x", h)
	return nil
}

// ThreeFuncs is a minimal workload of three functions at 0x10000. p may
// be nil (a process named "app").
func ThreeFuncs(p *kernel.Process) *workload.Spec {
	name, proc := "app", workload.ProcessHandle(nil)
	if p != nil {
		proc = p
	}
	return workload.OneProcess(name, proc, []workload.Function{
		{Name: "alpha", Base: 0x10000, Size: 0x400, Weight: 5},
		{Name: "beta", Base: 0x10400, Size: 0x400, Weight: 3},
		{Name: "gamma", Base: 0x10800, Size: 0x400, Weight: 2, CacheMissRate: 0.05},
	})
}

// Large is a workload shaped like an imported real profile: an image of
// nFuncs functions (each 64–1024 bytes, with up to four single-address
// hotspots and its own CPI and cache-miss rate), a kernel image of a
// tenth as many, and nStacks weighted stacks of 2–12 frames drawn from
// them (a heavy-tailed weight), run by four threads, one per processor.
// It is deterministic in seed. p may be nil (a process named "app").
func Large(p *kernel.Process, nFuncs, nStacks int, seed uint64) *workload.Spec {
	rng := rand.New(rand.NewPCG(seed, 0x1A46E))
	mk := func(prefix string, n int) ([]workload.Function, []string) {
		fns := make([]workload.Function, n)
		names := make([]string, n)
		var off uint64
		for i := range fns {
			size := uint64(64 + 16*rng.IntN(61))
			f := workload.Function{Name: fmt.Sprintf("%s%05d", prefix, i), Offset: workload.Address(off), Size: size,
				CPI: 0.5 + 2*float64(rng.Float64()), CacheMissRate: 0.02 * rng.Float64()}
			for range rng.IntN(5) {
				f.Hotspots = append(f.Hotspots, workload.Hotspot{Offset: uint64(rng.IntN(int(size))), Size: 1, Weight: 0.2 * rng.Float64()})
			}
			fns[i], names[i] = f, f.Name
			off += size + 16
		}
		return fns, names
	}
	user, un := mk("user_", nFuncs)
	kern, kn := mk("kern_", max(1, nFuncs/10))
	spec := &workload.Spec{
		InstructionBytes: 1,
		Images: []workload.Image{
			{Name: "app", Base: 0x400000, Functions: user},
			{Name: "vmlinux", Base: 0xFFFFF80100000000, Kernel: true, Functions: kern},
		},
	}
	stacks := make([]workload.Stack, nStacks)
	for i := range stacks {
		depth := 2 + rng.IntN(11)
		frames := make([]string, depth)
		for d := range frames {
			frames[d] = un[rng.IntN(len(un))]
		}
		if rng.IntN(10) == 0 {
			frames[0] = kn[rng.IntN(len(kn))] // a system call's leaf
		}
		stacks[i] = workload.Stack{Frames: frames, Weight: 1 / (1 + float64(rng.IntN(1000)))}
	}
	name := "app"
	var proc workload.ProcessHandle
	if p != nil {
		name, proc = p.Name(), p
	}
	spec.Processes = []workload.Process{{Name: name, Proc: proc, Stacks: stacks,
		Threads: []workload.Thread{{CPU: 0}, {CPU: 1}, {CPU: 2}, {CPU: 3}}}}
	return spec
}
