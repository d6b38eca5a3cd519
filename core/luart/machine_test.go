package luart

import "testing"

func TestMachineDefaults(t *testing.T) {
	labScript(t, `
local m = lab.machine{}
lab.check(m:cpu_count() == 4, "cpus default 4")
lab.check(m:version() == "10.0.19041", "version default")
lab.check(m:arch() == "x64", "arch default")
local hals = {}
for _, s in ipairs(m:hal_sources()) do hals[s.hal] = true end
lab.check(hals.apic and hals.pmu, "apic and pmu by default")
lab.check(tostring(m):find("10.0.19041") ~= nil, tostring(m))
local m2 = lab.machine()
lab.check(m2:cpu_count() == 4, "lab.machine() works too")
`)
}

func TestMachineFields(t *testing.T) {
	labScript(t, `
local m = lab.machine{ version = "10.0.10240", arch = "x64", cpus = 2, hal = {"apic", "pmu"}, seed = 1 }
lab.check(m:cpu_count() == 2 and m:version() == "10.0.10240", "fields")
lab.check(lab.machine{ version = "10.0" }:version() == "10.0.10240", "10.0 is 10240")
lab.check(lab.machine{ version = "4.0" }:arch() == "x86", "x86 before 5.2")
lab.check(lab.machine{ version = "3.10" }:arch() == "x86", "3.10 is x86")
lab.check(lab.machine{ version = "5.2" }:arch() == "x64", "x64 from 5.2")
lab.check(lab.machine{ version = "6.1", arch = "x86" }:arch() == "x86", "x86 when asked")
lab.check(lab.machine{ arch = "x86", cpus = 32 }:cpu_count() == 32, "32 on x86")
lab.check(lab.machine{ cpus = 64 }:cpu_count() == 64, "64 on x64")
local amd = lab.machine{ cpu_vendor = "AuthenticAMD", hal = {"apic", "pmu", "pebs"} }
local names = {}
for _, s in ipairs(amd:hal_sources()) do names[s.name] = s.hal end
lab.check(names.ProfileDcacheMisses == "pmu" and names.ProfileCacheMisses == nil, "AMD counters")
local m3 = lab.machine{ hal = {"pebs", "pmu", "apic"} }
for _, s in ipairs(m3:hal_sources()) do
  if s.name == "ProfileTotalIssues" then lab.check(s.hal == "pebs", "first HAL owns the source") end
  if s.name == "ProfileTotalCycles" then lab.check(s.hal == "pmu", "pebs lacks TotalCycles") end
end
lab.check(lab.machine{ cache_errata_interval = 10000, pebs = false, freq_mhz = 2000 } ~= nil, "other fields")
`)
	bad := []struct{ src, want string }{
		{`lab.machine{ version = "7.0" }`, `field "version"`},
		{`lab.machine{ version = 6.1 }`, `field "version": expected a string like "6.1", got the number 6.1; a version is text: quote it`},
		{`lab.machine{ version = "4.0", arch = "x64" }`, "no x64 build"},
		{`lab.machine{ arch = "arm64" }`, `"arm64" is not accepted`},
		{`lab.machine{ cpus = 0 }`, `field "cpus": 0 is out of range; expected a whole number from 1 to 64`},
		{`lab.machine{ arch = "x86", cpus = 33 }`, "from 1 to 32"},
		{`lab.machine{ cpus = 2.5 }`, "not an integer"},
		{`lab.machine{ cpu_vendor = "Intel" }`, `expected one of "GenuineIntel", "AuthenticAMD"`},
		{`lab.machine{ hal = {"apci"} }`, `no HAL named "apci" (did you mean "apic"?)`},
		{`lab.machine{ hal = {"apic", "apic"} }`, "listed twice"},
		{`lab.machine{ cpu = 2 }`, `unknown field "cpu" (did you mean "cpus"?)`},
		{`lab.machine{ pebs = "yes" }`, `field "pebs": expected true or false`},
		{`lab.machine(3)`, "expected a table of options"},
		{`local m = lab.machine{} m.cpu_count()`, "call it as a method"},
		{`local m = lab.machine{} m:frobnicate()`, "a machine has no method frobnicate"},
	}
	for _, tc := range bad {
		wantLabError(t, tc.src, tc.want)
	}
}

func TestProcessesAndThreads(t *testing.T) {
	labScript(t, `
local m = lab.machine{ cpus = 4 }
local p = m:process{ name = "app", privileges = {"SeSystemProfilePrivilege", "SeProfileSingleProcessPrivilege"}, integrity = "high" }
local q = m:process{}
lab.check(type(p:id()) == "number" and p:id() ~= q:id(), "process ids")
local t0 = p:thread()
lab.check(t0:id() % 4 == 0 and t0:id() ~= 0, "thread id a multiple of 4")
lab.check(t0 == p:thread(), "the main thread is the same thread")
lab.check(t0:cpu() == 0, "starts on processor 0")
local t1 = p:create_thread{ affinity = 0x4 }
lab.check(t1:cpu() == 2 and t1:id() ~= t0:id(), "a thread on its lowest allowed processor")
t0:run_on(3)
lab.check(t0:cpu() == 3 and p:cpu() == 3, "run_on moves the thread")
local k = m:kernel{ cpu = 1 }
lab.check(k:cpu() == 1, "kernel caller on cpu 1")
k:run_on(2)
lab.check(k:cpu() == 2, "k:run_on")
lab.check(tostring(p):find("process") and tostring(t1):find("thread") and tostring(k):find("kernel"), "tostring")
`)
	bad := []struct{ src, want string }{
		{`lab.machine{}:process{ privileges = {"SeDebugPrivilege"} }`, `unknown privilege "SeDebugPrivilege"`},
		{`lab.machine{}:process{ integrity = "root" }`, `field "integrity"`},
		{`lab.machine{}:process{ nam = "x" }`, `unknown field "nam" (did you mean "name"?)`},
		{`lab.machine{ cpus = 2 }:kernel{ cpu = 2 }`, `field "cpu": 2 is out of range; expected a whole number from 0 to 1`},
		{`local p = lab.machine{ cpus = 2 }:process{} p:thread():run_on(5)`, "t:run_on: argument #1 (cpu): 5 is out of range"},
		{`local p = lab.machine{ cpus = 2 }:process{} p:create_thread{ affinity = 1 }:run_on(1)`, "t:run_on"},
		{`local p = lab.machine{}:process{} p:run_on(1)`, "p:run_on is not available on a process"},
		{`local k = lab.machine{}:kernel{} k:thread()`, "k:thread is not available on a kernel caller"},
		{`local p = lab.machine{}:process{} p:nonsense()`, `a process has no method "nonsense"`},
		{`local p = lab.machine{}:process{} p.id()`, "call it as a method"},
	}
	for _, tc := range bad {
		wantLabError(t, tc.src, tc.want)
	}
}

func TestMemory(t *testing.T) {
	labScript(t, `
local m = lab.machine{}
local p = m:process{}
local a = p:alloc(64)
lab.check(a % 0x1000 == 0 and a >= 0x10000, "page-aligned, above the first 64 KB")
p:write_u8(a, 0xAB) p:write_u16(a + 2, 0xBEEF) p:write_u32(a + 4, 0xDEADBEEF)
p:write_u64(a + 8, lab.u64("0xFFFFF80000001000"))
lab.check(p:read_u8(a) == 0xAB and p:read_u16(a + 2) == 0xBEEF and p:read_u32(a + 4) == 0xDEADBEEF, "round trip")
lab.check(lab.u64(p:read_u64(a + 8)) == lab.u64("0xFFFFF80000001000"), "u64 round trip")
lab.check(type(p:read_u64(a + 8)) == "userdata", "values of 2^53 and more come back as u64")
p:write_u32(a + 16, -1)
lab.check(p:read_u32(a + 16) == 0xFFFFFFFF, "-1 is all ones")
lab.check(p:read_u32(a + 0xFFC) == 0, "the rest of the page is mapped")
local ok, err = pcall(p.read_u32, p, a + 0x1000)
lab.check(not ok and tostring(err):find("0x") ~= nil, "the guard page faults, naming the address: " .. tostring(err))
local b = p:alloc(4096)
ok = pcall(p.read_u8, p, b + 4096)
lab.check(not ok, "a 4096-byte buffer ends at the guard page")
local arr = p:read_u32s(a + 4, 2)
lab.check(#arr == 2 and arr[1] == 0xDEADBEEF, "read_u32s: index 1 is the ULONG at the address")
lab.check(#p:read_u32s(a, 0) == 0, "read_u32s of nothing")
local fixed = p:alloc_at(0x500000, 0x2000, "r")
lab.check(fixed == 0x500000, "alloc_at")
ok = pcall(p.write_u32, p, fixed, 1)
lab.check(not ok, "read-only memory refuses writes")
p:protect(fixed, 0x1000, "rw")
p:write_u32(fixed, 7)
lab.check(p:read_u32(fixed) == 7, "protect")
p:free(fixed)
ok = pcall(p.read_u32, p, fixed)
lab.check(not ok, "freed memory is unmapped")
ok = pcall(p.read_u32, p, lab.u64("0xFFFFF80000001000"))
lab.check(not ok, "a process cannot read system space")
local k = m:kernel{}
local s = k:alloc(8)
lab.check(type(s) == "userdata" and s >= lab.u64("0xFFFF800000000000"), "k:alloc is in system space: " .. tostring(s))
k:write_u32(s, 5)
lab.check(k:read_u32(s) == 5, "kernel memory round trip")
local x86 = lab.machine{ arch = "x86" }:process{}
local xa = x86:alloc(16)
lab.check(type(xa) == "number" and xa < 0x7FFF0000, "x86 user address")
`)
	bad := []struct{ src, want string }{
		{`local p = lab.machine{}:process{} p:alloc(0)`, "p:alloc: argument #1 (size): 0 is out of range"},
		{`local p = lab.machine{}:process{} p:alloc(-1)`, "argument #1 (size): -1 is negative"},
		{`local p = lab.machine{}:process{} p:alloc(16, "rwx")`, "argument #2 (prot)"},
		{`local p = lab.machine{}:process{} p:alloc_at(0x500001, 16)`, "p:alloc_at(0x500001, 0x10)"},
		{`local p = lab.machine{}:process{} p:read_u32(0x10)`, "p:read_u32(0x10)"},
		{`local p = lab.machine{}:process{} local a = p:alloc(8) p:write_u8(a, 256)`, "argument #2 (value): 256 does not fit in 8 bits"},
		{`local p = lab.machine{}:process{} local a = p:alloc(8) p:write_u16(a, -40000)`, "does not fit in 16 bits"},
		{`local p = lab.machine{}:process{} local a = p:alloc(8) p:write_u32(a, lab.u64("0x100000000"))`, "does not fit in 32 bits"},
		{`local p = lab.machine{}:process{} local a = p:alloc(8) p:write_u64(a, 2^53)`, `lab.u64("0x…")`},
		{`local p = lab.machine{}:process{} p:read_u32(-5)`, "argument #1 (address): -5 is negative"},
		{`local p = lab.machine{}:process{} p:read_u32s(0x10000, 2^30)`, "argument #2 (count)"},
		{`local p = lab.machine{}:process{} p:free(0x700000)`, "p:free(0x700000)"},
		{`local p = lab.machine{}:process{} p:protect(0x700000, 16)`, "argument #3 (prot)"},
	}
	for _, tc := range bad {
		wantLabError(t, tc.src, tc.want)
	}
}

func TestWriteWidths(t *testing.T) {
	labScript(t, `
local p = lab.machine{}:process{}
local a = p:alloc(16)
p:write_u8(a, -128) lab.check(p:read_u8(a) == 0x80, "-128 as a byte")
p:write_u16(a, 0xFFFF) lab.check(p:read_u16(a) == 0xFFFF, "max u16")
p:write_u64(a, lab.u64(-1)) lab.check(lab.u64(p:read_u64(a)) == lab.u64(-1), "u64 all ones")
p:write_u64(a, -2) lab.check(lab.u64(p:read_u64(a)) == lab.u64("0xFFFFFFFFFFFFFFFE"), "-2 as u64")
`)
}
