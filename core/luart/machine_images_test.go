package luart

import "testing"

// m:images lists a workload's modules in address order (the built-in
// kernel image included), with their extents, modes, shares and
// functions, and the processes with the user-mode images their threads run.
func TestMachineImages(t *testing.T) {
	cases := []struct{ expr, want string }{
		// x64, in address order: the process's own functions, the user image, then ntoskrnl.exe at
		// 0xFFFFF80000000000 (a u64) and the driver
		{`(function() local i = lab.machine{ hal = {} }:images{ workload = W }
			local out = {}
			for _, im in ipairs(i.images) do out[#out + 1] = im.name .. ":" .. tostring(im.base) .. "+" .. im.size .. ":" .. tostring(im.kernel) .. ":" .. #im.functions end
			return table.concat(out, " ") end)()`,
			"own:196608+256:false:1 app.exe:5368709120+8192:false:2 ntoskrnl.exe:0xFFFFF80000000000+14336:true:3 drv.sys:0xFFFFF80001000000+1024:true:1"},
		{`(function() local i = lab.machine{ hal = {} }:images{ workload = W }
			return i.name .. " " .. i.images[2].functions[1].name .. "@" .. tostring(i.images[2].functions[1].base) .. " " .. i.images[1].process end)()`,
			"w a@5368713216 own"},
		// the processes: the machine's process when it has one, and the images the threads run
		{`(function() local m = lab.machine{ hal = {} }
			local p = m:process{ name = "own" }
			local i = m:images{ workload = W }
			return tostring(i.processes[1].process:id() == p:id()) .. " " .. table.concat(i.processes[1].images, ",") .. " " .. tostring(i.processes[2].process) end)()`,
			"true own,app.exe nil"},
		// each image's share of the threads' execution: own runs a, o and d alike, other runs d
		{`(function() local out = {}
			for _, im in ipairs(lab.machine{ hal = {} }:images{ workload = W }.images) do out[#out + 1] = ("%s=%.4f"):format(im.name, im.share) end
			return table.concat(out, " ") end)()`,
			"own=0.1667 app.exe=0.1667 ntoskrnl.exe=0.0000 drv.sys=0.6667"},
		// weighted by the threads' busy shares: (1/3)/1.5 and (1/3 + 0.5)/1.5
		{`(function() local out = {}
			W.process[2].threads[1].busy = 0.5
			for _, im in ipairs(lab.machine{ hal = {} }:images{ workload = W }.images) do out[#out + 1] = ("%s=%.4f"):format(im.name, im.share) end
			return table.concat(out, " ") end)()`,
			"own=0.2222 app.exe=0.2222 ntoskrnl.exe=0.0000 drv.sys=0.5556"},
		// a process of another machine is refused, as m:run refuses it
		{`lab.machine{ version = "6.1", arch = "x86", hal = {} }:images{ workload = { process = lab.machine{}:process{}, functions = { { name = "f", base = 0x10000, size = 16, weight = 1 } } } }`,
			"a process of another machine"},
	}
	const w = `local W = { name = "w",
		image = { { name = "app.exe", base = 0x140000000, functions = { { name = "a", offset = 0x1000, size = 0x100, weight = 1 }, { name = "b", offset = 0x1800, size = 0x800, weight = 1 } } },
		          { name = "drv.sys", base = "0xFFFFF80001000000", kernel = true, functions = { { name = "d", offset = 0, size = 0x400, weight = 1 } } } },
		process = { { name = "own", functions = { { name = "o", base = 0x30000, size = 0x100, weight = 1 } }, threads = { { run = { { ["function"] = "a" }, { ["function"] = "o" }, { ["function"] = "d" } } } } },
		            { name = "other", threads = { { run = { { ["function"] = "d" } } } } } } }
`
	last := len(cases) - 1
	for i, c := range cases[:last] {
		rt, _ := newTestRuntime(t, Config{Seed: 1})
		if err := rt.Exec("t.lua", []byte("local lab = require 'proflab'\n"+w+"__r = tostring("+c.expr+")")); err != nil {
			t.Fatalf("case %d: %v", i, err.Detail())
		}
		if got := rt.L.GetGlobal("__r").String(); got != c.want {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, c.want)
		}
	}
	wantErr(t, "return "+cases[last].expr, cases[last].want)
	wantErr(t, `lab.machine{ hal = {} }:images{}`, "workload", "is required")
	wantErr(t, `lab.machine{ version = "6.1", arch = "x86", hal = {} }:images{ workload = { process = { { name = "a", functions = { { name = "f", base = 0x140000000, size = 16, weight = 1 } } } } } }`,
		"above the x86 machine's 4 GB address space")
}
