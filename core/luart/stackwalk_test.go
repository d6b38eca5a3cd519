package luart

import (
	"fmt"
	"testing"

	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
)

// m:start_kernel_logger{ stackwalk = { "Profile" } }: each sample that
// interrupted a thread is followed by a StackWalk event with the
// sample's time, process and thread, whose frames are the sample's IP
// then the callers' return addresses (sim.CallSite); inlined frames are
// not frames of the walk; samples without stackwalk have none.
func TestStackWalk(t *testing.T) {
	// the call sites the test expects: main's call of parse and of lex,
	// parse's call of lex (see sim.CallSite); each function is 0x400
	// bytes of the default instruction size
	const ib = workload.DefaultInstructionBytes
	sites := map[string]uint64{
		"parse<-main": sim.CallSite(0x10000, 0x400/ib, 0x10400, ib),
		"lex<-main":   sim.CallSite(0x10000, 0x400/ib, 0x10800, ib),
		"lex<-parse":  sim.CallSite(0x10400, 0x400/ib, 0x10800, ib),
	}
	for k, v := range sites {
		if caller := uint64(0x10000); (k != "lex<-parse" && (v <= caller || v >= caller+0x400)) || (k == "lex<-parse" && (v <= 0x10400 || v >= 0x10800)) {
			t.Fatalf("%s: call site %#x is not inside the caller past its first instruction", k, v)
		}
	}
	labScript(t, fmt.Sprintf(`
local sites = { ["lex<-main"] = %d, ["lex<-parse"] = %d, ["parse<-main"] = %d }
local m = lab.machine{ cpus = 1, hal = { "apic" }, seed = 11 }
local p = m:process{ name = "compiler", privileges = { "SeSystemProfilePrivilege" } }
local s = m:start_kernel_logger{ profile = true, stackwalk = { "Profile" } }
m:run{ duration_us = 200000, workload = {
  image = { { name = "cc.exe", base = 0x10000, functions = {
    { name = "main", offset = 0x000, size = 0x400 },
    { name = "parse", offset = 0x400, size = 0x400 },
    { name = "lex", offset = 0x800, size = 0x400 },
    { name = "tok", inline = true },
  } } },
  process = { { name = "compiler", stacks = {
    { frames = { "lex", "parse", "main" }, weight = 3 },
    { frames = { "tok", "lex", "main" }, weight = 1 },
    { frames = { "main" }, weight = 4 },
  } } },
} }
s:stop()
local evs = s:events()
local walks, samples, shapes = 0, 0, {}
for i, e in ipairs(evs) do
  if e.hook == 0x0F2E and e.ThreadId ~= 0 then
    samples = samples + 1
    local w = evs[i + 1]
    lab.check(w and w.hook == 0x1820, "a stack walk follows each sample of a thread")
    lab.check(w.time == e.time and w.EventTimeStamp == e.time and w.StackThread == e.ThreadId and w.StackProcess == p:id() and w.cpu == e.cpu,
      "the walk's time, thread, process and processor are the sample's")
    lab.check(w.Frames[1] == e.InstructionPointer, "the first frame is the sample's IP")
    local f = w.Frames
    if #f == 1 then
      lab.check(f[1] >= 0x10000 and f[1] < 0x10400, "a one-frame stack runs main")
    elseif #f == 2 then
      lab.check(f[1] >= 0x10800 and f[1] < 0x10C00 and f[2] == sites["lex<-main"], "lex <- main (tok is inlined: no frame)")
    else
      lab.check(#f == 3 and f[2] == sites["lex<-parse"] and f[3] == sites["parse<-main"], "lex <- parse <- main")
    end
    shapes[#f] = true
  elseif e.hook == 0x1820 then
    walks = walks + 1
  end
end
lab.check(samples > 100 and walks == samples, "one walk per sample of a thread: " .. walks .. " of " .. samples)
lab.check(shapes[1] and shapes[2] and shapes[3], "every stack drawn")
lab.check(s:count{ hook = 0x1820 } == walks, "s:count filters stack walks")

-- without stackwalk no walks
local m2 = lab.machine{ cpus = 1, hal = { "apic" } }
local s2 = m2:start_kernel_logger{ profile = true }
m2:process{ name = "x" }
m2:run{ duration_us = 20000, workload = { process = { { name = "x", functions = { { name = "f", base = 0x10000, size = 0x100, weight = 1 } } } } } }
lab.check(s2:count{ hook = 0x1820 } == 0 and s2:count{ hook = 0x0F2E } > 0, "no stackwalk, no walks")
`, sites["lex<-main"], sites["lex<-parse"], sites["parse<-main"]))
	wantLabError(t, `lab.machine{}:start_kernel_logger{ profile = true, stackwalk = { "Profile", "CSwitch" } }`,
		`"CSwitch" is not an event whose stack the kernel logger walks`, `"Profile", "PmcInterrupt"`)
}
