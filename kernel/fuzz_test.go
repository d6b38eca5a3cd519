package kernel

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// fuzzVersions are the versions whose create and interrupt paths differ.
var fuzzVersions = []string{"3.10", "3.51", "4.0", "6.1", "6.2", "6.3", "10.0.14393", "10.0.15063", "10.0.17134", "10.0.19041"}

// FuzzCreateProfile drives NtCreateProfile(Ex) with arbitrary arguments:
// it must never panic, and a created profile must honour the size rule
// of its version.
func FuzzCreateProfile(f *testing.F) {
	f.Add(uint8(9), false, false, uint64(userBase), uint64(0x1000), uint32(4), uint32(0x400), uint32(0), uint64(0xF), uint16(0), true)
	f.Add(uint8(2), true, false, uint64(0x1234), uint64(0x10000), uint32(0), uint32(3), uint32(0), uint64(0), uint16(0), false)
	f.Add(uint8(5), false, true, uint64(kernelBase), uint64(79), uint32(6), uint32(4), uint32(2), ^uint64(0), uint16(1), true)
	f.Fuzz(func(t *testing.T, vi uint8, x86, ex bool, base, size uint64, bucket, bufSize, src uint32, aff uint64, groups uint16, own bool) {
		v := fuzzVersions[int(vi)%len(fuzzVersions)]
		arch := "x64"
		if x86 || MustVersion(v).Before("5.2") {
			arch = "x86"
		}
		e := newEnv(t, v, arch)
		buf := e.alloc(e.p, 0x3000)
		h := e.alloc(e.p, 8)
		ga := e.alloc(e.p, 0x40)
		_ = e.p.Write(ga, binary.LittleEndian.AppendUint64(nil, aff))
		a := CreateArgs{ProfileHandle: h, ProfileBase: base, ProfileSize: size, BucketSize: bucket, Buffer: buf,
			BufferSize: bufSize % 0x3001, ProfileSource: src, Affinity: aff, GroupCount: groups % 3, AffinityArray: ga}
		if own {
			a.Process = ^uint64(0)
		}
		var st Status
		var err error
		if ex && e.m.ver.hasCreateEx() {
			st, err = e.th.NtCreateProfileEx(a)
		} else {
			st, err = e.th.NtCreateProfile(a)
		}
		if err != nil {
			var bc *BugCheck
			if errors.As(err, &bc) && bc.Code == nt.KMODE_EXCEPTION_NOT_HANDLED && e.m.ver.Before("4.0") {
				return // the documented pre-SP4 divide by zero
			}
			t.Fatalf("create: %v", err)
		}
		if _, known := map[Status]bool{StatusSuccess: true, StatusInvalidParameter: true, StatusInvalidParameter7: true,
			StatusBufferTooSmall: true, StatusBufferOverflow: true, StatusNotSupported: true, StatusPrivilegeNotHeld: true,
			StatusAccessDenied: true, StatusAccessViolation: true, StatusDatatypeMisalignment: true}[st]; !known {
			t.Fatalf("unexpected status %v", st)
		}
		if st != StatusSuccess {
			return
		}
		info, ok := e.p.ProfileInfo(e.readPtr(e.p, h))
		if !ok {
			t.Fatal("no profile behind the returned handle")
		}
		if info.BucketSize < 2 || info.BucketSize > 31 {
			t.Fatalf("bucket %d accepted", info.BucketSize)
		}
		if e.m.bufferTooSmall(info.Size, info.BucketSize, info.BufferSize) {
			t.Fatal("accepted a buffer its version's check rejects")
		}
	})
}

// FuzzInterrupt starts a profile and delivers arbitrary interrupts: no
// panic, and no write lands outside the buffer except the one ULONG after
// its counters that the documented defects reach.
func FuzzInterrupt(f *testing.F) {
	f.Add(uint8(4), uint64(0x1000), uint32(2), uint32(0x1000), uint64(userBase+0x1000), uint8(0), uint16(0))
	f.Add(uint8(6), uint64(79), uint32(6), uint32(4), uint64(userBase+78), uint8(1), uint16(0xFFC))
	f.Add(uint8(9), uint64(0x40), uint32(4), uint32(0x10), uint64(userBase+0x25), uint8(3), uint16(8))
	f.Fuzz(func(t *testing.T, vi uint8, size uint64, bucket, bufSize uint32, ip uint64, cpu uint8, offset uint16) {
		v := fuzzVersions[int(vi)%len(fuzzVersions)]
		e := newEnv(t, v, "")
		bufSize %= 0x2000
		offset &^= 3
		region := e.alloc(e.p, 0x4000)
		buf := region + 0x1000 + uint64(offset)%0x1000
		st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: size % 0x100000,
			BucketSize: bucket%32 + 0, Buffer: buf, BufferSize: bufSize, Affinity: e.m.lay.ptrMask})
		if st != StatusSuccess {
			return
		}
		if st, _ := e.th.NtStartProfile(pr.handle); st != StatusSuccess {
			return
		}
		before := make([]byte, 0x4000)
		_ = e.p.Read(region, before)
		err := e.interrupt(int(cpu)%4, nt.ProfileTime, ip, e.th)
		after := make([]byte, 0x4000)
		_ = e.p.Read(region, after)
		limit := buf + uint64(bufSize+3)&^3 + 4 // the counters, plus one ULONG past them
		for i := range after {
			a := region + uint64(i)
			if before[i] != after[i] && (a < buf || a >= limit) {
				t.Fatalf("write at 0x%X outside the buffer 0x%X+0x%X", a, buf, bufSize)
			}
		}
		var bc *BugCheck
		// a fault past the mapped pages is the documented bug check 0x0A
		if err != nil && (!errors.As(err, &bc) || bc.Code != nt.IRQL_NOT_LESS_OR_EQUAL) {
			t.Fatalf("interrupt: %v", err)
		}
	})
}
