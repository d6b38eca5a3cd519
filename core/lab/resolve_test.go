package lab_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/kernel"
)

func ptr[T any](v T) *T { return &v }

// Resolve is the one place a machine description is resolved: the
// configuration's [machine] table, the overrides over it, and what they
// mean together.
func TestResolve(t *testing.T) {
	def := config.Default().Machine
	for _, tt := range []struct {
		name string
		m    func(*config.Machine)
		o    lab.Overrides
		want func(lab.Spec) bool
		err  string // the field and a fragment of the message
	}{
		{name: "the default machine", want: func(s lab.Spec) bool {
			return s.Version.String() == def.Version && s.CPUs == def.CPUs && s.Seed == 7 && len(s.HALs) == len(def.HAL)
		}},
		{name: "x86 before 5.2", o: lab.Overrides{Version: ptr("5.1")}, want: func(s lab.Spec) bool { return s.Arch == kernel.X86 }},
		{name: "x64 from 5.2", o: lab.Overrides{Version: ptr("5.2"), Arch: ptr("x64")}, want: func(s lab.Spec) bool { return s.Arch == kernel.X64 }},
		{name: "processors clamped to x86's 32", m: func(m *config.Machine) { m.CPUs = 64 }, o: lab.Overrides{Arch: ptr("x86")},
			want: func(s lab.Spec) bool { return s.CPUs == 32 }},
		{name: "overrides win", o: lab.Overrides{CPUs: ptr(3), Vendor: ptr("AuthenticAMD"), PEBS: ptr(true), FreqMHz: ptr(1000), Seed: ptr(uint64(9)), HALs: []string{"pmu"}, CacheErrataInterval: 5},
			want: func(s lab.Spec) bool {
				return s.CPUs == 3 && s.Vendor == "AuthenticAMD" && s.PEBS && s.FreqMHz == 1000 && s.Seed == 9 && s.HALs[0] == "pmu" && len(s.HALs) == 1 && s.CacheErrataInterval == 5
			}},
		{name: "unknown version", o: lab.Overrides{Version: ptr("11.0")}, err: `version: unknown Windows version "11.0"`},
		{name: "unknown version in the configuration", m: func(m *config.Machine) { m.Version = "7" }, err: "version:"},
		{name: "unknown arch", o: lab.Overrides{Arch: ptr("arm64")}, err: "arch:"},
		{name: "x64 before 5.2", o: lab.Overrides{Version: ptr("5.1"), Arch: ptr("x64")}, err: "arch: Windows 5.1 had no x64 build"},
		{name: "too many processors for x86", o: lab.Overrides{Arch: ptr("x86"), CPUs: ptr(33)}, err: "cpus: 33 is out of range; expected a whole number from 1 to 32"},
		{name: "no processor", o: lab.Overrides{CPUs: ptr(0)}, err: "cpus: 0 is out of range"},
		{name: "vendor", o: lab.Overrides{Vendor: ptr("CyrixInstead")}, err: `cpu_vendor: "CyrixInstead" is not accepted`},
		{name: "frequency", o: lab.Overrides{FreqMHz: ptr(0)}, err: "freq_mhz: 0 is out of range"},
	} {
		m := def
		if tt.m != nil {
			tt.m(&m)
		}
		s, err := lab.Resolve(m, tt.o, 7)
		if tt.err != "" {
			var fe *lab.FieldError
			field, _, _ := strings.Cut(tt.err, ":")
			if !errors.As(err, &fe) || fe.Field != field || !strings.Contains(err.Error(), "machine."+tt.err) {
				t.Errorf("%s: %v, want machine.%s", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || !tt.want(s) {
			t.Errorf("%s: %+v, %v", tt.name, s, err)
		}
	}
}
