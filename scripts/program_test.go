package scripts_test

import "testing"

// program.images ranks the images by their share of the workload's
// execution, and program.image is the program's: not the first image in
// address order (the loader, as a perf dwarf recording lists it), but the
// one holding most of the samples.
func TestProgramImages(t *testing.T) {
	mustPass(t, `
local Prog = require "program"
local m = lab.machine{ hal = {} }
local W = { name = "w", create_processes = true,
  image = { { name = "ld-linux-x86-64.so.2", base = 0x10000, functions = { { name = "_dl_start", offset = 0, size = 0x100, weight = 2 } } },
            { name = "libc.so.6", base = 0x7f0000000000, functions = { { name = "memcpy", offset = 0, size = 0x100, weight = 18 } } },
            { name = "prog", base = 0x555555554000, functions = { { name = "main", offset = 0, size = 0x100, weight = 30 }, { name = "work", offset = 0x100, size = 0x100, weight = 50 } } },
            { name = "unused.so", base = 0x7f1000000000, functions = { { name = "never", offset = 0, size = 0x100, weight = 0 } } } },
  process = { { name = "prog", threads = { { run = { { ["function"] = "_dl_start" }, { ["function"] = "memcpy" }, { ["function"] = "main" }, { ["function"] = "work" } } } } } } }
local info = m:images{ workload = W }
lab.check(info.images[1].name == "ld-linux-x86-64.so.2", "the loader is first in address order: " .. info.images[1].name)
local imgs = Prog.images(info)
local names = {}
for _, im in ipairs(imgs) do names[#names + 1] = ("%s=%.2f"):format(im.name, im.share) end
lab.check(table.concat(names, " ") == "prog=0.80 libc.so.6=0.18 ld-linux-x86-64.so.2=0.02", "ranked by share, none without: " .. table.concat(names, " "))
lab.check(Prog.image(info).name == "prog", "the program's image")
A.expect_error(function() Prog.image({ name = "empty", images = {} }) end, "no image of workload empty holds any of its execution")
A.expect_error(function() Prog.images({}) end, "has no images")
A.expect_error(function() Prog.images("x") end, "argument #1 (info): expected a table")
`)
}

// A workload's own ntoskrnl.exe (a real trace's, hundreds of MB above the
// lab's built-in kernel functions, with drivers between) gets the
// built-in idle loop, ISR and DPC counted in by m:images, marked builtin:
// program.images spans it over its own functions only, from their page,
// so that a profile of the program's kernel image covers neither the
// drivers between nor the lab's idle loop. An image without built-in
// functions is m:images' own table.
func TestProgramImagesLeaveOutTheBuiltinKernel(t *testing.T) {
	mustPass(t, `
local Prog = require "program"
local m = lab.machine{ hal = {} }
local W = { name = "trace", create_processes = true,
  image = { { name = "hal.dll", base = "0xFFFFF8002141D000", kernel = true, functions = { { name = "hal.dll+0x17313", offset = 0x17313, size = 1, weight = 1 } } },
            { name = "ntoskrnl.exe", base = "0xFFFFF80021489000", kernel = true, functions = { { name = "ntoskrnl.exe+0x86f7", offset = 0x86f7, size = 16, weight = 2 }, { name = "ntoskrnl.exe+0x12d17f", offset = 0x12d17f, size = 1, weight = 1 } } } },
  process = { { name = "app", threads = { { run = { { ["function"] = "hal.dll+0x17313" }, { ["function"] = "ntoskrnl.exe+0x86f7" }, { ["function"] = "ntoskrnl.exe+0x12d17f" } } } } } } }
local info = m:images{ workload = W }
local nt, hal
for _, im in ipairs(info.images) do
  if im.name == "ntoskrnl.exe" then nt = im elseif im.name == "hal.dll" then hal = im end
end
lab.check(nt.base == lab.u64("0xFFFFF80000000000") and nt.functions[1].name == "KiIdleLoop" and nt.functions[1].builtin == true, "m:images counts the built-in functions in: " .. tostring(nt.base))
lab.check(nt.functions[4].name == "ntoskrnl.exe+0x86f7" and nt.functions[4].builtin == nil, "the trace's function is not built in")
local got = {}
for _, im in ipairs(Prog.images(info)) do got[im.name] = im end
local k = got["ntoskrnl.exe"]
lab.check(k.base == lab.u64("0xFFFFF80021491000") and k.size == 0x12d17f + 1 - 0x8000, "ntoskrnl.exe spans its own functions: " .. tostring(k.base) .. "+" .. tostring(k.size))
lab.check(k ~= nt and nt.base == lab.u64("0xFFFFF80000000000") and k.share == nt.share and k.kernel and #k.functions == #nt.functions, "a copy, m:images' table unchanged")
lab.check(got["hal.dll"] == hal, "an image without built-in functions is m:images' own")
`)
}
