package native

import (
	"slices"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// Threads' busy shares. A thread's busy share is the part of the time it
// ran. perf samples a thread only while it runs, so where the file has
// timestamps, a thread's share is its time in the samples (their periods
// in seconds) over the profile's wall span:
//
//	busy = Σ periods / rate / span
//
// span is the time from the file's first sample to its last (any event,
// any process) plus one mean period of the weight event (the first
// sample closes a period that started one period earlier). rate is the
// weight event's count per second of running: 10⁹ for perf's software
// clocks (cpu-clock and task-clock count nanoseconds); for other events
// (cycles, instructions…) it is measured in the file as the median, over
// consecutive samples of one thread (the idle task's excepted), of the
// later sample's period over the time between them: within a run of a
// busy thread, that is the event's rate (for cycles, the clock's
// frequency). Shares are clamped to 1.
//
// Without timestamps (perf 3.x records none for one program) or with
// timestamps out of order (--deltatime), or too few pairs to measure a
// rate, the busiest processor (the [cpu] column), else the busiest
// thread, is taken as busy all the time and the others in proportion,
// and a note says so.

// minRatePairs is the fewest pairs of consecutive samples a rate is
// measured from.
const minRatePairs = 8

// busyScale is what a thread's weight (the sum of its weight-event
// periods) is multiplied by to give its busy share (before clamping).
func busyScale(samples []perfSample, wev string, m *profmodel.Model) float64 {
	span, why := wallSpan(samples)
	if why != "" {
		return rankScale(samples, wev, m, why)
	}
	var sum float64
	var n int
	periods := true
	for i := range samples {
		if s := &samples[i]; s.event == wev && len(s.frames) > 0 {
			sum += weightOf(s)
			n++
			periods = periods && s.hasPeriod
		}
	}
	if n == 0 {
		return rankScale(samples, wev, m, "the file has no sample of its weight event")
	}
	rate, measured := 1e9, false
	if !isClock(wev) || !periods {
		var pairs int
		if rate, pairs = measureRate(samples, wev); pairs < minRatePairs {
			return rankScale(samples, wev, m, "too few consecutive samples of one thread to measure the rate of "+eventLabel(wev)+" per second")
		}
		measured = true
	}
	seconds := (float64(span) + float64(sum/float64(n)/rate*1e9)) / 1e9
	if measured {
		m.Note("busy shares from time: a thread's %s over the wall span (%.3g s), at %.4g %s per second of running (the median over consecutive samples of one thread)",
			eventLabel(wev), seconds, rate, eventLabel(wev))
	} else {
		m.Note("busy shares from time: a thread's %s time (its periods, nanoseconds) over the wall span (%.3g s)", wev, seconds)
	}
	return 1 / (rate * seconds)
}

// eventLabel names an event in a note ("samples" for none).
func eventLabel(ev string) string {
	if ev == "" {
		return "samples"
	}
	return ev
}

// isClock says whether ev is one of perf's software clocks, whose periods
// are nanoseconds.
func isClock(ev string) bool { return ev == "cpu-clock" || ev == "task-clock" }

// weightOf is a sample's weight: its period, else 1.
func weightOf(s *perfSample) float64 {
	if s.hasPeriod {
		return s.period
	}
	return 1
}

// wallSpan is the nanoseconds from the file's first sample to its last,
// or why there is none: samples without a time, or times out of order
// (more than 1% of consecutive samples going back in time).
func wallSpan(samples []perfSample) (span int64, why string) {
	lo, hi := samples[0].time, samples[0].time
	back := 0
	for i := range samples {
		s := &samples[i]
		if !s.hasTime {
			return 0, "the file has no timestamps (perf 3.x, or perf script -F without time)"
		}
		if i > 0 && s.time < samples[i-1].time {
			back++
		}
		lo, hi = min(lo, s.time), max(hi, s.time)
	}
	if back*100 > len(samples) {
		return 0, "the timestamps are not in order (perf script --deltatime?)"
	}
	return hi - lo, ""
}

// measureRate is the median, over consecutive weight-event samples of one
// thread (not the idle task's) at increasing times, of the later
// sample's weight per second between them; pairs is how many there were.
func measureRate(samples []perfSample, wev string) (rate float64, pairs int) {
	last := map[[2]int64]*perfSample{}
	var rates []float64
	for i := range samples {
		s := &samples[i]
		if s.event != wev || s.pid == 0 {
			continue
		}
		key := [2]int64{s.pid, s.tid}
		if p := last[key]; p != nil && s.time > p.time {
			rates = append(rates, weightOf(s)/(float64(s.time-p.time)/1e9))
		}
		last[key] = s
	}
	if len(rates) == 0 {
		return 0, 0
	}
	slices.Sort(rates)
	mid := len(rates) / 2
	rate = rates[mid]
	if len(rates)%2 == 0 {
		rate = (rates[mid-1] + rates[mid]) / 2
	}
	return rate, len(rates)
}

// rankScale is the scale of the busiest processor's weight taken as busy
// all the time (the busiest thread's, when a sample has no [cpu]
// column), with a note saying why.
func rankScale(samples []perfSample, wev string, m *profmodel.Model, why string) float64 {
	cpus, threads := map[int]float64{}, map[[2]int64]float64{}
	noCPU := false
	for i := range samples {
		s := &samples[i]
		if s.event != wev || len(s.frames) == 0 {
			continue
		}
		w := weightOf(s)
		cpus[s.cpu] += w
		key := [2]int64{s.pid, s.tid}
		if s.pid == 0 {
			key[1] = int64(s.cpu)
		}
		threads[key] += w
		noCPU = noCPU || !s.hasCPU
	}
	ref, of := 0.0, "processor"
	if noCPU {
		of = "thread"
		for _, w := range threads {
			ref = max(ref, w)
		}
	} else {
		for _, w := range cpus {
			ref = max(ref, w)
		}
	}
	m.Note("busy shares by rank, not time: %s, so the busiest %s is taken as busy all the time and the others in proportion", strings.TrimSuffix(why, "."), of)
	if ref == 0 {
		return 1
	}
	return 1 / ref
}

// finish sets the threads' busy shares (their weight times scale, at most
// 1) and the period.
func (pb *perfBuilder) finish(im *profread.Sampling, scale float64) {
	var clamped int
	for _, t := range pb.m.Threads() {
		share := t.Weight() * scale
		if share > 1.05 {
			clamped++
		}
		t.SetBusy(min(1, share))
	}
	if clamped > 0 {
		pb.m.Note("%d threads ran more than the wall span holds (by more than 5%%): their busy shares are clamped to 1", clamped)
	}
	lo, hi, sum := pb.periods[0], pb.periods[0], 0.0
	for _, v := range pb.periods {
		lo, hi, sum = min(lo, v), max(hi, v), sum+v
	}
	im.Period = sum / float64(len(pb.periods))
	if lo != hi {
		pb.m.Note("the %s periods vary from %g to %g (perf record -F: frequency mode); the mean is given as the period", im.PeriodType, lo, hi)
	}
}
