package native_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// @[ustack()] = count(): stacks leaf first, the value after each; the
// frames' offsets become addresses inside their functions.
func TestDTrace(t *testing.T) {
	t.Parallel()
	im := importFile(t, "dtrace_ustack.txt", importer.Options{})
	if im.Format != importer.DTrace || im.SampleType != "count" || im.Samples != 83 {
		t.Errorf("format %s, sample type %q, %d samples; want dtrace, count, 83", im.Format, im.SampleType, im.Samples)
	}
	if !importtest.Approx(im.Period, 1e6/997) || im.PeriodUnit != "us" {
		t.Errorf("period %v %s, want 1e6/997 us (profile-997)", im.Period, im.PeriodUnit)
	}
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"memcpy <- parse <- main <- _start": 17,
		"parse <- main <- _start":           40,
		"render <- main <- _start":          23,
		"0x7fffbf3a1000 <- main <- _start":  3,
	})
	// parse is seen at +0x10 (a leaf) and +0x44 (a caller): it spans
	// 0x44+16 bytes from its symbol's start, its hotspot at +0x10.
	_, parse := importtest.Function(t, im.Spec, "demo", "parse")
	if parse.Offset != 0 || parse.Size != 0x44+profmodel.Padding || len(parse.Hotspots) != 1 || parse.Hotspots[0].Offset != 0x10 {
		t.Errorf("parse: +%s, %d bytes, hotspots %+v; want +0x0, %d bytes, one at +0x10", parse.Offset, parse.Size, parse.Hotspots, 0x44+profmodel.Padding)
	}
	// main follows, 16-byte aligned; render (printed without an offset:
	// at its start) has its hotspot at +0.
	if _, main := importtest.Function(t, im.Spec, "demo", "main"); main.Offset != 0x60 {
		t.Errorf("main at +%s, want +0x60 (after parse's 0x54 bytes, aligned)", main.Offset)
	}
	if _, render := importtest.Function(t, im.Spec, "demo", "render"); len(render.Hotspots) != 1 || render.Hotspots[0].Offset != 0 {
		t.Errorf("render hotspots %+v, want one at +0", render.Hotspots)
	}
	if _, f := importtest.Function(t, im.Spec, "[unknown]", "0x7fffbf3a1000"); f.Size != profmodel.SyntheticSize {
		t.Errorf("an unsymbolized pc: %d bytes, want the synthetic %d", f.Size, profmodel.SyntheticSize)
	}
	if p := im.Spec.Processes[0]; p.Name != "dtrace_ustack.txt" || len(p.Threads) != 1 {
		t.Errorf("process %q, %d threads: want the file's name, 1", p.Name, len(p.Threads))
	}
}

// Keys before the stack name the processes; an entry with an empty
// stack is dropped with a note.
func TestDTraceKeys(t *testing.T) {
	t.Parallel()
	im := importFile(t, "dtrace_keys.txt", importer.Options{})
	got := map[string]float64{}
	for _, p := range im.Spec.Processes {
		for _, th := range p.Threads {
			got[p.Name] = th.Busy
		}
	}
	importtest.ApproxWeights(t, "busy", got, map[string]float64{"bash 1001": 1, "sshd 1002": 2. / 5})
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{"read <- rl_getc <- main": 5, "write <- packet_write": 2})
	if n := strings.Join(im.Notes, "\n"); !strings.Contains(n, "3 samples with an empty stack") || !strings.Contains(n, "line 11") {
		t.Errorf("notes %q: want the empty stack's 3 samples at line 11", im.Notes)
	}
	one := importFile(t, "dtrace_keys.txt", importer.Options{Process: "sshd 1002"})
	if len(one.Spec.Processes) != 1 || one.Samples != 2 {
		t.Errorf("--process \"sshd 1002\": %d processes, %d samples; want 1, 2", len(one.Spec.Processes), one.Samples)
	}
	if _, err := importer.Import("k", readTestdata(t, "dtrace_keys.txt"), importer.Options{Process: "zsh"}); err == nil || !strings.Contains(err.Error(), "bash 1001, sched 0, sshd 1002") {
		t.Errorf("--process zsh: %v, want an error listing the keys", err)
	}
	// A pid key alone is a number line right before the frames.
	pid := fmt.Sprintf("\n %8d\n              a.out`f+0x4\n %16d\n %8d\n              a.out`g\n %16d\n", 7, 3, 8, 4)
	im, err := importer.Import("pid", []byte(pid), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Spec.Processes) != 2 || im.Spec.Processes[0].Name != "7" || im.Spec.Processes[1].Name != "8" {
		t.Errorf("processes %+v: want 7 and 8", im.Spec.Processes)
	}
}

// stack() is the kernel's; with ustack() beside it, two groups of frames
// make one stack, the kernel's leaf first.
func TestDTraceKernel(t *testing.T) {
	t.Parallel()
	im := importFile(t, "dtrace_kernel.txt", importer.Options{})
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{
		"i86_mwait <- cpu_idle_mwait <- idle <- thread_start":                                2237,
		"cv_wait <- txg_wait_open <- dmu_tx_wait <- sys_syscall <- __write <- flush <- main": 12,
	})
	for _, c := range []struct {
		img, fn string
		kernel  bool
	}{{"unix", "idle", true}, {"zfs", "txg_wait_open", true}, {"genunix", "cv_wait", true}, {"libc.so.1", "__write", false}, {"demo", "main", false}} {
		if img, _ := importtest.Function(t, im.Spec, c.img, c.fn); img.Kernel != c.kernel {
			t.Errorf("image %s: kernel %v, want %v", img.Name, img.Kernel, c.kernel)
		}
	}
	drop := importFile(t, "dtrace_kernel.txt", importer.Options{DropIdle: true})
	if drop.Samples != 12 {
		t.Errorf("--drop-idle: %d samples, want 12 (i86_mwait's dropped)", drop.Samples)
	}
}

func TestDTraceErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, text, want string }{
		{"cut", "\n              a.out`f+0x4\n              a.out`main\n", "in:2: the last entry has no value"},
		{"stray text", "\n              a.out`f+0x4\n  what is this\n              a.out`main\n", "in:3: \"what is this\" is neither a frame"},
		{"huge value", "\n              a.out`f+0x4\n 99999999999999999999\n", "in:3: value \"99999999999999999999\""},
		{"nothing", "\n              a.out`f+0x4\n                0\n", "in: no stack with a positive value"},
	} {
		_, err := importer.Import("in", []byte(c.text), importer.Options{Format: importer.DTrace})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	im, err := importer.Import("drops", []byte("dtrace: 120 drops on CPU 1\n\n              a.out`f+0x4\n                2\n"), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Warnings) != 1 || !strings.Contains(im.Warnings[0], "120 drops on CPU 1") {
		t.Errorf("warnings %q: want the drops said", im.Warnings)
	}
}
