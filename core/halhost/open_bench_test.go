package halhost_test

import (
	"testing"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/halplugins/hal"
)

// BenchmarkOpenMachine measures opening (configure, describe, abilities)
// and closing the apic and pmu HALs of one 4-processor Windows 10 machine
// per vendor, through plugin processes and in-process: on AuthenticAMD the
// pmu describes the Amd64 processor-specific sources too.
func BenchmarkOpenMachine(b *testing.B) {
	for _, vendor := range []string{hal.VendorIntel, hal.VendorAMD} {
		for _, mode := range []string{"plugin", "inproc"} {
			b.Run(vendor+"/"+mode, func(b *testing.B) {
				extra := ""
				if mode == "inproc" {
					extra = "[hal.apic]\ntransport = \"inproc\"\n[hal.pmu]\ntransport = \"inproc\"\n"
				}
				h := newHost(b, extra)
				m := machine
				m.Vendor = vendor
				sources := 0
				for b.Loop() {
					hals, err := h.OpenMachine([]string{"apic", "pmu"}, m, halhost.Discard{})
					if err != nil {
						b.Fatal(err)
					}
					sources = 0
					for _, mh := range hals {
						sources += len(mh.Sources())
						mh.Close()
					}
				}
				b.ReportMetric(float64(sources), "sources")
			})
		}
	}
}
