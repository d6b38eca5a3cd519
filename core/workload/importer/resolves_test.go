package importer_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// TestImportResolves: whatever an import returns, m:run resolves. A
// callgrind file whose functions'
// self cost is spread over calling contexts summed a hotspot's weight
// to 1.0000000000000004 by rounding, which the workload refuses
// ("must be between 0 and 1"): the import now keeps it at 1.
func TestImportResolves(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ arch string }{{"x64"}, {"x86"}} {
		im, err := importer.Import("big", []byte(callgrindBig(400, 27)), importer.Options{Arch: c.arch})
		if err != nil {
			t.Fatalf("%s: %v", c.arch, err)
		}
		target := importtest.X64
		if c.arch == "x86" {
			target = importtest.X86
		}
		if _, err := im.Spec.Resolve(target); err != nil {
			t.Errorf("%s: the imported workload does not resolve: %v", c.arch, err)
		}
		if err := im.CheckReadable(); err != nil {
			t.Errorf("%s: CheckReadable: %v", c.arch, err)
		}
		for _, img := range im.Spec.Images {
			for _, f := range img.Functions {
				for _, h := range f.Hotspots {
					if h.Weight > 1 {
						t.Fatalf("%s!%s has a hotspot of weight %v", img.Name, f.Name, h.Weight)
					}
				}
			}
		}
	}
}

// TestCheckReadable: a workload m:run would refuse is refused before it
// is written, naming the file, the first problem and how many more,
// and calling it the importer's bug.
func TestCheckReadable(t *testing.T) {
	t.Parallel()
	im, err := importer.Import("in.cg", []byte(callgrindBig(20, 3)), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range im.Spec.Images {
		for j := range im.Spec.Images[i].Functions {
			for k := range im.Spec.Images[i].Functions[j].Hotspots {
				im.Spec.Images[i].Functions[j].Hotspots[k].Weight = 2
				n++
			}
		}
	}
	if n < 2 {
		t.Fatalf("%d hotspots: want two or more to break", n)
	}
	err = im.CheckReadable()
	for _, want := range []string{
		"in.cg: the workload imported from it would be refused by m:run (image[1].function[1].hotspot[1].weight.: must be between 0 and 1, got 2 (and ",
		" more problems)), and nothing was written: this is a bug of proflab's callgrind importer",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}
