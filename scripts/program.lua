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

--- images(info) → the images of info (what m:images returns) that hold
--- some of the workload's execution (share > 0), the largest share
--- first, then in address order; kernel-mode images among them when the
--- workload runs kernel code of its own (perf's [kernel.kallsyms]).
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
  for i, e in ipairs(out) do out[i] = e.image end
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
