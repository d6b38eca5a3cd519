package scripts_test

import "testing"

// tools.profile's program line names the first few images by share and
// the rest as how many and their share together; busiest finds the
// process with most of the source's samples and the --process that
// keeps it alone (its pid where the import made its name unique).
func TestProfileProgramLineAndBusiest(t *testing.T) {
	mustPass(t, `
local P = require "tools.profile"
local imgs = {}
for i, s in ipairs { 0.4, 0.2, 0.1, 0.1, 0.05, 0.05, 0.04, 0.03, 0.03 } do imgs[i] = { name = "m" .. i, share = s } end
A.expect_eq(P.program_line(imgs), "m1 40.0%, m2 20.0%, m3 10.0%, m4 10.0%, m5 5.0% and 4 more (15.0%) of the source's samples", "nine images")
A.expect_eq(P.program_line({ imgs[1], imgs[2] }), "m1 40.0%, m2 20.0% of the source's samples", "two images, no 'more'")
local best, arg, n = P.busiest { { name = "System", share = 0 }, { name = "svchost.exe", share = 0.1 }, { name = "Test.x86.exe", share = 0.7 }, { name = "PerfView.exe", share = 0.2 } }
A.expect_eq({ best.name, arg, n }, { "Test.x86.exe", "Test.x86.exe", 3 }, "by share, the processes with samples counted")
best, arg = P.busiest { { name = "svchost.exe", share = 0.2 }, { name = "svchost.exe#1188", share = 0.8 } }
A.expect_eq({ best.name, arg }, { "svchost.exe#1188", "1188" }, "a name made unique by its pid: the pid")
best, arg = P.busiest { { name = "my prog", share = 1 } }
A.expect_eq(arg, "'my prog'", "quoted for the shell")
best, arg, n = P.busiest {}
lab.check(best == nil and arg == nil and n == 0, "no process with samples: none")
A.expect_eq(P.cpus_note(8, 4), "the source was recorded on 8 processors, the lab runs 4 (machine.cpus): add --config-set machine.cpus=8 to run as many", "8 against 4")
lab.check(P.cpus_note(4, 4) == nil and P.cpus_note(nil, 4) == nil, "as many, or a source that does not say: nothing")
`)
}
