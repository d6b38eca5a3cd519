package scenario

import (
	"slices"
	"strings"
	"sync"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/kernel"
)

// servedBy is the run's HAL provider, noting what serves each HAL a
// machine of the run opens: the plugin executable its process was started
// from, hashed then (halhost.MachineHAL.Plugin). A run records these, not
// what the configuration's plugins were when the command began: a worker
// starts its plugin processes later, and again after a crash, and the
// file may have been rebuilt meanwhile.
type servedBy struct {
	lab.HALProvider
	mu   sync.Mutex
	seen []halhost.Plugin // distinct, in the order first opened
}

// Open implements lab.HALProvider.
func (s *servedBy) Open(names []string, m lab.Spec, hw halhost.Hardware) ([]kernel.HALDispatch, func(), error) {
	hals, release, err := s.HALProvider.Open(names, m, hw)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range hals {
		if p, ok := h.(interface{ Plugin() halhost.Plugin }); ok {
			if p := p.Plugin(); !slices.Contains(s.seen, p) {
				s.seen = append(s.seen, p)
			}
		}
	}
	return hals, release, nil
}

// plugins are the run's plugins: each configured one (in the
// configuration's order) as what served the run's machines where the run
// opened it — more than one entry if two executables did (a plugin
// rebuilt and restarted within the run) — and as configured where it did
// not; then what served the run that the configuration does not list.
func (s *servedBy) plugins(configured []halhost.Plugin) []halhost.Plugin {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []halhost.Plugin
	done := map[string]bool{}
	for _, c := range configured {
		served := false
		for _, p := range s.seen {
			if p.HAL == c.HAL {
				p.Served = true
				out, served = append(out, p), true
			}
		}
		if !served {
			out = append(out, c)
		}
		done[c.HAL] = true
	}
	var rest []halhost.Plugin
	for _, p := range s.seen {
		if !done[p.HAL] {
			p.Served = true
			rest = append(rest, p)
		}
	}
	slices.SortStableFunc(rest, func(a, b halhost.Plugin) int { return strings.Compare(a.HAL, b.HAL) })
	return append(out, rest...)
}
