package etlprof_test

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// testdata is core/etl's, which holds the real traces and their licences.
const testdata = "../../../etl/testdata"

const x86Zip = "perfview-net.4.5.2.x86.etl.zip"

// leafCounts sums the samples of each process's stacks by their leaf's
// image and by their leaf, at weight per sample.
func leafCounts(t *testing.T, s *workload.Spec, perSample float64) (byImage, byFunc map[string]int) {
	t.Helper()
	imageOf := map[string]string{}
	for _, img := range s.Images {
		for _, f := range img.Functions {
			imageOf[f.Name] = img.Name
			imageOf[img.Name+"!"+f.Name] = img.Name
		}
	}
	byImage, byFunc = map[string]int{}, map[string]int{}
	for _, p := range s.Processes {
		for _, th := range p.Threads {
			for _, st := range th.Stacks {
				n := int(st.Weight/perSample + 0.5)
				byImage[imageOf[st.Frames[0]]] += n
				byFunc[st.Frames[0]] += n
			}
		}
	}
	return byImage, byFunc
}

// TestX86TraceFigures imports the PerfView trace's Test.x86.exe and checks
// every figure of spec etl.md §6: its samples, by image of the IP, by JIT
// method, and in neither.
func TestX86TraceFigures(t *testing.T) {
	for _, process := range []string{"Test.x86.exe", "3644"} {
		im := importtest.ImportFile(t, testdata, x86Zip, importer.Options{Process: process, NoSymbolsBeside: true})
		if im.Format != importer.ETL || im.Samples != 4900 || im.Period != 1e6 || im.SampleType != "cpu/nanoseconds" {
			t.Fatalf("--process %s: format %s, %d samples of %s at period %g; want etl, 4900 of cpu/nanoseconds at 1e6 (interval 10,000 × 100 ns)", process, im.Format, im.Samples, im.SampleType, im.Period)
		}
		if len(im.Spec.Processes) != 1 || im.Spec.Processes[0].Name != "Test.x86.exe" {
			t.Fatalf("processes %+v", im.Spec.Processes)
		}
		byImage, byFunc := leafCounts(t, im.Spec, 1e6)
		for img, want := range map[string]int{"clr.dll": 2289, "ntoskrnl.exe": 24, "clrjit.dll": 24, "KernelBase.dll": 17, "hal.dll": 7, "[jit]": 2502} {
			if byImage[img] != want {
				t.Errorf("image %s: %d samples, want %d", img, byImage[img], want)
			}
		}
		// ntdll.dll: a WOW64 process has two (64- and 32-bit); [unknown]:
		// the user and the kernel regions.
		if n := byImage["ntdll.dll"] + byImage["ntdll.dll#2"]; n != 12 {
			t.Errorf("ntdll.dll: %d samples, want 12", n)
		}
		// the second is another file of the process, and a note says which
		if !hasNote(im.Notes, `Test.x86.exe (pid 3644) has 2 sampled images named ntdll.dll, different files (a 32-bit program under WOW64 maps a 64-bit and a 32-bit ntdll.dll, for one): ntdll.dll is \SystemRoot\System32\ntdll.dll; ntdll.dll#2 is \SystemRoot\SysWOW64\ntdll.dll`) {
			t.Errorf("no note of the two ntdll.dll files: %q", im.Notes)
		}
		if n := byImage["[unknown]"] + byImage["[unknown kernel]"]; n != 4 {
			t.Errorf("[unknown]: %d samples, want 4", n)
		}
		// the sampled images' PDBs, clr.dll's first (DbgID_RSDS)
		if !hasNote(im.Notes, "from which a symbol listing (--symbols, docs/etl.md) would name their functions: clr.dll: clr.pdb {19f24eba-4636-42ec-9087-73be8eca8a4d} age 2; ntoskrnl.exe: ntkrnlmp.pdb") {
			t.Errorf("no note of the PDBs: %q", im.Notes)
		}
		for fn, want := range map[string]int{
			"System.DateTime.GetDatePart":                     1140,
			"System.TimeZoneInfo.TransitionTimeToDateTime":    178,
			"System.TimeZoneInfo.GetIsDaylightSavingsFromUtc": 158,
			"System.DateTime.get_Now":                         138,
		} {
			if byFunc[fn] != want {
				t.Errorf("JIT method %s: %d samples, want %d", fn, byFunc[fn], want)
			}
		}
	}
}

// TestX86TraceProcesses imports every process: the idle thread's samples
// are idle time, the others' are the processes of spec etl.md §6.
func TestX86TraceProcesses(t *testing.T) {
	im := importtest.ImportFile(t, testdata, x86Zip, importer.Options{NoSymbolsBeside: true})
	if im.Samples != 88809-82128 {
		t.Errorf("%d samples, want the 6,681 not on the idle thread", im.Samples)
	}
	perName := map[string]int{}
	for _, p := range im.Spec.Processes {
		name, _, _ := strings.Cut(p.Name, "#")
		for _, th := range p.Threads {
			for _, st := range th.Stacks {
				perName[name] += int(st.Weight/1e6 + 0.5)
			}
			if th.Busy <= 0 || th.Busy > 1 {
				t.Errorf("%s: busy %g", p.Name, th.Busy)
			}
		}
	}
	for name, want := range map[string]int{"Test.x86.exe": 4900, "PerfView.exe": 637, "MsMpEng.exe": 560, "svchost.exe": 243, "dwm.exe": 141, "System": 134} {
		if perName[name] != want {
			t.Errorf("%s: %d samples, want %d", name, perName[name], want)
		}
	}
	if !hasNote(im.Notes, "82128 samples on the idle thread") {
		t.Errorf("no note of the idle samples: %q", im.Notes)
	}
}

func hasNote(notes []string, part string) bool {
	for _, n := range notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// TestUncompressedTraces reads the two uncompressed real traces, which
// hold no samples: a clear error saying so.
func TestUncompressedTraces(t *testing.T) {
	for _, name := range []string{"etlparser-ShutdownPerfDiagLogger.etl", "etlparser-lxcore_kernel.etl"} {
		_, err := importer.Import(name, importtest.ReadFile(t, testdata, name), importer.Options{NoSymbolsBeside: true})
		if err == nil || !strings.Contains(err.Error(), "no samples") || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s: error %v, want a 'no samples' error naming the file", name, err)
		}
	}
}

// TestZipOfSomethingElse refuses a zip without an .etl clearly, detected
// or forced.
func TestZipOfSomethingElse(t *testing.T) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("notes.txt")
	w.Write([]byte("hello"))
	z.Close()
	for _, f := range []importer.Format{"", importer.ETL} {
		_, err := importer.Import("x.zip", buf.Bytes(), importer.Options{Format: f})
		if err == nil || !strings.Contains(err.Error(), "notes.txt") || !strings.Contains(err.Error(), ".etl") {
			t.Errorf("format %q: error %v, want one naming what the zip holds and the .etl it lacks", f, err)
		}
	}
}

// TestMemoryBudget: a trace is read a buffer at a time, so a budget reads
// a trace of a third of it (not a tenth, as a binary pprof profile); the
// .etl inside a zip may inflate to as much, checked before inflating.
func TestMemoryBudget(t *testing.T) {
	data := importtest.ReadFile(t, testdata, x86Zip) // 3.4 MiB, its .etl 4.2 MiB
	if _, err := importer.Import(x86Zip, data, importer.Options{Memory: 16 << 20, Process: "Test.x86.exe", NoSymbolsBeside: true}); err != nil {
		t.Errorf("a budget of 16 MiB: %v", err)
	}
	_, err := importer.Import(x86Zip, data, importer.Options{Memory: 12 << 20, NoSymbolsBeside: true})
	if err == nil || !strings.Contains(err.Error(), "the zip archive's net.4.5.2.x86.etl inflates to 4.2 MiB, more than the 4 MiB an import reads") {
		t.Errorf("a budget of 12 MiB: error %v, want the inflated .etl refused", err)
	}
}

// TestDeterministic: the same trace gives the same TOML, byte for byte
// (maps are never what orders a workload's images, functions or notes).
func TestDeterministic(t *testing.T) {
	var first string
	for i := range 3 {
		im := importtest.ImportFile(t, testdata, x86Zip, importer.Options{NoSymbolsBeside: true})
		text, err := im.TOML()
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = string(text)
		} else if string(text) != first {
			t.Fatalf("import %d differs from the first", i+1)
		}
	}
}
