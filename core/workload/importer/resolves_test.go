package importer_test

import (
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// TestImportResolves: whatever an import returns, m:run resolves (the
// import ends with the run's check). A callgrind file whose functions'
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
