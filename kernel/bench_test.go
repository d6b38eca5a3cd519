package kernel

import (
	"fmt"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// BenchmarkProfileInterrupt measures KeProfileInterruptWithSource with n
// started profiles on the lists walked (half per-process, half global),
// every one of them hit.
func BenchmarkProfileInterrupt(b *testing.B) {
	for _, n := range []int{1, 8, 64, 1024} {
		b.Run(fmt.Sprintf("profiles=%d", n), func(b *testing.B) {
			t := &testing.T{}
			e := newEnv(t, "10.0.19041", "")
			e.p.token.Privileges[nt.SeSystemProfilePrivilege] = true
			for i := 0; i < n; i++ {
				var pr profile
				if i%2 == 0 {
					pr = e.own(e.th, userBase, 0x10000, 6)
				} else {
					_, pr = e.createOn(e.th, CreateArgs{ProfileBase: userBase, ProfileSize: 0x10000, BucketSize: 6, BufferSize: 0x1000, Affinity: e.m.lay.ptrMask})
				}
				e.start(e.th, pr)
			}
			in := Interrupt{CPU: 1, Source: nt.ProfileTime, Thread: e.th, Mode: UserMode}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				in.IP = userBase + uint64(i*52)%0x10000
				if err := e.m.ProfileInterrupt(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCreateStart measures NtCreateProfile + NtStartProfile +
// NtClose of a per-process profile.
func BenchmarkCreateStart(b *testing.B) {
	t := &testing.T{}
	e := newEnv(t, "10.0.19041", "")
	h := e.alloc(e.p, 8)
	buf := e.alloc(e.p, 0x1000)
	a := CreateArgs{ProfileHandle: h, Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x10000, BucketSize: 6, Buffer: buf, BufferSize: 0x1000, Affinity: e.m.lay.ptrMask}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if st, err := e.th.NtCreateProfile(a); st != StatusSuccess || err != nil {
			b.Fatal(st, err)
		}
		ph := e.readPtr(e.p, h)
		if st, err := e.th.NtStartProfile(ph); st != StatusSuccess || err != nil {
			b.Fatal(st, err)
		}
		if st, err := e.th.NtClose(ph); st != StatusSuccess || err != nil {
			b.Fatal(st, err)
		}
	}
}
