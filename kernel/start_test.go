package kernel

import (
	"slices"
	"testing"

	"github.com/proflab/proflab/kernel/nt"
)

// TestStartStop covers items 41–47 and 56 of docs/reference/conformance.md.
func TestStartStop(t *testing.T) {
	t.Run("41 start maps the buffer", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x100, 4)
		e.start(e.th, pr)
		info, _ := e.p.ProfileInfo(pr.handle)
		if !info.Started || info.MappedBuffer < e.m.lay.systemBase || info.MappedBuffer%PageSize != pr.buffer%PageSize {
			t.Fatalf("after start: %+v", info)
		}
	})
	sequence := []struct {
		name  string
		calls []string
		want  []Status
	}{
		{"42 second start", []string{"start", "start"}, []Status{StatusSuccess, StatusProfilingNotStopped}},
		{"43 stop never started", []string{"stop"}, []Status{StatusProfilingNotStarted}},
		{"44 second stop", []string{"start", "stop", "stop"}, []Status{StatusSuccess, StatusSuccess, StatusProfilingNotStarted}},
		{"45 start stop start stop", []string{"start", "stop", "start", "stop"}, []Status{StatusSuccess, StatusSuccess, StatusSuccess, StatusSuccess}},
	}
	for _, tc := range sequence {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "10.0.19041", "")
			pr := e.own(e.th, userBase, 0x100, 4)
			for i, c := range tc.calls {
				var st Status
				var err error
				if c == "start" {
					st, err = e.th.NtStartProfile(pr.handle)
				} else {
					st, err = e.th.NtStopProfile(pr.handle)
				}
				if err != nil || st != tc.want[i] {
					t.Fatalf("call %d (%s): %v %v, want %v", i, c, st, err, tc.want[i])
				}
			}
		})
	}
	t.Run("46 wrong object type leaves the profile alone", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x100, 4)
		ph := e.p.OpenProcess(e.p, nt.PROCESS_ALL_ACCESS)
		for _, f := range []func(uint64) (Status, error){e.th.NtStartProfile, e.th.NtStopProfile} {
			if st, _ := f(ph); st != StatusObjectTypeMismatch {
				t.Fatalf("got %v, want STATUS_OBJECT_TYPE_MISMATCH", st)
			}
		}
		if info, _ := e.p.ProfileInfo(pr.handle); info.Started {
			t.Fatal("profile started through a process handle")
		}
		if st, _ := e.th.NtStartProfile(e.m.currentProcessHandle()); st != StatusObjectTypeMismatch {
			t.Fatalf("NtCurrentProcess: %v", st)
		}
	})
	t.Run("47 handle without access 0x1", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x100, 4)
		weak := e.p.insertHandle(e.p.handles[pr.handle].obj, nt.SYNCHRONIZE)
		for _, f := range []func(uint64) (Status, error){e.th.NtStartProfile, e.th.NtStopProfile} {
			if st, _ := f(weak); st != StatusAccessDenied {
				t.Fatalf("got %v, want STATUS_ACCESS_DENIED", st)
			}
		}
		// a kernel-mode caller is not access-checked
		k, _ := e.m.NewKernelCaller(0)
		kh := e.m.system.insertHandle(e.p.handles[pr.handle].obj, 0)
		e.p.handles[pr.handle].obj.(*eprofile).handles++
		// it passes the access check and fails later, locking a buffer
		// that is not in its (the System process's) address space
		if st, _ := k.NtStartProfile(kh); st != StatusAccessViolation {
			t.Fatalf("kernel mode: %v, want the lock's STATUS_ACCESS_VIOLATION", st)
		}
	})
	t.Run("47 a duplicated handle with a chosen access", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x100, 4)
		weak, st := e.p.DuplicateHandle(pr.handle, e.p, nt.SYNCHRONIZE)
		e.mustStatus(StatusSuccess, st, nil)
		if got, _ := e.p.HandleAccess(weak); got != nt.SYNCHRONIZE || weak == pr.handle {
			t.Fatalf("duplicate %#x grants %#x", weak, got)
		}
		for _, f := range []func(uint64) (Status, error){e.th.NtStartProfile, e.th.NtStopProfile} {
			if st, _ := f(weak); st != StatusAccessDenied {
				t.Fatalf("got %v, want STATUS_ACCESS_DENIED", st)
			}
		}
		control, _ := e.p.DuplicateHandle(pr.handle, e.p, nt.PROFILE_CONTROL)
		e.start(e.th, profile{handle: control})
		// the object outlives the handle it was created with
		st, err := e.th.NtClose(pr.handle)
		e.mustStatus(StatusSuccess, st, err)
		if e.m.StartedProfiles() != 1 {
			t.Fatal("closing one of two handles stopped the profile")
		}
		st, err = e.th.NtStopProfile(control)
		e.mustStatus(StatusSuccess, st, err)
		if _, st := e.p.DuplicateHandle(0x7FF0, e.p, 1); st != StatusInvalidHandle {
			t.Fatalf("a bogus handle: %v", st)
		}
	})
	t.Run("56 closing a started profile stops it", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x100, 4)
		e.start(e.th, pr)
		before := len(e.m.PoolAllocations())
		if e.p.list.n != 1 {
			t.Fatal("not on the process list")
		}
		st, err := e.th.NtClose(pr.handle)
		e.mustStatus(StatusSuccess, st, err)
		if e.p.list.n != 0 || e.m.StartedProfiles() != 0 || e.m.LockedBytes() != 0 {
			t.Fatalf("after close: list %d started %d locked %d", e.p.list.n, e.m.StartedProfiles(), e.m.LockedBytes())
		}
		if after := len(e.m.PoolAllocations()); after != before-2 {
			t.Fatalf("pool allocations %d → %d, want the KPROFILE and EPROFILE freed", before, after)
		}
		if st, _ := e.th.NtClose(pr.handle); st != StatusInvalidHandle {
			t.Fatalf("second close: %v", st)
		}
		last := e.m.HALLog()[len(e.m.HALLog())-1]
		if last.Call != "stop" {
			t.Fatalf("last HAL call %+v, want a stop", last)
		}
	})
}

// TestStartLimit covers items 48–50.
func TestStartLimit(t *testing.T) {
	t.Parallel()
	startMany := func(e *env, procs []*Process, n int) (Status, int) {
		for i := 0; i < n; i++ {
			th := procs[i%len(procs)].MainThread()
			pr := e.own(th, userBase, 0x10, 4)
			st, err := th.NtStartProfile(pr.handle)
			if err != nil {
				t.Fatal(err)
			}
			if st != StatusSuccess {
				return st, i
			}
		}
		return StatusSuccess, n
	}
	t.Run("48 6.1 limit 8192 per processor", func(t *testing.T) {
		e := newEnv(t, "6.1", "", withCPUs(1))
		st, n := startMany(e, []*Process{e.p}, 8193)
		if st != StatusProfilingAtLimit || n != 8192 {
			t.Fatalf("got %v after %d starts, want STATUS_PROFILING_AT_LIMIT after 8192", st, n)
		}
	})
	t.Run("49 the limit is system-wide", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "", withCPUs(1))
		st, n := startMany(e, []*Process{e.p, e.process(), e.process()}, 8193)
		if st != StatusProfilingAtLimit || n != 8192 {
			t.Fatalf("got %v after %d starts across processes, want the limit at 8192", st, n)
		}
	})
	t.Run("50 5.0 ninth start succeeds", func(t *testing.T) {
		e := newEnv(t, "5.0", "")
		if st, n := startMany(e, []*Process{e.p}, 9); st != StatusSuccess {
			t.Fatalf("got %v at start %d", st, n)
		}
	})
	t.Run("50 6.0 has no limit", func(t *testing.T) {
		e := newEnv(t, "6.0", "", withCPUs(1))
		if st, n := startMany(e, []*Process{e.p}, 8193); st != StatusSuccess {
			t.Fatalf("got %v at start %d", st, n)
		}
	})
}

// TestStartResources covers items 51–55 and 57.
func TestStartResources(t *testing.T) {
	t.Run("51 KPROFILE allocation fails", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x100, 4)
		pool := len(e.m.PoolAllocations())
		e.m.InjectPoolFailures(1)
		if st, _ := e.th.NtStartProfile(pr.handle); st != StatusInsufficientResources {
			t.Fatalf("got %v", st)
		}
		if info, _ := e.p.ProfileInfo(pr.handle); info.Started || len(e.m.PoolAllocations()) != pool || e.m.LockedBytes() != 0 {
			t.Fatal("a failed start left state behind")
		}
		e.start(e.th, pr) // the failure was one allocation only
	})
	t.Run("51 EPROFILE allocation fails at create", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		e.m.InjectPoolFailures(1)
		st, _ := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, Affinity: e.m.lay.ptrMask})
		if st != StatusInsufficientResources {
			t.Fatalf("got %v", st)
		}
	})
	t.Run("52 mapping fails", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x100, 4)
		pool := len(e.m.PoolAllocations())
		e.m.InjectMapFailures(1)
		if st, _ := e.th.NtStartProfile(pr.handle); st != StatusInsufficientResources {
			t.Fatalf("got %v", st)
		}
		if len(e.m.PoolAllocations()) != pool {
			t.Fatal("the KPROFILE leaked")
		}
	})
	t.Run("lock fails after the buffer was freed", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x100, 4)
		if err := e.p.Free(pr.buffer); err != nil {
			t.Fatal(err)
		}
		if st, _ := e.th.NtStartProfile(pr.handle); st != StatusAccessViolation {
			t.Fatalf("got %v, want STATUS_ACCESS_VIOLATION", st)
		}
	})
	t.Run("53 the whole buffer is locked", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		// 4 counters needed, 0x3000 bytes given
		st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x40, BucketSize: 4, BufferSize: 0x3000, Affinity: e.m.lay.ptrMask})
		e.mustStatus(StatusSuccess, st, nil)
		e.start(e.th, pr)
		if e.m.LockedBytes() != 0x3000 {
			t.Fatalf("locked %d bytes, want 0x3000", e.m.LockedBytes())
		}
		if n := len(e.p.list.head.pages); n != 3 {
			t.Fatalf("mapped %d pages, want 3", n)
		}
	})
	t.Run("54 lists", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		e.p.token.Privileges[nt.SeSystemProfilePrivilege] = true
		own := e.own(e.th, userBase, 0x100, 4)
		st, global := e.createOn(e.th, CreateArgs{ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100, Affinity: e.m.lay.ptrMask})
		e.mustStatus(StatusSuccess, st, nil)
		e.start(e.th, own)
		e.start(e.th, global)
		if e.p.list.n != 1 || e.m.globalList.n != 1 {
			t.Fatalf("process list %d, global list %d; want 1 and 1", e.p.list.n, e.m.globalList.n)
		}
		if e.p.list.head.owner.handles == 0 || e.p.list.head.process != e.p || e.m.globalList.head.process != nil {
			t.Fatal("the KPROFILEs are on the wrong lists")
		}
		if oi, _ := e.p.ProfileInfo(own.handle); !oi.OnList || oi.Global {
			t.Fatalf("own profile info %+v", oi)
		}
	})
	t.Run("55 HalStartProfileInterrupt per selected processor", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		st, pr := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100,
			ProfileSource: uint32(nt.ProfileBranchMispredictions), Affinity: 0b1010})
		e.mustStatus(StatusSuccess, st, nil)
		e.start(e.th, pr)
		var got []int
		for _, c := range e.m.HALLog() {
			if c.Call == "start" {
				if c.Source != nt.ProfileBranchMispredictions || c.HAL != "pmu" {
					t.Fatalf("start row %+v", c)
				}
				got = append(got, c.CPU)
			}
		}
		if len(got) != 2 || got[0] != 1 || got[1] != 3 {
			t.Fatalf("started on %v, want [1 3]", got)
		}
		// a second profile of the same source does not restart it
		pr2 := e.own(e.th, userBase, 0x100, 4)
		_ = pr2
		st, pr3 := e.createOn(e.th, CreateArgs{Process: e.m.currentProcessHandle(), ProfileBase: userBase, ProfileSize: 0x100, BucketSize: 4, BufferSize: 0x100,
			ProfileSource: uint32(nt.ProfileBranchMispredictions), Affinity: 0b0011})
		e.mustStatus(StatusSuccess, st, nil)
		n := len(e.m.HALLog())
		e.start(e.th, pr3)
		rows := e.m.HALLog()[n:]
		if len(rows) != 1 || rows[0].CPU != 0 {
			t.Fatalf("second start rows %+v, want only cpu 0", rows)
		}
		// stopping the first keeps cpu 1 running for the second
		n = len(e.m.HALLog())
		st, err := e.th.NtStopProfile(pr.handle)
		e.mustStatus(StatusSuccess, st, err)
		rows = e.m.HALLog()[n:]
		if len(rows) != 1 || rows[0].CPU != 3 || rows[0].Call != "stop" {
			t.Fatalf("stop rows %+v, want only cpu 3", rows)
		}
	})
	t.Run("57 counters survive stop and stop counting", func(t *testing.T) {
		e := newEnv(t, "10.0.19041", "")
		pr := e.own(e.th, userBase, 0x40, 4)
		e.start(e.th, pr)
		for i := 0; i < 3; i++ {
			if err := e.interrupt(0, nt.ProfileTime, userBase+0x10, e.th); err != nil {
				t.Fatal(err)
			}
		}
		st, err := e.th.NtStopProfile(pr.handle)
		e.mustStatus(StatusSuccess, st, err)
		if err := e.interrupt(0, nt.ProfileTime, userBase+0x10, e.th); err != nil {
			t.Fatal(err)
		}
		if got := e.readU32s(e.p, pr.buffer, 4); got[1] != 3 {
			t.Fatalf("counters %v, want 3 in bucket 1", got)
		}
	})
}

// The lab's ProfileCloseHook sees a profile once, as its last handle
// closes, with its counters still readable (a started one too); closing
// one of two handles is no deletion, and no hook does not change NtClose.
func TestProfileCloseHook(t *testing.T) {
	e := newEnv(t, "10.0.19041", "")
	var seen []ProfileRecord
	var counts [][]uint32
	e.m.OnProfileClose(func(rec ProfileRecord) {
		c, err := rec.Counters()
		if err != nil {
			t.Errorf("counters in the hook: %v", err)
		}
		seen, counts = append(seen, rec), append(counts, c)
	})
	pr := e.own(e.th, userBase, 0x100, 4)
	e.start(e.th, pr)
	for _, off := range []uint64{0x10, 0x10, 0x25} {
		if err := e.interrupt(0, nt.ProfileTime, userBase+off, e.th); err != nil {
			t.Fatal(err)
		}
	}
	dup, st := e.p.DuplicateHandle(pr.handle, e.p, nt.PROFILE_CONTROL)
	e.mustStatus(StatusSuccess, st, nil)
	st, err := e.th.NtClose(pr.handle)
	e.mustStatus(StatusSuccess, st, err)
	if len(seen) != 0 {
		t.Fatalf("closing one of two handles ran the hook: %+v", seen)
	}
	st, err = e.th.NtClose(dup)
	e.mustStatus(StatusSuccess, st, err)
	if len(seen) != 1 {
		t.Fatalf("the last close ran the hook %d times, want once", len(seen))
	}
	rec := seen[0]
	if rec.Owner != e.p || rec.Handle != dup || !rec.Info.Started || rec.Info.Base != userBase || rec.Info.BucketSize != 4 {
		t.Errorf("the hook saw %+v (handle %#x), want the started profile by its last handle %#x", rec.Info, rec.Handle, dup)
	}
	if want := []uint32{0, 2, 1}; len(counts[0]) < 3 || !slices.Equal(counts[0][:3], want) {
		t.Errorf("counters in the hook %v, want %v…", counts[0], want)
	}
	if e.m.StartedProfiles() != 0 || len(e.m.Profiles()) != 0 {
		t.Errorf("after the close: %d started, %d listed", e.m.StartedProfiles(), len(e.m.Profiles()))
	}
	e.m.OnProfileClose(nil)
	other := e.own(e.th, userBase, 0x100, 4)
	st, err = e.th.NtClose(other.handle)
	e.mustStatus(StatusSuccess, st, err)
	if len(seen) != 1 {
		t.Error("a removed hook still ran")
	}
}
