package importer_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// onePprof is a gzipped profile of one sample in each mapping given (at
// the mapping's start + 0x100, function "f<i>").
func onePprof(t *testing.T, maps ...*profile.Mapping) []byte {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1000,
	}
	for i, m := range maps {
		m.ID = uint64(i + 1)
		p.Mapping = append(p.Mapping, m)
		f := &profile.Function{ID: uint64(i + 1), Name: "f" + string(rune('a'+i))}
		p.Function = append(p.Function, f)
		l := &profile.Location{ID: uint64(i + 1), Mapping: m, Address: m.Start + 0x100, Line: []profile.Line{{Function: f}}}
		p.Location = append(p.Location, l)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l}, Value: []int64{1000}})
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRelocation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		arch string
		maps []*profile.Mapping
		// want is each image's base, or err a part of the error.
		want map[string]workload.Address
		err  string
	}{
		{"x64 keeps what fits", "x64", []*profile.Mapping{
			{Start: 0x400000, Limit: 0x500000, File: "/bin/app"},
			{Start: 0xFFFFFFFF81000000, Limit: 0xFFFFFFFF82000000, File: "[kernel.kallsyms]"},
		}, map[string]workload.Address{"app": 0x400000, "[kernel.kallsyms]": 0xFFFFFFFF81000000}, ""},
		{"x64 moves a kernel image off ntoskrnl", "x64", []*profile.Mapping{
			{Start: 0x400000, Limit: 0x500000, File: "/bin/app"},
			{Start: 0xFFFFF80000000000, Limit: 0xFFFFF80000100000, File: "vmlinux"},
		}, map[string]workload.Address{"app": 0x400000, "vmlinux": 0xFFFF800000000000}, ""},
		{"x64 moves user code above MmUserProbeAddress", "x64", []*profile.Mapping{
			{Start: 0x7FFFFFFF0000, Limit: 0x7FFFFFFF8000, File: "/bin/top"},
		}, map[string]workload.Address{"top": 0x10000}, ""},
		{"x86 packs 64-bit addresses", "x86", []*profile.Mapping{
			{Start: 0x55D0C1A2B000, Limit: 0x55D0C1A3B000, File: "/bin/app"},
			{Start: 0x7F0000000000, Limit: 0x7F0000200000, File: "/lib/libc.so.6"},
			{Start: 0xFFFFFFFF81000000, Limit: 0xFFFFFFFF81800000, File: "[kernel.kallsyms]"},
		}, map[string]workload.Address{"app": 0x10000, "libc.so.6": 0x20000, "[kernel.kallsyms]": 0x80410000}, ""}, // 8 MB from 0x80000000 would cross ntoskrnl
		{"x86 keeps a 32-bit layout", "x86", []*profile.Mapping{
			{Start: 0x08048000, Limit: 0x08100000, File: "/bin/app32"},
		}, map[string]workload.Address{"app32": 0x08048000}, ""},
		{"x86 kernel image below ntoskrnl", "x86", []*profile.Mapping{
			{Start: 0x08048000, Limit: 0x08100000, File: "/bin/app32"},
			{Start: 0xFFFFFFFF81000000, Limit: 0xFFFFFFFF81100000, File: "[kernel.kallsyms]"},
		}, map[string]workload.Address{"[kernel.kallsyms]": 0x80000000}, ""},
		{"x86 cannot fit 2.6 GB of user images", "x86", []*profile.Mapping{
			{Start: 0x7F0000000000, Limit: 0x7F0038000000, File: "/lib/a.so"},
			{Start: 0x7F1000000000, Limit: 0x7F1038000000, File: "/lib/b.so"},
			{Start: 0x7F2000000000, Limit: 0x7F2038000000, File: "/lib/huge.so"},
		}, nil, `image "huge.so"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			im, err := importer.Import("reloc.pb.gz", onePprof(t, c.maps...), importer.Options{Arch: c.arch})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "x86") {
					t.Fatalf("err = %v, want one naming %s and the x86 machine", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			importtest.CheckInvariants(t, im)
			got := map[string]workload.Address{}
			for _, img := range im.Spec.Images {
				got[img.Name] = img.Base
				if len(img.Functions) != 1 || img.Functions[0].Offset != 0x100 {
					t.Errorf("image %s: functions %v, want one at +0x100 (offset kept)", img.Name, img.Functions)
				}
			}
			for n, b := range c.want {
				if got[n] != b {
					t.Errorf("image %s at %s, want %s", n, got[n], b)
				}
			}
			tg := x64
			if c.arch == "x86" {
				tg = x86
			}
			if _, err := im.Spec.Resolve(tg); err != nil {
				t.Errorf("Resolve: %v", err)
			}
		})
	}
}

// TestQualifiedNames: a name two images define is referenced as
// image!name in stacks; two source functions of one name in one image are
// one function.
func TestQualifiedNames(t *testing.T) {
	t.Parallel()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Mapping: []*profile.Mapping{
			{ID: 1, Start: 0x400000, Limit: 0x500000, File: "/bin/app"},
			{ID: 2, Start: 0x7F0000000000, Limit: 0x7F0000100000, File: "/lib/libz.so"},
		},
	}
	p.Function = []*profile.Function{{ID: 1, Name: "init", Filename: "a.c"}, {ID: 2, Name: "init", Filename: "b.c"}, {ID: 3, Name: "init", Filename: "z.c"}, {ID: 4, Name: "main"}}
	p.Location = []*profile.Location{
		{ID: 1, Mapping: p.Mapping[0], Address: 0x401000, Line: []profile.Line{{Function: p.Function[0]}}},
		{ID: 2, Mapping: p.Mapping[0], Address: 0x401010, Line: []profile.Line{{Function: p.Function[1]}}},
		{ID: 3, Mapping: p.Mapping[1], Address: 0x7F0000001000, Line: []profile.Line{{Function: p.Function[2]}}},
		{ID: 4, Mapping: p.Mapping[0], Address: 0x402000, Line: []profile.Line{{Function: p.Function[3]}}},
	}
	for i, v := range []int64{10, 20, 30} {
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{p.Location[i], p.Location[3]}, Value: []int64{v}})
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	im, err := importer.Import("dup.pb.gz", b.Bytes(), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	importtest.EqualWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{"app!init <- main": 30, "libz.so!init <- main": 30})
	if _, f := importtest.Function(t, im.Spec, "app", "init"); f.Weight != 30 || f.Size != 0x10+profmodel.Padding || len(f.Hotspots) != 2 {
		t.Errorf("app!init: weight %v, size %d, %d hotspots; want the two merged: 30, 0x10+%d, 2", f.Weight, f.Size, len(f.Hotspots), profmodel.Padding)
	}
}
