package importer_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// deepChains are profiles of each tree-shaped format whose n nodes form
// one chain (each node the parent of the next) with a sample on each:
// n stacks of 1 … n frames, n²/2 in all.
func deepChains(n int) map[string][]byte {
	list := func(f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, ",")
	}
	nodes := list(func(i int) string {
		parent := ""
		if i > 0 {
			parent = fmt.Sprintf(`,"parent":%d`, i)
		}
		return fmt.Sprintf(`{"id":%d,"callFrame":{"functionName":"f%d","url":"a.js"}%s}`, i+1, i, parent)
	}) // (the chunks' nodes: the same as importtest.V8DeepChain's)
	samples := list(func(i int) string { return fmt.Sprint(i + 1) })
	deltas := list(func(int) string { return "100" })
	out := map[string][]byte{}
	out["v8.cpuprofile"] = importtest.V8DeepChain(n)
	out["chunks.json"] = fmt.Appendf(nil, `{"traceEvents":[{"pid":1,"tid":1,"ts":0,"ph":"P","name":"Profile","id":"0x1","args":{"data":{"startTime":0}}},
{"pid":1,"tid":2,"ts":1,"ph":"P","name":"ProfileChunk","id":"0x1","args":{"data":{"cpuProfile":{"nodes":[%s],"samples":[%s]},"timeDeltas":[%s]}}}]}`, nodes, samples, deltas)
	out["stackframes.json"] = fmt.Appendf(nil, `{"traceEvents":[],"stackFrames":{%s},"samples":[%s]}`,
		list(func(i int) string {
			parent := ""
			if i > 0 {
				parent = fmt.Sprintf(`,"parent":"%d"`, i-1)
			}
			return fmt.Sprintf(`"%d":{"name":"f%d","category":"c"%s}`, i, i, parent)
		}),
		list(func(i int) string { return fmt.Sprintf(`{"pid":1,"tid":1,"ts":%d,"sf":"%d"}`, 100*i, i) }))
	out["gecko.json"] = fmt.Appendf(nil, `{"meta":{"version":30,"preprocessedProfileVersion":56,"interval":1},"libs":[],
"shared":{"stringArray":[%s]},
"threads":[{"name":"T","pid":"1","tid":1,
"samples":{"length":%d,"stack":[%s],"timeDeltas":[%s]},
"stackTable":{"length":%d,"frame":[%s],"prefix":[%s]},
"frameTable":{"length":%d,"func":[%s]},
"funcTable":{"length":%d,"name":[%s],"resource":[%s]}}]}`,
		list(func(i int) string { return fmt.Sprintf(`"f%d"`, i) }),
		n, list(func(i int) string { return fmt.Sprint(i) }), list(func(int) string { return "1" }),
		n, list(func(i int) string { return fmt.Sprint(i) }), list(func(i int) string {
			if i == 0 {
				return "null"
			}
			return fmt.Sprint(i - 1)
		}),
		n, list(func(i int) string { return fmt.Sprint(i) }),
		n, list(func(i int) string { return fmt.Sprint(i) }), list(func(int) string { return "-1" }))
	out["evented.speedscope.json"] = fmt.Appendf(nil, `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[%s]},
"profiles":[{"type":"evented","name":"t","unit":"microseconds","startValue":0,"endValue":%d,"events":[%s,%s]}]}`,
		list(func(i int) string { return fmt.Sprintf(`{"name":"f%d","file":"a.py"}`, i) }), 2*n,
		list(func(i int) string { return fmt.Sprintf(`{"type":"O","frame":%d,"at":%d}`, i, i) }),
		list(func(i int) string { return fmt.Sprintf(`{"type":"C","frame":%d,"at":%d}`, n-1-i, n+i) }))
	return out
}

// TestDeepTreesAreCut: a tree-shaped profile of one chain of nodes, a
// sample on each (n stacks of up to n frames), imports as stacks of at
// most profmodel.MaxStackDepth frames, the innermost, with a warning,
// in every tree-shaped format; what the import allocates grows with n,
// not n² (a chain of 16,000 nodes, 2.6 MB, reached 3.7 GB).
func TestDeepTreesAreCut(t *testing.T) {
	const n = 3000
	for name, data := range deepChains(n) {
		var im *importer.Imported
		var err error
		bytes := allocated(func() { im, err = importer.Import(name, data, importer.Options{}) })
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if name == "v8.cpuprofile" { // (the others' workloads are alike: the check takes seconds)
			importtest.CheckInvariants(t, im)
		}
		deepest, leafDeep := 0, false
		for _, p := range im.Spec.Processes {
			for _, th := range p.Threads {
				for _, s := range th.Stacks {
					deepest = max(deepest, len(s.Frames))
					leafDeep = leafDeep || s.Frames[0] == fmt.Sprintf("f%d", n-1)
				}
			}
		}
		if deepest != profmodel.MaxStackDepth || !leafDeep {
			t.Errorf("%s: the deepest stack has %d frames (the deepest leaf kept: %v), want %d and the innermost kept", name, deepest, leafDeep, profmodel.MaxStackDepth)
		}
		if w := strings.Join(im.Warnings, "\n"); !strings.Contains(w, "deeper than 256 frames and keep their innermost 256") {
			t.Errorf("%s: warnings %q do not say stacks were cut", name, im.Warnings)
		}
		// n stacks of 256 frames at some 100 bytes a frame in all the
		// copies, and the content: far from n²/2 frames' 450 MB
		if limit := uint64(n*profmodel.MaxStackDepth*100 + 40*len(data)); bytes > limit {
			t.Errorf("%s: the import allocated %s, want at most %s", name, input.Size(int64(bytes)), input.Size(int64(limit)))
		}
	}
}

// TestDeepTreesHoldTheBudget: the memory budget holds for the stacks an
// import builds, counted as they are allocated: a chain whose cut
// stacks would hold more than the budget stops with an error naming
// it, having allocated about the budget.
func TestDeepTreesHoldTheBudget(t *testing.T) {
	const n, budget = 8000, 32 << 20
	data := deepChains(n)["v8.cpuprofile"]
	var err error
	bytes := allocated(func() {
		_, err = importer.Import("deep.cpuprofile", data, importer.Options{Memory: budget})
	})
	if err == nil || !strings.Contains(err.Error(), "deep.cpuprofile: the import stopped: its stacks would hold more than the import's memory budget of 32 MiB") ||
		!strings.Contains(err.Error(), "raise the budget (--memory)") {
		t.Fatalf("error %v, want the budget's", err)
	}
	if bytes > 4*budget {
		t.Errorf("the import allocated %s under a budget of %s", input.Size(int64(bytes)), input.Size(budget))
	}
}

// A workload the cache keeps is answered to a load whose memory budget
// holds what its import counted, and refused with the import's own
// budget error to one whose budget does not: the budget holds whichever
// run of a sweep imported the file first.
func TestCachedImportHoldsTheLoadsBudget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep.cpuprofile")
	if err := os.WriteFile(path, importtest.V8DeepChain(2000), 0o644); err != nil {
		t.Fatal(err)
	}
	c := importer.NewCache(64 << 20)
	for _, step := range []struct {
		memory int64
		stop   bool
	}{{0, false}, {256 << 20, false}, {4 << 20, true}, {0, false}} {
		_, err := c.LoadWith(path, importer.LoadOptions{Arch: "x64", Memory: step.memory})
		var be *importer.BudgetError
		if stopped := errors.As(err, &be); stopped != step.stop {
			t.Errorf("budget %s: error %v, want stopped by the budget: %v", input.Size(step.memory), err, step.stop)
		}
		if step.stop && (be.Budget != step.memory || !strings.Contains(err.Error(), "deep.cpuprofile: the import stopped: its stacks would hold more than the import's memory budget of 4 MiB")) {
			t.Errorf("budget %s: error %v (%+v)", input.Size(step.memory), err, be)
		}
	}
	if _, err := importer.NewCache(64<<20).LoadWith(path, importer.LoadOptions{Arch: "x64", Memory: 4 << 20}); !errors.As(err, new(*importer.BudgetError)) {
		t.Errorf("a cold import under 4 MiB: %v, want the budget's error", err)
	}
}
