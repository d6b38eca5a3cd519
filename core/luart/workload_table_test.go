package luart

import (
	"strings"
	"testing"
)

// The table forms of a workload run through m:run: the minimal form, the
// full form under either key (process or processes), processes given as
// p or by name, u64 addresses (issue 28 §3, issue 30 §2).
func TestWorkloadTableForms(t *testing.T) {
	runScript(t, Config{Seed: 1, HALs: inprocHALs(t)}, `
local m = lab.machine{ cpus = 2, hal = {} }
local p = m:process{ name = "app" }
local main = { name = "main", base = 0x401000, size = 0x1000, weight = 1 }
local work = { name = "work", base = lab.u64("0x402000"), size = 0x1000, weight = 3 }
local forms = {
  minimal = { process = p, functions = { main, work } },
  ["minimal, a thread as its process"] = { process = p:thread(), functions = { main, work } },
  processes = { processes = { { name = "app", functions = { main, work }, threads = { { cpu = 0 }, { cpu = 1 } } } } },
  ["process, TOML's keys"] = { process = { { name = "app", ["function"] = { main, work }, thread = { { cpu = 1 } } } } },
  ["proc = p"] = { processes = { { proc = p, functions = { main, work } } } },
  images = { images = { { name = "app.exe", base = 0x400000, functions = {
      { name = "main", offset = 0x1000, size = 0x1000, weight = 1 },
      { name = "work", offset = 0x2000, size = 0x1000, weight = 3 } } } },
    processes = { { name = "app" } } },
}
for name, w in pairs(forms) do
  local r = m:run{ duration_us = 20000, workload = w }
  local main, work = r.truth.main.instructions, r.truth.work.instructions
  lab.check(main > 0 and math.abs(work / main - 3) < 0.3, name .. ": main " .. main .. ", work " .. work)
end
local i = m:images{ workload = forms.processes }
lab.check(i.processes[1].name == "app" and i.processes[1].process:id() == p:id(), "m:images takes processes")
`)
}

// A workload table's errors name its fields with its own keys: the TOML
// form's keys where it uses them (process[1].thread[2].cpu, as the docs
// promise), its plurals where it says them, the minimal form's own keys
// (functions, threads); from the decoder, the checks against the machine
// and Resolve alike.
func TestWorkloadTableErrorsNameItsKeys(t *testing.T) {
	const m = `local m = lab.machine{ cpus = 2, hal = {} } local p = m:process{ name = "app" } local q = lab.machine{}:process{}
local f = { name = "main", base = 0x401000, size = 0x1000, weight = 1 }
`
	for _, tc := range []struct{ workload, want string }{
		// the machine's processors (checked in luart)
		{`{ process = { { name = "app", ["function"] = { f }, thread = { {}, { cpu = 5 } } } } }`,
			`m:run{...}: field "workload": process[1].thread[2].cpu: 5, but the machine has 2 processors (0…1)`},
		{`{ processes = { { name = "app", functions = { f }, threads = { {}, { cpu = 5 } } } } }`,
			`processes[1].threads[2].cpu: 5, but the machine has 2 processors (0…1)`},
		{`{ process = p, functions = { f }, threads = { { cpu = 5 } } }`,
			`threads[1].cpu: 5, but the machine has 2 processors (0…1)`},
		{`{ processes = { { name = "nobody", functions = { f } } } }`,
			`processes[1].name: no process named "nobody" on this machine`},
		// Resolve's checks (in the workload package)
		{`{ process = { { name = "app", ["function"] = { f }, thread = { {}, { busy = 2 } } } } }`,
			`m:run: process[1].thread[2].busy: must be > 0 and at most 1, got 2`},
		{`{ processes = { { name = "app", functions = { f, { name = "g", base = 0x402000, size = 0, weight = 1 } } } } }`,
			`processes[1].functions[2].size: must be > 0`},
		{`{ process = p, functions = { { name = "f", base = 0x401000, size = 16, weight = 0/0 } } }`,
			`functions[1].weight: must be >= 0, got NaN`},
		// the decoder's
		{`{ process = p, functions = { f }, threads = { { cpus = 1 } } }`, `threads[1].cpus: unknown key; did you mean "cpu"?`},
		{`{ process = p, functions = {} }`, `functions: must list at least one function`},
		{`{ functions = { f } }`, `functions: gives a process's functions, but there is no process`},
		// Lua's values (converted in luart)
		{`{ process = p, functions = { { name = "f", base = 0x401000, size = 16, weight = print } } }`,
			`functions[1].weight: a function is not a workload value`},
		{`{ process = q, functions = { f } }`, `process: a process of another machine`},
		{`{ process = p, functions = { f, x = 1 } }`, `functions: mixes list elements and named keys`},
		{`{ process = p, functions = { f }, [true] = 1 }`, `has the key true, neither a name nor a list index`},
		{`{ f }`, `expected a table with named keys`},
	} {
		src := m + `m:run{ duration_us = 1000, workload = ` + tc.workload + ` }`
		msg := labError(t, src)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s:\n%s\nwant %q", tc.workload, msg, tc.want)
		}
	}
}
