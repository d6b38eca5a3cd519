package profmodel

// RelativeBusy sets the busy share of every thread to its weight over
// the busiest thread's, for formats that give neither time nor
// processors (Instruments' deep copy, callgrind, DTrace): the busiest
// thread is taken as busy all the time, as perf's import does without a
// cpu column.
func (m *Model) RelativeBusy() {
	var ref float64
	for _, p := range m.procs {
		for _, t := range p.threads {
			ref = max(ref, t.weight)
		}
	}
	if ref <= 0 {
		return
	}
	for _, p := range m.procs {
		for _, t := range p.threads {
			t.share = t.weight / ref
		}
	}
}
