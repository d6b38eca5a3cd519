package calltree_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// Real reports of GHC 9.0 (testdata/ghcprog.hs, `+RTS -p` and `+RTS
// -P`): the tree's rows are stacks from MAIN, weighed by their ticks
// (-P) or their %time of the total ticks (-p).
func TestGHCProf(t *testing.T) {
	t.Parallel()
	im := importFile(t, "ghc_pP.prof", importer.Options{})
	if im.Format != importer.GHCProf || im.SampleType != "ticks" || im.Samples != 444 || im.Period != 1000 || im.PeriodUnit != "us" {
		t.Errorf("format %s, sample type %q, %d samples, period %v %s; want ghcprof, ticks, 444, 1000 us", im.Format, im.SampleType, im.Samples, im.Period, im.PeriodUnit)
	}
	sw := importtest.StackWeights(im.Spec)
	for stack, want := range map[string]float64{
		"spin.step <- spin <- heavy <- callerA <- main.go.acc' <- main.go <- main <- MAIN": 107,
		"medium.\\ <- medium <- main.go.acc' <- main.go <- main <- MAIN":                   85,
		"spin <- light <- main.go.acc' <- main.go <- main <- MAIN":                         24,
	} {
		if sw[stack] != want {
			t.Errorf("stack %q: %v ticks, want %v", stack, sw[stack], want)
		}
	}
	// The flat table's ticks, per cost centre.
	leaf := importtest.LeafWeights(im.Spec)
	for name, want := range map[string]float64{"spin.step": 183, "medium.\\": 118, "spin": 99, "medium": 44} {
		if leaf[name] != want {
			t.Errorf("%s: %v ticks, want the flat table's %v", name, leaf[name], want)
		}
	}
	if p := im.Spec.Processes[0]; p.Name != "hsprog" || len(p.Threads) != 1 || p.Threads[0].Busy != 1 {
		t.Errorf("process %q: want hsprog (the report's program), one thread of busy 1", p.Name)
	}
	names := map[string]bool{}
	for _, img := range im.Spec.Images {
		names[img.Name] = true
	}
	if !names["Main"] || !names["MAIN"] || len(names) != 2 {
		t.Errorf("images %v: want the modules with time, MAIN and Main", names)
	}

	pct := importFile(t, "ghc_p.prof", importer.Options{})
	if pct.Samples != 453 || pct.SampleType != "%time × total ticks" {
		t.Errorf("-p: %d samples, sample type %q; want 453, %%time × total ticks", pct.Samples, pct.SampleType)
	}
	importtest.ApproxWeights(t, "-p leaf", importtest.LeafWeights(pct.Spec), map[string]float64{
		// individual %time of the tree's rows × 453 / 100
		"spin.step": (24.1 + 7.3 + 7.1) * 4.53, "spin": (13.9 + 4.2 + 7.5) * 4.53,
		"medium.\\": (6.0 + 1.5 + 13.9) * 4.53, "medium": (3.5 + 1.1 + 9.9) * 4.53,
	})
}

// The GHC 7 layout (no SRC column) and SCC labels with spaces (GHC 9,
// columns aligned to the header).
func TestGHCProfLayouts(t *testing.T) {
	t.Parallel()
	im := importFile(t, "ghc7.prof", importer.Options{})
	importtest.ApproxWeights(t, "GHC 7 stack", importtest.StackWeights(im.Spec), map[string]float64{"main <- MAIN": 500, "fib <- main <- MAIN": 1500})
	if im.Spec.Processes[0].Name != "prog" {
		t.Errorf("process %q, want prog", im.Spec.Processes[0].Name)
	}
	spaced := "\tThu Nov 26 10:00 2026 Time and Allocation Profiling Report  (Final)\n\n\t   my prog +RTS -P -RTS\n\n" +
		"\ttotal time  =        0.01 secs   (10 ticks @ 1000 us, 4 processors)\n\ttotal alloc =      67,496 bytes  (excludes profiling overheads)\n\n" +
		"                                                                          individual      inherited\n" +
		"COST CENTRE  MODULE SRC                       no.     entries  %time %alloc   %time %alloc  ticks     bytes\n\n" +
		"MAIN         MAIN   <built-in>                  1           0    0.0    0.0   100.0  100.0      0         0\n" +
		" my label    Main   <no location info>          2           1   60.0    0.0   100.0    0.0      6         0\n" +
		"  inner      Main   Lab 6.hs:(18,1)-(19,43)     3           1   40.0    0.0    40.0    0.0      4         0\n"
	im, err := importer.Import("spaced.prof", []byte(spaced), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	importtest.CheckInvariants(t, im)
	importtest.ApproxWeights(t, "spaced stack", importtest.StackWeights(im.Spec), map[string]float64{"my label <- MAIN": 6, "inner <- my label <- MAIN": 4})
	if im.Spec.Processes[0].Name != "my prog" || !strings.Contains(strings.Join(im.Notes, "\n"), "4 capabilities") {
		t.Errorf("process %q, notes %q: want \"my prog\" and a note on the 4 capabilities", im.Spec.Processes[0].Name, im.Notes)
	}
}

// The JSON report of GHC 9.0's `+RTS -pj` (testdata/ghcprog.hs run for
// 60): the tree's nodes are the text report's rows, weighed by their
// ticks, and detection needs no --format (the file is prog.prof too).
func TestGHCProfJSON(t *testing.T) {
	t.Parallel()
	im := importFile(t, "ghc_pj.prof", importer.Options{})
	if im.Format != importer.GHCProf || im.SampleType != "ticks" || im.Samples != 546 || im.Period != 1000 || im.PeriodUnit != "us" {
		t.Errorf("format %s, sample type %q, %d samples, period %v %s; want ghcprof, ticks, 546 (total_ticks), 1000 us", im.Format, im.SampleType, im.Samples, im.Period, im.PeriodUnit)
	}
	// the nodes' individual ticks, per cost centre, worked out from the file
	importtest.EqualWeights(t, "leaf", importtest.LeafWeights(im.Spec), map[string]float64{"spin.step": 216, "spin": 142, "medium.\\": 113, "medium": 75})
	if sw := importtest.StackWeights(im.Spec); sw["spin.step <- spin <- heavy <- callerA <- main.go.acc' <- main.go <- main <- MAIN"] == 0 {
		t.Errorf("stacks %v: want the path from MAIN, as the text report's tree gives it", sw)
	}
	if p := im.Spec.Processes[0]; p.Name != "hsprog" || len(p.Threads) != 1 || p.Threads[0].Busy != 1 {
		t.Errorf("process %q: want hsprog (the report's program), one thread of busy 1", p.Name)
	}
	if n := len(importtest.ImageNames(im.Spec)); n != 2 {
		t.Errorf("images %v: want the two modules with ticks, MAIN and Main (cost centres without ticks make no function)", importtest.ImageNames(im.Spec))
	}
	for _, c := range []struct{ name, text, want string }{
		{"unknown cost centre", `{"program":"p","total_ticks":1,"tick_interval":1000,"cost_centres":[{"id":1,"label":"MAIN","module":"MAIN"}],"profile":{"id":1,"ticks":0,"children":[{"id":7,"ticks":1,"children":[]}]}}`, "names cost centre 7"},
		{"zero ticks", `{"program":"p","total_ticks":0,"tick_interval":1000,"cost_centres":[{"id":1,"label":"MAIN","module":"MAIN"}],"profile":{"id":1,"ticks":0,"children":[]}}`, "the report has 0 ticks"},
		{"bad ticks", `{"program":"p","total_ticks":1,"tick_interval":1000,"cost_centres":[{"id":1,"label":"MAIN","module":"MAIN"}],"profile":{"id":1,"ticks":"x","children":[]}}`, "in.prof:1: column"},
	} {
		_, err := importer.Import("in.prof", []byte(c.text), importer.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestGHCProfDropIdle(t *testing.T) {
	t.Parallel()
	text := "COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc ticks bytes\n" +
		"MAIN MAIN <built-in> 1 0 0.0 0.0 100.0 100.0 0 0\n" +
		" IDLE IDLE <built-in> 2 0 50.0 0.0 50.0 0.0 5 0\n" +
		" main Main a.hs:1:1 3 1 50.0 0.0 50.0 0.0 5 0\n"
	im, err := importer.Import("idle.prof", []byte(text), importer.Options{DropIdle: true})
	if err != nil {
		t.Fatal(err)
	}
	importtest.ApproxWeights(t, "stack", importtest.StackWeights(im.Spec), map[string]float64{"main <- MAIN": 5})
}

func TestGHCProfErrors(t *testing.T) {
	t.Parallel()
	const title = "\tThu Nov 26 10:00 2026 Time and Allocation Profiling Report  (Final)\n\n\t   p +RTS -p -RTS\n\n"
	const ticks = "\ttotal time  =        0.01 secs   (10 ticks @ 1000 us, 1 processor)\n\n"
	const tree = "COST CENTRE MODULE SRC no. entries %time %alloc %time %alloc\n\n"
	for _, c := range []struct{ name, text, want string }{
		{"no tree", title + ticks, "in: no cost-centre tree"},
		{"no ticks", title + tree + "MAIN MAIN <built-in> 1 0 0.0 0.0 100.0 100.0\n", "in:5: the report has no ticks column and no `total time` line"},
		{"zero ticks", title + "\ttotal time  =        0.00 secs   (0 ticks @ 20 ms)\n\n" + tree + "MAIN MAIN <built-in> 1 0 0.0 0.0 0.0 0.0\n", "in:7: the report has 0 ticks"},
		{"bad ticks line", title + "\ttotal time  = soon\n", "in:5: \"total time  = soon\" does not give the ticks"},
		{"short row", title + ticks + tree + "MAIN MAIN 1 0\n", "in:9: \"MAIN MAIN 1 0\" is not a row"},
		{"bad number", title + ticks + tree + "MAIN MAIN <built-in> 1 0 0.0 0.0 1x0.0 100.0\n", "in:9: %time \"1x0.0\" is not a number"},
		{"skipped level", title + ticks + tree + "MAIN MAIN <built-in> 1 0 0.0 0.0 100.0 100.0\n   f Main a.hs:1 2 1 100.0 0.0 100.0 0.0\n", "in:10: \"f\" is 3 levels deeper"},
	} {
		_, err := importer.Import("in", []byte(c.text), importer.Options{Format: importer.GHCProf})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
