-- program: which of a workload's images are the program's own. An
-- imported profile's workload lists every image its samples touched, in
-- address order, and the first is often not the program: for a perf
-- --call-graph dwarf or callgrind recording it is the dynamic loader
-- (ld-linux) or valgrind's preload (vgpreload), which hold a handful of
-- samples. The program's images are the ones that hold the source's
-- samples, the most first: m:images gives each image its share of what
-- the workload's threads execute, which for an imported profile is its
-- share of the source's samples.
--
--   local Prog = require "program"
--   local img = Prog.image(m:images{ workload = "prog.pb.gz" })
--   -- img.name, img.base, img.size, img.share
local lab = require "proflab"

local M = {}

-- own spans an image over its own functions: m:images counts the lab's
-- built-in kernel functions (the idle loop, ISR and DPC time, at the
-- bottom of system space) into a workload's own ntoskrnl.exe, and a real
-- trace's ntoskrnl.exe lies hundreds of MB above them, with the trace's
-- other drivers between: a profile of that span would be of them and
-- of the lab's idle loop, not of the program. An image without built-in
-- functions is returned as it is; one with them as a copy whose base and
-- size span the others, from the page holding the lowest.
local function own(im)
  local lo, hi, builtin
  for _, f in ipairs(im.functions or {}) do
    if f.builtin then
      builtin = true
    else
      local b = lab.u64(f.base)
      local e = b + f.size
      if not lo or b < lo then lo = b end
      if not hi or hi < e then hi = e end
    end
  end
  if not builtin or not lo then return im end
  lo = lo - lo % 0x1000 -- a page boundary, so that buckets align as they do from the image's base
  local c = {}
  for k, v in pairs(im) do c[k] = v end
  c.base, c.size = lo, hi - lo
  if lo < lab.u64("0x20000000000000") then c.base = lab.tonumber(lo) end
  if c.size < lab.u64("0x20000000000000") then c.size = lab.tonumber(c.size) end
  return c
end

--- images(info) → the images of info (what m:images returns) that hold
--- some of the workload's execution (share > 0), the largest share
--- first, then in address order; kernel-mode images among them when the
--- workload runs kernel code of its own (perf's [kernel.kallsyms]). An
--- image's base and size span its own functions: the lab's built-in
--- kernel functions (builtin = true), which m:images counts into a
--- workload's own ntoskrnl.exe, are not the program's.
function M.images(info)
  lab.arguments("program.images", { "info:table" }, info)
  if type(info.images) ~= "table" then
    error("program.images: argument #1 (info) has no images: give what m:images{ workload = … } returns", 2)
  end
  local out = {}
  for i, im in ipairs(info.images) do
    if type(im.share) == "number" and im.share > 0 then out[#out + 1] = { image = im, order = i } end
  end
  table.sort(out, function(a, b)
    if a.image.share ~= b.image.share then return a.image.share > b.image.share end
    return a.order < b.order
  end)
  for i, e in ipairs(out) do out[i] = own(e.image) end
  return out
end

--- image(info) → the program's image: the one holding the largest share
--- of the workload's execution (images(info)[1]); raises when no image
--- holds any.
function M.image(info)
  lab.arguments("program.image", { "info:table" }, info)
  local imgs = M.images(info)
  if #imgs == 0 then
    error(("program.image: no image of workload %s holds any of its execution: its functions have no weight"):format(tostring(info.name)), 2)
  end
  return imgs[1]
end

return M
