package hal_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/proflab/proflab/halplugins/hal"
)

var machine = hal.Machine{CPUs: 2, FreqMHz: 3000, Vendor: hal.VendorIntel, Arch: "x64", Version: "10.0", Seed: 1}

type settings struct {
	Rate  int      `json:"rate"`
	Names []string `json:"names"`
}

// timer is a minimal Base HAL with settings, a quantum and a panic switch.
type timer struct {
	hal.Base
	s settings
}

func newTimer() hal.HAL {
	t := &timer{s: settings{Rate: 5}}
	t.Base = hal.Base{Name: "t", Version: "1",
		Sources: func(hal.Machine) []hal.SourceSpec {
			return []hal.SourceSpec{{Source: hal.ProfileTime, Units: hal.Units100ns, Bounds: hal.Bounds{Min: 100, Max: 1000, Default: 500}}}
		},
		Quantise: func(_ hal.Source, v uint32) uint32 { return v / 100 * 100 },
		Program: func(e hal.Event) hal.Programming {
			if e.Kind == hal.EventStart && e.Interval == 700 {
				panic("seven hundred")
			}
			if e.Kind == hal.EventReset {
				return hal.Programming{}
			}
			return hal.Programming{Timers: []hal.TimerProgram{{CPU: e.CPU, Enabled: e.Kind != hal.EventStop, Period: e.Interval}}}
		}}
	return t
}

func (t *timer) Settings() any { return &t.s }

func TestSettingsDecoding(t *testing.T) {
	tests := []struct{ raw, err string }{
		{``, ""},
		{`null`, ""},
		{`{}`, ""},
		{`{"rate": 7, "names": ["a"]}`, ""},
		{`{"rat": 7}`, `unknown setting "rat"`},
		{`{"rate": "fast"}`, `setting "rate": got a string, want int`},
		{`{"names": 3}`, `setting "names": got a number, want []string`},
		{`[1]`, "want an object"},
		{`{"rate": 1} {}`, "trailing data"},
	}
	for _, tt := range tests {
		err := hal.Local(newTimer).Configure(machine, []byte(tt.raw))
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("settings %s: error %v, want %q", tt.raw, err, tt.err)
		}
	}
	noSettings := func() hal.HAL {
		return &hal.Base{Name: "n", Sources: func(hal.Machine) []hal.SourceSpec { return nil }}
	}
	if err := hal.Local(noSettings).Configure(machine, []byte(`{"x": 1}`)); err == nil || !strings.Contains(err.Error(), `"x": this HAL takes no settings`) {
		t.Errorf("settings for a HAL without: %v", err)
	}
}

func TestBaseClampsQuantisesAndReprograms(t *testing.T) {
	in := hal.Local(newTimer)
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	d, _ := in.Describe()
	if d.Settings != `{"rate":5,"names":null}` || d.Sources[0].Name != "ProfileTime" || d.Sources[0].Description != "Timer" {
		t.Errorf("describe %+v", d)
	}
	for _, tt := range []struct{ set, want uint32 }{{0, 100}, {99, 100}, {250, 200}, {999, 900}, {5000, 1000}} {
		eff, p, err := in.SetInterval([]int{0, 1}, hal.ProfileTime, tt.set)
		if err != nil || !reflect.DeepEqual(eff, []uint32{tt.want, tt.want}) || !p.Empty() {
			t.Errorf("set %d: %v %+v %v, want %d and no programming (not started)", tt.set, eff, p, err, tt.want)
		}
	}
	if _, err := in.StartInterrupt([]int{1}, hal.ProfileTime); err != nil {
		t.Fatal(err)
	}
	_, p, _ := in.SetInterval([]int{0, 1}, hal.ProfileTime, 300)
	if len(p.Timers) != 1 || !reflect.DeepEqual(p.Timers[0], hal.TimerProgram{CPU: 1, Enabled: true, Period: 300}) {
		t.Errorf("set while started on 1 programmed %+v", p.Timers)
	}
	info, _ := in.QuerySource([]int{0, 1}, hal.ProfileTotalIssues)
	if info[0].Supported || info[1].Supported {
		t.Errorf("unsupported source answered %+v", info)
	}
	p, _ = in.Reset()
	info, _ = in.QuerySource([]int{0}, hal.ProfileTime)
	if !p.ResetAll || info[0].Interval != 500 {
		t.Errorf("reset: %+v, interval %d", p, info[0].Interval)
	}
}

func TestLocalGuards(t *testing.T) {
	in := hal.Local(newTimer)
	if _, err := in.QuerySource([]int{0}, hal.ProfileTime); err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Errorf("query before configure: %v", err)
	}
	if err := in.Configure(hal.Machine{CPUs: 0, FreqMHz: 1, Arch: "x64"}, nil); err == nil {
		t.Error("zero processors accepted")
	}
	if err := in.Configure(machine, nil); err != nil {
		t.Fatal(err)
	}
	if err := in.Configure(machine, nil); err == nil {
		t.Error("second configure accepted")
	}
	for _, cpus := range [][]int{nil, {2}, {-1}, {1, 1}, {1, 0}} {
		if _, err := in.StartInterrupt(cpus, hal.ProfileTime); err == nil {
			t.Errorf("start on %v accepted", cpus)
		}
	}
	in.SetInterval([]int{0}, hal.ProfileTime, 700)
	if _, err := in.StartInterrupt([]int{0}, hal.ProfileTime); err == nil || !strings.Contains(err.Error(), "start: the HAL panicked: seven hundred") {
		t.Errorf("panic: %v", err)
	}
	if _, err := in.RefillTimer([]int{0}); !errors.Is(err, hal.ErrUnsupported) {
		t.Errorf("refill: %v", err)
	}
	if _, err := in.Interrupts(nil); !errors.Is(err, hal.ErrUnsupported) {
		t.Errorf("interrupts: %v", err)
	}
	in.Close()
	if _, err := in.Describe(); err == nil {
		t.Error("describe after close")
	}
}

func TestPackInterrupts(t *testing.T) {
	batch := []hal.Interrupt{{Time: 1, IP: 0xFFFFF80000001000, CPU: 63, Source: hal.ProfileLLCMisses, Flags: hal.InterruptUser | hal.InterruptPEBS}, {}}
	b := hal.PackInterrupts(batch)
	if len(b) != 2*hal.InterruptRecordSize {
		t.Fatalf("%d bytes", len(b))
	}
	got, err := hal.UnpackInterrupts(b)
	if err != nil || !reflect.DeepEqual(got, batch) {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := hal.UnpackInterrupts(b[:5]); err == nil {
		t.Fatal("short batch accepted")
	}
}

func TestCheckCPUs(t *testing.T) {
	for _, tt := range []struct {
		cpus []int
		ok   bool
	}{{[]int{0}, true}, {[]int{0, 3}, true}, {nil, false}, {[]int{4}, false}, {[]int{3, 2}, false}} {
		if err := hal.CheckCPUs(tt.cpus, 4); (err == nil) != tt.ok {
			t.Errorf("CheckCPUs(%v) = %v", tt.cpus, err)
		}
	}
}
