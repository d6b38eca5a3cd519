package etl_test

import (
	"bytes"
	"testing"

	"github.com/proflab/proflab/core/etl"
	"github.com/proflab/proflab/core/leaftest"
)

func TestETLIsALeaf(t *testing.T) {
	leaftest.Check(t, leaftest.Rule{Why: "core/etl is the .etl format alone, shared by the reader and the writer: standard library only"})
}

// readAll reads every record of b, counting kernel events by hook and the
// others by kind.
func readAll(t *testing.T, b []byte) (*etl.Reader, etl.LogfileHeader, map[etl.Hook]int, map[etl.HeaderType]int) {
	t.Helper()
	r := etl.NewReader(bytes.NewReader(b))
	h, _, err := r.ReadHeader()
	if err != nil {
		t.Fatal(err)
	}
	hooks := map[etl.Hook]int{}
	kinds := map[etl.HeaderType]int{}
	err = drain(r, func(rec *etl.Record) {
		if rec.Kernel() {
			hooks[rec.Hook]++
		} else {
			kinds[rec.Kind]++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return r, h, hooks, kinds
}

// TestX86TraceRecords checks the reader against spec etl.md §6's figures
// of the PerfView trace: buffers, header and event counts.
func TestX86TraceRecords(t *testing.T) {
	r, h, hooks, _ := readAll(t, traceBytes(t, x86Zip))
	if r.Buffers() != 276 || r.CompressedBuffers() != 275 {
		t.Errorf("buffers %d, compressed %d; want 276, 275", r.Buffers(), r.CompressedBuffers())
	}
	if h.PointerSize != 8 || h.ClockType != etl.ClockQPC || h.PerfFreq != 10_000_000 || h.NumberOfProcessors != 8 || h.Build != 9200 {
		t.Errorf("header %+v", h)
	}
	if h.LoggerName != "Relogger" {
		t.Errorf("logger name %q", h.LoggerName)
	}
	for _, c := range []struct {
		hook etl.Hook
		want int
	}{
		{etl.HookSampledProfile, 88809},
		{etl.HookStackWalk, 229},
		{etl.HookStackKeyKernel, 3640},
		{etl.HookStackKeyUser, 8532},
		{etl.HookStackRundown, 1024},
		{etl.HookStackKeyDelete, 3049},
		{etl.HookImageDCStart, 1810},
		{etl.HookImageLoad, 57},
	} {
		if hooks[c.hook] != c.want {
			t.Errorf("hook %#04x: %d events, want %d", uint16(c.hook), hooks[c.hook], c.want)
		}
	}
}

func TestHookString(t *testing.T) {
	for h, want := range map[etl.Hook]string{0x0424: "FileIo 0x0424", 0x0F2E: "PerfInfo 0x0f2e", 0x1E01: "HypervisorX 0x1e01", 0x4010: "group 0x40 0x4010"} {
		if got := h.String(); got != want {
			t.Errorf("%#04x: %q, want %q", uint16(h), got, want)
		}
	}
}
