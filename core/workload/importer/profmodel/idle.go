package profmodel

import "strings"

// IdleFunctions are the names of idle-loop functions: a sample whose leaf
// is one of them is idle time of the source machine. They stay busy time
// of those functions in the workload unless the import drops them
// (importer.Options.DropIdle, --drop-idle; see IsIdle). The list is
// Linux's idle loop and cpuidle drivers (x86 and arm64) and Windows' idle
// functions (a pprof converted from an ETW trace can hold them).
var IdleFunctions = []string{
	// Linux's generic idle loop.
	"cpu_idle", "cpu_idle_loop", "do_idle", "cpu_startup_entry",
	"cpuidle_idle_call", "cpuidle_enter", "cpuidle_enter_state",
	"default_idle", "default_idle_call", "arch_cpu_idle", "arch_cpu_idle_enter",
	// Linux's cpuidle drivers and halting primitives.
	"poll_idle", "intel_idle", "intel_idle_irq", "intel_idle_ibrs", "intel_idle_xstate",
	"acpi_idle_enter", "acpi_idle_do_entry", "acpi_idle_enter_s2idle", "acpi_safe_halt",
	"acpi_processor_ffh_cstate_enter", "mwait_idle", "mwait_idle_with_hints",
	"native_safe_halt", "safe_halt", "pv_native_safe_halt", "native_halt", "amd_e400_idle",
	"cpu_do_idle", "psci_cpu_suspend_enter",
	// FreeBSD's idle thread and cpu_idle variants (pmcstat, DTrace).
	"sched_idletd", "cpu_idle_acpi", "cpu_idle_hlt", "cpu_idle_mwait", "cpu_idle_spin", "cpu_idle_amdc1e", "acpi_cpu_idle",
	// illumos' and macOS's idle loops (DTrace, Instruments).
	"i86_mwait", "cpu_idle_adaptive", "machine_idle", "processor_idle",
	// Windows' idle loop and processor idle drivers.
	"KiIdleLoop", "PoIdle", "HalProcessorIdle", "AcpiIdle", "PpmIdleExecuteTransition",
}

var idleSet = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range IdleFunctions {
		m[n] = true
	}
	return m
}()

// IsIdle says whether name is an idle function (a folded frame's
// stackcollapse annotation such as "_[k]" is ignored).
func IsIdle(name string) bool {
	if idleSet[name] {
		return true
	}
	if i := strings.LastIndex(name, "_["); i > 0 && strings.HasSuffix(name, "]") {
		return idleSet[name[:i]]
	}
	return false
}
