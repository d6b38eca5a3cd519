package kernel

import (
	"encoding/binary"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// env is a machine with one user process, for tests.
type env struct {
	t  *testing.T
	m  *Machine
	p  *Process
	th *Thread
}

type envOpt func(*Config)

func withCPUs(n int) envOpt            { return func(c *Config) { c.CPUs = n } }
func withVendor(v string) envOpt       { return func(c *Config) { c.Vendor = v } }
func withPEBS(b bool) envOpt           { return func(c *Config) { c.PEBS = b } }
func withErrata(iv uint32) envOpt      { return func(c *Config) { c.CacheErrataInterval = iv } }
func withHALs(h ...HALDispatch) envOpt { return func(c *Config) { c.HALs = h } }
func privileged() func(*Token) {
	return func(t *Token) { t.Privileges[nt.SeSystemProfilePrivilege] = true }
}
func integrity(i Integrity) func(*Token) { return func(t *Token) { t.Integrity = i } }

// newEnv builds a machine of version/arch (arch "" picks x64 from 5.2,
// x86 before) with 4 processors and the standard test HALs.
func newEnv(t *testing.T, version, arch string, opts ...envOpt) *env {
	t.Helper()
	v := MustVersion(version)
	a := X64
	if arch == "x86" || (arch == "" && v.Before("5.2")) {
		a = X86
	}
	cfg := Config{Version: v, Arch: a, CPUs: 4, Vendor: nt.VendorIntel, PEBS: true}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.HALs == nil {
		cfg.HALs = StandardTestHALs(cfg.Vendor)
	}
	m, err := NewMachine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, m: m}
	e.p = e.process()
	e.th = e.p.MainThread()
	return e
}

func (e *env) process(tok ...func(*Token)) *Process {
	k := Token{Privileges: map[int]bool{}, Integrity: IntegrityMedium}
	for _, f := range tok {
		f(&k)
	}
	return e.m.NewProcess("app", k)
}

func (e *env) alloc(p *Process, size uint64) uint64 {
	e.t.Helper()
	a, err := p.Alloc(size, ProtReadWrite)
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

func (e *env) readPtr(p *Process, addr uint64) uint64 {
	e.t.Helper()
	var b [8]byte
	n := e.m.arch.PointerSize()
	if err := p.Read(addr, b[:n]); err != nil {
		e.t.Fatal(err)
	}
	return binary.LittleEndian.Uint64(b[:])
}

func (e *env) readU32s(p *Process, addr uint64, n int) []uint32 {
	e.t.Helper()
	b := make([]byte, 4*n)
	if err := p.Read(addr, b); err != nil {
		e.t.Fatal(err)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func (e *env) mustStatus(want Status, got Status, err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatalf("unexpected error: %v", err)
	}
	if got != want {
		e.t.Fatalf("status %v, want %v", got, want)
	}
}

// profile is a created profile: its handle and buffer.
type profile struct {
	handle uint64
	buffer uint64
	size   uint32
}

// createOn creates a profile through th with the given arguments; handle
// and buffer are allocated when zero (buffer of BufferSize bytes).
func (e *env) createOn(th *Thread, a CreateArgs) (Status, profile) {
	e.t.Helper()
	p := th.proc
	if a.ProfileHandle == 0 {
		a.ProfileHandle = e.alloc(p, 8)
	}
	if a.Buffer == 0 && a.BufferSize != 0 {
		a.Buffer = e.alloc(p, uint64(a.BufferSize))
	}
	st, err := th.NtCreateProfile(a)
	if err != nil {
		e.t.Fatalf("NtCreateProfile: %v", err)
	}
	pr := profile{buffer: a.Buffer, size: a.BufferSize}
	if st == StatusSuccess {
		pr.handle = e.readPtr(p, a.ProfileHandle)
	}
	return st, pr
}

// own is a profile of th's own process over [base, base+size) with
// 2^bucket-byte buckets and an exact-fit buffer, source ProfileTime, all
// processors.
func (e *env) own(th *Thread, base, size uint64, bucket uint32) profile {
	e.t.Helper()
	buckets := (size + (1 << bucket) - 1) >> bucket
	st, pr := e.createOn(th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: base, ProfileSize: size,
		BucketSize: bucket, BufferSize: uint32(4 * buckets), Affinity: e.m.lay.ptrMask})
	e.mustStatus(StatusSuccess, st, nil)
	return pr
}

func (e *env) start(th *Thread, pr profile) {
	e.t.Helper()
	st, err := th.NtStartProfile(pr.handle)
	e.mustStatus(StatusSuccess, st, err)
}

func (e *env) interrupt(cpu int, src nt.Source, ip uint64, th *Thread) error {
	return e.m.ProfileInterrupt(Interrupt{CPU: cpu, Source: src, IP: ip, Thread: th, Mode: UserMode})
}
