-- tools.sources: the profile source listing that `wpr -pmcsources` and
-- `tracelog -profilesources Help` print (docs/reference/hal.md#what-windows-10-itself-reports), made the
-- way they make it: walk TraceQueryInformation class 7
-- (TraceProfileSourceListInfo), and for each record query the source's
-- current interval with class 5 (TraceSampledProfileIntervalInfo); then
-- print a header line, a rule of 62 dashes, and a row per source in
-- "%3u %-25s%11u%6u%11u": id, the HAL's description, interval,
-- MinInterval, MaxInterval (a longer name pushes the columns right), as
-- every published capture of the two tools shows them.
local lab = require "proflab"

local M = {}

--- HEADER and RULE are the listing's first two lines, before the rows,
--- byte for byte as Windows 10's tracelog and wpr print them.
M.HEADER = "Id  Name                        Interval  Min      Max"
M.RULE = ("-"):rep(62)

-- read_wstr reads a NUL-terminated UTF-16 string (ASCII descriptions).
local function read_wstr(p, at)
  local chars, i = {}, 0
  while true do
    local c = p:read_u16(at + 2 * i)
    if c == 0 then break end
    chars[#chars + 1] = c < 128 and string.char(c) or "?"
    i = i + 1
  end
  return table.concat(chars)
end

--- interval(p, source) → the source's current interval through
--- TraceQueryInformation class 5, and the Win32 error.
function M.interval(p, source)
  local iv = p:alloc(8)
  p:write_u32(iv, source)
  p:write_u32(iv + 4, 0)
  local err = p:TraceQueryInformation(0, lab.TraceSampledProfileIntervalInfo, iv, 8, 0)
  local v = p:read_u32(iv + 4)
  p:free(iv)
  return v, err
end

--- list(p) → rows { { source, name, interval, min, max }, ... } in the
--- order of the kernel's list, or nil and what failed ("… failed:
--- ERROR_NAME"). p is the process that asks (TraceQueryInformation is a
--- user-mode API).
function M.list(p)
  local rl = p:alloc(4)
  local buf
  local function failed(err, what)
    p:free(rl)
    if buf then p:free(buf) end
    return nil, ("%s failed: %s"):format(what, lab.win32_name(err))
  end
  local err = p:TraceQueryInformation(0, lab.TraceProfileSourceListInfo, nil, 0, rl)
  if err ~= lab.ERROR_BAD_LENGTH and err ~= lab.ERROR_SUCCESS then
    return failed(err, "TraceQueryInformation(TraceProfileSourceListInfo) sizing the list")
  end
  local need = p:read_u32(rl)
  if need == 0 then
    p:free(rl)
    return {}
  end
  buf = p:alloc(need)
  err = p:TraceQueryInformation(0, lab.TraceProfileSourceListInfo, buf, need, rl)
  if err ~= lab.ERROR_SUCCESS then
    return failed(err, "TraceQueryInformation(TraceProfileSourceListInfo)")
  end
  local rows, off = {}, 0
  repeat
    local next_off = p:read_u32(buf + off)
    local src = p:read_u32(buf + off + 4)
    local row = { source = src, name = read_wstr(p, buf + off + 0x18),
      min = p:read_u32(buf + off + 8), max = p:read_u32(buf + off + 12) }
    local iv, ierr = M.interval(p, src)
    if ierr ~= lab.ERROR_SUCCESS then
      return failed(ierr, ("TraceQueryInformation(TraceSampledProfileIntervalInfo) for source %d"):format(src))
    end
    row.interval = iv
    rows[#rows + 1] = row
    off = off + next_off
  until next_off == 0
  p:free(buf)
  p:free(rl)
  return rows
end

--- line(row) → the listing's line for one row.
function M.line(row)
  return ("%3u %-25s%11u%6u%11u"):format(row.source, row.name, row.interval, row.min, row.max)
end

--- lines(rows) → the listing as the tools print it: HEADER, RULE, then
--- a line per row (the header and rule also when there is no row).
function M.lines(rows)
  local out = { M.HEADER, M.RULE }
  for _, r in ipairs(rows) do out[#out + 1] = M.line(r) end
  return out
end

--- find(rows, text) → the row whose description is text (any case) or
--- whose source id is the number text, else nil.
function M.find(rows, text)
  local id = tonumber(text)
  for _, r in ipairs(rows) do
    if r.name:lower() == tostring(text):lower() or (id and r.source == id) then return r end
  end
  return nil
end

--- names(rows) → the descriptions, comma-separated, for messages.
function M.names(rows)
  local out = {}
  for _, r in ipairs(rows) do out[#out + 1] = r.name end
  return table.concat(out, ", ")
end

return M
