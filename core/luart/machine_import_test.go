package luart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twoProcesses is `perf script` text of two programs: prog (pid 10)
// with three samples in compute, other (pid 20) with one in spin.
const twoProcesses = `prog 10   100.000000:     250000 cpu-clock:pppH:
	            1100 compute+0x0 (/usr/bin/prog)

prog 10   100.000250:     250000 cpu-clock:pppH:
	            1104 compute+0x4 (/usr/bin/prog)

prog 10   100.000500:     250000 cpu-clock:pppH:
	            1108 compute+0x8 (/usr/bin/prog)

other 20   100.000750:     250000 cpu-clock:pppH:
	            2200 spin+0x0 (/usr/bin/other)
`

// m:images and m:run take the import's choices of a profile file
// (import = { process, format }, as `workload import --process
// --format`): the process keeps one program's samples; m:images says each
// process's share of the samples and marks the lab's built-in kernel
// functions (builtin = true).
func TestImportOptions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "two.txt"), []byte(twoProcesses), 0o644); err != nil {
		t.Fatal(err)
	}
	rt, _ := newTestRuntime(t, Config{Dir: dir, HALs: inprocHALs(t)})
	err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
		local m = lab.machine{ cpus = 1 }
		local all = m:images{ workload = "two.txt" }
		local shares = {}
		for _, p in ipairs(all.processes) do shares[p.name] = p.share end
		assert(#all.processes == 2 and shares.prog == 0.75 and shares.other == 0.25,
		  ("processes' shares: prog %s, other %s"):format(tostring(shares.prog), tostring(shares.other)))
		local builtin = {}
		for _, im in ipairs(all.images) do
		  for _, f in ipairs(im.functions) do if f.builtin then builtin[#builtin + 1] = im.name .. "!" .. f.name end end
		end
		table.sort(builtin)
		assert(table.concat(builtin, " ") == "ntoskrnl.exe!KiIdleLoop ntoskrnl.exe!KiInterruptDispatch ntoskrnl.exe!KiRetireDpcList", table.concat(builtin, " "))
		local one = m:images{ workload = "two.txt", import = { process = "prog", format = "perf" } }
		assert(#one.processes == 1 and one.processes[1].name == "prog" and one.processes[1].share == 1, "--process prog keeps prog alone")
		for _, im in ipairs(one.images) do assert(im.name ~= "other", "other's image is left out") end
		local r = m:run{ duration_us = 100000, workload = "two.txt", import = { process = "other" } }
		assert(r.truth.spin and not r.truth.compute, "m:run runs other alone")`))
	if err != nil {
		t.Fatalf("import options: %s", err.Detail())
	}
}

// The import field's mistakes name the field and what to give.
func TestImportOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "two.txt"), []byte(twoProcesses), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ call, want string }{
		{`import = 5`, `field "import": expected a table { process = NAME_OR_PID, format = NAME }, got number`},
		{`import = { proc = "prog" }`, `unknown field "proc"`},
		{`import = { format = "perff" }`, `field "format": unknown profile format "perff" (did you mean "perf"?)`},
		{`import = { process = "" }`, `field "process": is empty`},
		{`import = { process = 1.5 }`, `field "process": 1.5 is not a process id`},
		{`import = { process = "nobody" }`, `--process nobody: no sample of a process of that name; the file has other, prog`},
		// a pid as a number reaches the importer as --process takes it (perf's are names)
		{`import = { process = 20 }`, `--process 20: no sample of a process of that name`},
		// a symbol listing is read as workloads are: inside the allowed folders
		{`import = { symbols = "/etc/passwd" }`, `field "symbols": workload "/etc/passwd": outside the folders`},
		{`import = { symbols = "none.symbols" }`, `field "symbols": workload "none.symbols": file does not exist`},
	} {
		rt, _ := newTestRuntime(t, Config{Dir: dir, HALs: inprocHALs(t)})
		err := rt.Exec("s.lua", []byte(`local lab = require "proflab"
			lab.machine{ cpus = 1 }:images{ workload = "two.txt", `+tt.call+` }`))
		if err == nil || !strings.Contains(err.Message, tt.want) {
			t.Errorf("%s: %v, want %q", tt.call, err, tt.want)
		}
	}
	wantErr(t, `local m = lab.machine{ hal = {} }
		m:images{ workload = { process = m:process{}, functions = { { name = "f", base = 0x10000, size = 16, weight = 1 } } }, import = { process = "x" } }`,
		`field "import": is for a profile file the run imports`)
}
