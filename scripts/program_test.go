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
