package halrpc

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
	pb "github.com/proflab/proflab/halplugins/halrpc/proto"
)

func cpusToPB(cpus []int) []uint32 {
	out := make([]uint32, len(cpus))
	for i, c := range cpus {
		out[i] = uint32(c)
	}
	return out
}

func cpusFromPB(cpus []uint32) []int {
	out := make([]int, len(cpus))
	for i, c := range cpus {
		out[i] = int(c)
	}
	return out
}

func machineToPB(m hal.Machine) *pb.Machine {
	return &pb.Machine{Cpus: uint32(m.CPUs), FreqMhz: m.FreqMHz, Vendor: m.Vendor, Arch: m.Arch, Version: m.Version, Seed: m.Seed}
}

func machineFromPB(m *pb.Machine) hal.Machine {
	return hal.Machine{CPUs: int(m.GetCpus()), FreqMHz: m.GetFreqMhz(), Vendor: m.GetVendor(), Arch: m.GetArch(), Version: m.GetVersion(), Seed: m.GetSeed()}
}

func descriptionToPB(d hal.Description) *pb.Description {
	out := &pb.Description{Name: d.Name, Version: d.Version, Settings: d.Settings}
	for _, s := range d.Sources {
		out.Sources = append(out.Sources, &pb.SourceSpec{
			Source: uint32(s.Source), Name: s.Name, Description: s.Description, Units: s.Units,
			Min: s.Bounds.Min, Max: s.Bounds.Max, Default: s.Bounds.Default, Precise: s.Precise,
		})
	}
	return out
}

func descriptionFromPB(d *pb.Description) hal.Description {
	out := hal.Description{Name: d.GetName(), Version: d.GetVersion(), Settings: d.GetSettings()}
	for _, s := range d.GetSources() {
		out.Sources = append(out.Sources, hal.SourceSpec{
			Source: hal.Source(s.GetSource()), Name: s.GetName(), Description: s.GetDescription(), Units: s.GetUnits(),
			Bounds: hal.Bounds{Min: s.GetMin(), Max: s.GetMax(), Default: s.GetDefault()}, Precise: s.GetPrecise(),
		})
	}
	return out
}

// ProgrammingToPB converts programming to its wire form.
func programmingToPB(p hal.Programming) *pb.Programming {
	out := &pb.Programming{ResetAll: p.ResetAll, Log: p.Log}
	for _, t := range p.Timers {
		out.Timers = append(out.Timers, &pb.TimerProgram{Cpu: uint32(t.CPU), Enabled: t.Enabled, Source: uint32(t.Source),
			Mode: uint32(t.Mode), Period: t.Period, OneShot: t.OneShot})
	}
	for _, c := range p.Counters {
		pc := &pb.CounterProgram{Cpu: uint32(c.CPU), Index: uint32(c.Index), Enabled: c.Enabled, Source: uint32(c.Source),
			EventSelect: c.EventSelect, Reload: c.Reload, Pebs: c.PEBS, RequiresControlArea: c.RequiresControlArea}
		for _, k := range c.Skid {
			pc.Skid = append(pc.Skid, &pb.SkidWeight{Instructions: k.Instructions, Weight: k.Weight})
		}
		out.Counters = append(out.Counters, pc)
	}
	for _, d := range p.DS {
		out.Ds = append(out.Ds, &pb.DSProgram{Cpu: uint32(d.CPU), Enabled: d.Enabled, RecordSize: d.RecordSize,
			BufferRecords: d.BufferRecords, ThresholdRecords: d.ThresholdRecords, CounterReset: d.CounterReset[:]})
	}
	return out
}

// programmingFromPB converts the wire form back, rejecting what cannot be
// represented (the host validates the rest).
func programmingFromPB(p *pb.Programming) (hal.Programming, error) {
	out := hal.Programming{ResetAll: p.GetResetAll(), Log: p.GetLog()}
	for _, t := range p.GetTimers() {
		if t.GetMode() > uint32(hal.TimerOneShot) {
			return out, fmt.Errorf("timer programming for processor %d has unknown mode %d", t.GetCpu(), t.GetMode())
		}
		out.Timers = append(out.Timers, hal.TimerProgram{CPU: int(t.GetCpu()), Enabled: t.GetEnabled(), Source: hal.Source(t.GetSource()),
			Mode: hal.TimerMode(t.GetMode()), Period: t.GetPeriod(), OneShot: t.GetOneShot()})
	}
	for _, c := range p.GetCounters() {
		hc := hal.CounterProgram{CPU: int(c.GetCpu()), Index: int(c.GetIndex()), Enabled: c.GetEnabled(), Source: hal.Source(c.GetSource()),
			EventSelect: c.GetEventSelect(), Reload: c.GetReload(), PEBS: c.GetPebs(), RequiresControlArea: c.GetRequiresControlArea()}
		for _, k := range c.GetSkid() {
			hc.Skid = append(hc.Skid, hal.SkidWeight{Instructions: k.GetInstructions(), Weight: k.GetWeight()})
		}
		out.Counters = append(out.Counters, hc)
	}
	for _, d := range p.GetDs() {
		if len(d.GetCounterReset()) > 4 {
			return out, fmt.Errorf("DS programming for processor %d has %d counter reset values, at most 4", d.GetCpu(), len(d.GetCounterReset()))
		}
		hd := hal.DSProgram{CPU: int(d.GetCpu()), Enabled: d.GetEnabled(), RecordSize: d.GetRecordSize(),
			BufferRecords: d.GetBufferRecords(), ThresholdRecords: d.GetThresholdRecords()}
		copy(hd.CounterReset[:], d.GetCounterReset())
		out.DS = append(out.DS, hd)
	}
	return out, nil
}

func abilitiesToPB(a hal.Abilities) *pb.AbilitiesResponse {
	return &pb.AbilitiesResponse{TimerRefiller: a.TimerRefiller, ControlAreaObserver: a.ControlAreaObserver, InterruptHook: a.InterruptHook}
}

func abilitiesFromPB(a *pb.AbilitiesResponse) hal.Abilities {
	return hal.Abilities{TimerRefiller: a.GetTimerRefiller(), ControlAreaObserver: a.GetControlAreaObserver(), InterruptHook: a.GetInterruptHook()}
}
