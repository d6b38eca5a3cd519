local lab = require "proflab"
local P = require "profile"
local m = lab.machine{ version = "6.2" }            -- Windows 8, x64, 4 CPUs
local p = m:process{}
local buf = p:alloc(0x1000)                          -- an exact-fit buffer that ends a page
P.create_and_start(p, { base = 0x400000, size = 0x1000, bucket = 2, buffer = buf, buffer_size = 0x1000 })
local ok, bc = m:interrupt{ cpu = 0, ip = 0x401000, process = p }   -- ip == RangeLimit
print(bc.name)                                        --> IRQL_NOT_LESS_OR_EQUAL
