-- assert: checks with informative messages, on top of lab.check. Each
-- records one check (at the scenario's line, not this file's) and returns
-- whether it passed; a failed one fails the scenario, which goes on.
-- An argument of the wrong type (a string tolerance, a pattern that is a
-- number) is an error at the scenario's line, not a check.
--
--   local A = require "assert"
--   A.expect_status(p:NtStartProfile(h), lab.STATUS_SUCCESS, "start")
--   A.expect_eq(p:read_u32(addr), 3, "bucket 0")
--   A.expect_near(share, 0.25, 0.02, "share of f")

local lab = require "proflab"

local M = {}

local function label(msg)
  if msg == nil or msg == "" then return "" end
  return tostring(msg) .. ": "
end

local function show(v, depth)
  if type(v) == "string" then return ("%q"):format(v) end
  if type(v) == "table" then
    depth = depth or 0
    if depth > 3 then return "{...}" end
    local parts, n = {}, #v
    for i = 1, n do parts[#parts + 1] = show(v[i], depth + 1) end
    local keys = {}
    for k in pairs(v) do
      if not (type(k) == "number" and k >= 1 and k <= n and k % 1 == 0) then keys[#keys + 1] = k end
    end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do parts[#parts + 1] = tostring(k) .. " = " .. show(v[k], depth + 1) end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return tostring(v)
end

local function hex32(v)
  return ("0x%08X"):format(v)
end

--- expect_status(st, want, msg): the NTSTATUS st is want.
--- "start: got STATUS_PRIVILEGE_NOT_HELD (0xC0000061), want STATUS_SUCCESS (0x00000000)"
function M.expect_status(st, want, msg)
  lab.arguments("assert.expect_status", { "st:any", "want:integer" }, st, want)
  local ok = st == want
  local text
  if ok then
    text = label(msg) .. lab.status_name(st)
  else
    text = ("%sgot %s, want %s (%s)"):format(label(msg),
      type(st) == "number" and (lab.status_name(st) .. " (" .. hex32(st) .. ")") or show(st),
      lab.status_name(want), hex32(want))
  end
  return lab.check(ok, text)
end

--- expect_success(st, msg): NT_SUCCESS(st).
function M.expect_success(st, msg)
  local ok = type(st) == "number" and lab.NT_SUCCESS(st)
  local text = label(msg) .. (type(st) == "number" and lab.status_name(st) or show(st))
  if not ok then text = text .. " is not a success status" end
  return lab.check(ok, text)
end

--- expect_win32(code, want, msg): a Trace* result is the Win32 code want.
function M.expect_win32(code, want, msg)
  lab.arguments("assert.expect_win32", { "code:any", "want:integer" }, code, want)
  local ok = code == want
  local text = label(msg) .. (ok and lab.win32_name(code)
    or ("got %s (%s), want %s (%d)"):format(
      type(code) == "number" and lab.win32_name(code) or show(code), tostring(code),
      lab.win32_name(want), want))
  return lab.check(ok, text)
end

-- equal, treating numbers and u64 values as integers
-- and tables element by element (both ways, so extra keys count)
local function equal(a, b)
  if type(a) == "userdata" or type(b) == "userdata" then
    local ok1, ua = pcall(lab.u64, a)
    local ok2, ub = pcall(lab.u64, b)
    return ok1 and ok2 and ua == ub
  end
  if type(a) == "table" and type(b) == "table" then
    for k, v in pairs(a) do
      if not equal(v, b[k]) then return false end
    end
    for k in pairs(b) do
      if a[k] == nil then return false end
    end
    return true
  end
  return a == b
end

--- expect_eq(got, want, msg): got == want (numbers and u64 values compare
--- by value with each other; tables compare element by element).
function M.expect_eq(got, want, msg)
  local ok = equal(got, want)
  local text = label(msg) .. (ok and show(got) or ("got %s, want %s"):format(show(got), show(want)))
  return lab.check(ok, text)
end

--- expect_ne(got, other, msg): got ~= other.
function M.expect_ne(got, other, msg)
  local ok = not equal(got, other)
  return lab.check(ok, label(msg) .. (ok and show(got) or ("got %s, want anything else"):format(show(got))))
end

--- expect_near(got, want, tol, msg): |got - want| <= tol.
function M.expect_near(got, want, tol, msg)
  lab.arguments("assert.expect_near", { "got:any", "want:number", "tol:number" }, got, want, tol)
  if type(got) ~= "number" then
    return lab.check(false, ("%sgot %s, want a number near %s"):format(label(msg), show(got), tostring(want)))
  end
  local ok = math.abs(got - want) <= tol
  local text = ("%sgot %.6g, want %.6g ± %.6g"):format(label(msg), got, want, tol)
  return lab.check(ok, text)
end

--- expect_error(fn, pattern, msg): calling fn raises an error whose message
--- contains pattern (plain text, not a Lua pattern); pattern nil accepts any.
function M.expect_error(fn, pattern, msg)
  lab.arguments("assert.expect_error", { "fn:function", "pattern:string|nil" }, fn, pattern)
  local ok, err = pcall(fn)
  if ok then
    return lab.check(false, label(msg) .. "expected an error, but the call succeeded")
  end
  err = tostring(err)
  local matched = pattern == nil or err:find(pattern, 1, true) ~= nil
  local text = label(msg) .. (matched and ("raised: " .. err)
    or ("the error %q does not contain %q"):format(err, pattern))
  return lab.check(matched, text)
end

return M
