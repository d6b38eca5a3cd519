package luart_test

import (
	"fmt"
	"os"

	"github.com/proflab/proflab/core/luart"
)

// A scenario given as a string runs on a simulated machine from Go: the
// runtime assembles the machine through core/lab with the shipped HALs
// in-process (Config.HALs nil), the scenario profiles a two-function
// workload, and the run's checks, records and parameters read come back
// as Go values. The same seed gives the same numbers every time. (core/scenario's Run adds the time budget, the
// HAL plugins of a configuration and the outputs on top.)
func ExampleNew() {
	rt := luart.New(luart.Config{
		Seed:   1,
		Params: map[string]any{"interval": int64(5000)},
		Log:    os.Stdout,
	})
	defer rt.Close()

	err := rt.Exec("example.lua", []byte(`
local lab = require "proflab"
local m = lab.machine{ version = "10.0.19041", cpus = 2, hal = { "apic" } }
local p = m:process{ name = "app.exe", privileges = { "SeSystemProfilePrivilege" } }
print(m, lab.status_name(p:NtSetIntervalProfile(lab.params.interval, lab.ProfileTime)))

-- a profile of 0x401000…0x402FFF in two 4 KiB buckets, on every processor
local buckets, handle = p:alloc(8), p:alloc(8)
local st = p:NtCreateProfile(handle, nil, 0x401000, 0x2000, 12, buckets, 8, lab.ProfileTime, 3)
lab.check(st == lab.STATUS_SUCCESS and p:NtStartProfile(p:read_u64(handle)) == lab.STATUS_SUCCESS, "profile started")

local r = m:run{ duration_us = 100000, workload = { process = p, functions = {
  { name = "hot", base = 0x401000, size = 0x100, weight = 3 },
  { name = "cold", base = 0x402000, size = 0x100, weight = 1 },
} } }
local hits = p:read_u32s(buckets, 2)
print("interval", r.intervals.ProfileTime, "interrupts", r.interrupts.ProfileTime, "hits", hits[1], hits[2])
lab.check(hits[1] > 2 * hits[2], "hot is sampled about three times as often as cold")
lab.record{ hot = hits[1], cold = hits[2] }
`))
	if err != nil {
		fmt.Println(err.Detail())
		return
	}
	fmt.Printf("%+v\n", rt.Checks())
	fmt.Println(rt.Records(), rt.ParamsRead())
	// Output:
	// machine (Windows 10.0.19041 x64, 2 processors)	STATUS_SUCCESS
	// interval	5000	interrupts	398	hits	159	40
	// [{Passed:true Where:example.lua:10 Message:profile started} {Passed:true Where:example.lua:18 Message:hot is sampled about three times as often as cold}]
	// map[cold:40 hot:159] [interval]
}
