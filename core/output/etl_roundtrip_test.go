package output_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/kernel/nt"
)

// The round trip: the lab's x64 and x86 .etl files imported (importer
// format "etl") give the run's per-function sample counts of the
// process exactly: by name with the symbol listing found beside the
// trace, and by address without it (each imported function's address
// falls in the lab's function it was sampled in).
func TestETLRoundTrip(t *testing.T) {
	for _, arch := range []string{"x64", "x86"} {
		t.Run(arch, func(t *testing.T) {
			l, reg, s := etlLabWith(t, arch, 5, false)
			dir := t.TempDir()
			if _, err := output.Write(dir, reg); err != nil {
				t.Fatal(err)
			}
			funcs := l.Sim.Results()[0].Workload.Funcs
			funcAt := func(addr uint64) string {
				for _, f := range funcs {
					if f.Size > 0 && addr >= f.Addr && addr < f.Addr+f.Size {
						return f.Name
					}
				}
				return fmt.Sprintf("?%#x", addr)
			}
			threads := map[uint32]bool{}
			for _, th := range l.P.Threads() {
				threads[th.ID()] = true
			}
			want := map[string]int{}
			for _, ev := range s.Events() {
				if ev.Hook == nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE && threads[ev.ThreadId] {
					want[funcAt(ev.InstructionPointer)]++
				}
			}
			if want["lex"] == 0 || want["DrvRead"] == 0 {
				t.Fatalf("the session's samples by function %v", want)
			}
			data, err := os.ReadFile(filepath.Join(dir, output.ETLFile))
			if err != nil {
				t.Fatal(err)
			}
			const perSample = 5000 * 100 // the interval, in nanoseconds
			for _, symbols := range []bool{true, false} {
				// the importer finds trace.symbols beside the trace by its name
				im, err := importer.Import(filepath.Join(dir, output.ETLFile), data,
					importer.Options{Format: importer.ETL, Arch: arch, Process: l.P.Name(), NoSymbolsBeside: !symbols})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]int{}
				stacks := map[string]bool{}
				addrOf := importedAddresses(im.Spec)
				for _, p := range im.Spec.Processes {
					for _, th := range p.Threads {
						for _, st := range th.Stacks {
							n := int(st.Weight/perSample + 0.5)
							leaf := st.Frames[0]
							if symbols {
								got[unqualified(leaf)] += n
								if len(st.Frames) > 1 {
									var names []string
									for _, f := range st.Frames {
										names = append(names, unqualified(f))
									}
									stacks[strings.Join(names, " <- ")] = true
								}
								continue
							}
							a, ok := addrOf[leaf]
							if !ok {
								t.Fatalf("imported leaf %q has no address", leaf)
							}
							got[funcAt(a)] += n
						}
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("symbols %v: imported per function %v, the session's %v", symbols, got, want)
				}
				// the stack walks' return addresses name the callers: the
				// imported calling contexts are the workload's
				if symbols && fmt.Sprint(stacks) != "map[DrvRead <- lex <- main:true emit <- main:true lex <- parse <- main:true]" {
					t.Errorf("imported calling contexts %v", stacks)
				}
			}
		})
	}
}

// importedAddresses maps each function of an imported spec, by its
// reference and its plain name, to its address.
func importedAddresses(s *workload.Spec) map[string]uint64 {
	out := map[string]uint64{}
	for _, img := range s.Images {
		for _, f := range img.Functions {
			a := uint64(img.Base) + uint64(f.Offset)
			if f.Base != 0 {
				a = uint64(f.Base)
			}
			out[img.Name+"!"+f.Name] = a
			if _, ok := out[f.Name]; !ok {
				out[f.Name] = a
			}
		}
	}
	return out
}

// unqualified is a function reference's name without its image.
func unqualified(ref string) string {
	for i := len(ref) - 1; i >= 0; i-- {
		if ref[i] == '!' {
			return ref[i+1:]
		}
	}
	return ref
}
