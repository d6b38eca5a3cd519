package sim

import (
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
)

// Target is the workload target of a machine of architecture a: what
// [workload.Spec.Resolve] needs to know of it.
func Target(a kernel.Arch) workload.Target {
	return workload.Target{X86: a == kernel.X86, UserProbeAddress: a.MmUserProbeAddress()}
}
