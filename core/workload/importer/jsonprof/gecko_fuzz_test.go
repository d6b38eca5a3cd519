package jsonprof_test

import (
	"fmt"
	"testing"

	"github.com/proflab/proflab/core/workload/importer"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// FuzzGeckoTables: a processed Firefox profile whose tables' lengths,
// indexes and a Gecko schema's positions are any numbers is an error or
// a workload holding the invariants, never a panic, a fatal error or a
// loop over rows the file does not hold (FuzzImport's byte mutations
// rarely reach a table's length).
func FuzzGeckoTables(f *testing.F) {
	f.Add(int64(2), int64(2), int64(2), int64(2), int64(0), int64(1), int64(0))
	f.Add(int64(1e12), int64(2), int64(2), int64(2), int64(0), int64(1), int64(0))
	f.Add(int64(2), int64(1<<62), int64(2), int64(2), int64(0), int64(1), int64(-16))
	f.Add(int64(2), int64(2), int64(1e12), int64(-5), int64(1), int64(0), int64(1<<40))
	f.Fuzz(func(t *testing.T, samples, stacks, frames, funcs, prefix, frame, pos int64) {
		processed := fmt.Sprintf(`{"meta":{"version":30,"preprocessedProfileVersion":56,"interval":1},"libs":[],
"shared":{"stringArray":["a","b"]},
"threads":[{"name":"T","pid":"1","tid":1,
"samples":{"length":%d,"stack":[0,1],"timeDeltas":[0,1]},
"stackTable":{"length":%d,"frame":[0,%d],"prefix":[null,%d]},
"frameTable":{"length":%d,"func":[0,1]},
"funcTable":{"length":%d,"name":[0,1],"resource":[-1,-1]}}]}`, samples, stacks, frame, prefix, frames, funcs)
		gecko := fmt.Sprintf(`{"meta":{"version":20,"interval":1},"libs":[],"threads":[{"name":"T","pid":"1","tid":1,
"samples":{"schema":{"stack":0,"time":1},"data":[[0,1],[1,2]]},
"stackTable":{"schema":{"prefix":%d,"frame":1},"data":[[null,0],[%d,%d]]},
"frameTable":{"schema":{"location":0},"data":[[0],[1]]},
"stringTable":["a","b"]}]}`, pos, prefix, frame)
		for _, data := range []string{processed, gecko} {
			im, err := importer.Import("fuzz.json", []byte(data), importer.Options{})
			if err == nil {
				importtest.CheckInvariants(t, im)
			}
		}
	})
}
