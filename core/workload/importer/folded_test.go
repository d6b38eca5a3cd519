package importer_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

func TestFolded(t *testing.T) {
	t.Parallel()
	im := importFile(t, "folded.txt", importer.Options{})
	if im.Format != importer.Folded || im.Samples != 125 {
		t.Errorf("format %s, %d samples: want folded, 125 (the counts' sum)", im.Format, im.Samples)
	}
	// Root-first lines become leaf-first stacks; the two prog;main;compute
	// lines merge; frames keep their text, "_[k]" and spaces included.
	want := map[string]float64{
		"compute <- main <- prog":                                         45,
		"hash <- compute <- main <- prog":                                 20,
		"[unknown] <- hash <- compute <- main <- prog":                    5,
		"operator new(unsigned long) <- compute <- main <- prog":          5,
		"ksys_write_[k] <- entry_SYSCALL_64_[k] <- write <- main <- prog": 10,
		"intel_idle_[k] <- cpuidle_enter_[k] <- do_idle_[k] <- cpu_startup_entry_[k] <- start_secondary_[k] <- secondary_startup_64_no_verify_[k] <- swapper": 40,
	}
	equalWeights(t, "stack", stackWeights(im.Spec), want)
	if len(im.Spec.Images) != 2 {
		t.Fatalf("%d images, want %s and %s", len(im.Spec.Images), importer.FoldedImage, importer.FoldedKernelImage)
	}
	for _, img := range im.Spec.Images {
		kernel := img.Name == importer.FoldedKernelImage
		if img.Kernel != kernel {
			t.Errorf("image %s: kernel = %v", img.Name, img.Kernel)
		}
		for i, f := range img.Functions {
			if f.Size != importer.SyntheticSize || uint64(f.Offset) != uint64(i)*importer.SyntheticSize || len(f.Hotspots) != 0 {
				t.Errorf("%s!%s: +%s, %d bytes, %d hotspots; want +0x%X, %d, none (first-appearance order)", img.Name, f.Name, f.Offset, f.Size, len(f.Hotspots), i*importer.SyntheticSize, importer.SyntheticSize)
			}
		}
	}
	if _, f := function(t, im.Spec, importer.FoldedImage, "prog"); f.Offset != 0 {
		t.Errorf("the first frame seen, prog, is at +%s, want +0x0", f.Offset)
	}
	if im.Spec.Processes[0].Name != "folded.txt" {
		t.Errorf("process %q, want the file's name", im.Spec.Processes[0].Name)
	}
	if _, err := im.Spec.Resolve(x64); err != nil {
		t.Errorf("Resolve(x64): %v", err)
	}
	drop := importFile(t, "folded.txt", importer.Options{DropIdle: true, Process: "myprog"})
	if drop.Samples != 85 || drop.Spec.Processes[0].Name != "myprog" {
		t.Errorf("--drop-idle --process myprog: %d samples, process %q; want 85, myprog", drop.Samples, drop.Spec.Processes[0].Name)
	}
}

// TestFoldedGenerator imports importtest.Folded: each line is a stack of
// its count, leaf first.
func TestFoldedGenerator(t *testing.T) {
	t.Parallel()
	text := importtest.Folded(300, 5000, 9)
	want := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		i := strings.LastIndexByte(line, ' ')
		n, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatal(err)
		}
		frames := strings.Split(line[:i], ";")
		slices.Reverse(frames)
		want[strings.Join(frames, " <- ")] += n
	}
	im, err := importer.Import("gen.folded", []byte(text), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, im)
	equalWeights(t, "stack", stackWeights(im.Spec), want)
	if _, err := im.Spec.Resolve(x64); err != nil {
		t.Errorf("Resolve(x64): %v", err)
	}
}
