package halhost

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
	"github.com/proflab/proflab/halplugins/haltest"
)

// MachineOf returns the HAL view of the configuration's default machine.
func MachineOf(m config.Machine) hal.Machine {
	return hal.Machine{CPUs: m.CPUs, FreqMHz: uint32(m.FreqMHz), Vendor: m.CPUVendor, Arch: m.Arch, Version: m.Version, Seed: uint64(m.Seed)}
}

// Listing is one configured HAL as `proflab hal list` shows it.
type Listing struct {
	Name        string
	Description hal.Description
	// Counters is what the HAL reports for HalQueryProfileNumberOfCounters.
	Counters uint32
	Err      error
}

// List opens every configured HAL (concurrently) on the configuration's
// default machine and describes it. A HAL that fails has Err set; the
// others are still listed.
func List(h *Host, cfg *config.Config) []Listing {
	names := listOrder(cfg)
	out := make([]Listing, len(names))
	done := make(chan struct{})
	for i, n := range names {
		go func() {
			defer func() { done <- struct{}{} }()
			out[i].Name = n
			mh, err := h.Open(n, MachineOf(cfg.Machine), Discard{})
			if err != nil {
				out[i].Err = err
				return
			}
			defer mh.Close()
			out[i].Description = mh.Description()
			out[i].Counters, out[i].Err = mh.NumberOfCounters()
		}()
	}
	for range names {
		<-done
	}
	return out
}

// listOrder is the machine's HALs in its order, then the others by name.
func listOrder(cfg *config.Config) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range append(append([]string(nil), cfg.Machine.HAL...), cfg.HALNames()...) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// WriteList prints listings as a table of sources with units and bounds.
// Every configured HAL is listed, each described on the default machine;
// the "default machine" column says, for the HALs the default machine
// uses, whether the HAL owns the source there or which earlier HAL of
// machine.hal does (each source belongs to the first HAL listing it).
func WriteList(w io.Writer, ls []Listing, m config.Machine) error {
	used := map[string]bool{}
	for _, n := range m.HAL {
		used[n] = true
	}
	owner := map[hal.Source]string{}
	for _, n := range m.HAL {
		for _, l := range ls {
			if l.Name != n || l.Err != nil {
				continue
			}
			for _, s := range l.Description.Sources {
				if _, taken := owner[s.Source]; !taken {
					owner[s.Source] = n
				}
			}
		}
	}
	fmt.Fprintf(w, "Configured HALs, each described on the default machine (%s, %s, %d processors).\n", m.CPUVendor, m.Arch, m.CPUs)
	fmt.Fprintf(w, "The default machine uses %s; a source belongs to the first of them that offers it.\n\n", strings.Join(m.HAL, ", "))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, l := range ls {
		if l.Err != nil {
			fmt.Fprintf(w, "%s: ERROR %v\n\n", l.Name, l.Err)
			continue
		}
		d := l.Description
		role := "not used by the default machine"
		if used[l.Name] {
			role = "used by the default machine"
		}
		fmt.Fprintf(w, "%s (%s %s): %d sources, %d counters per processor, %s\n", l.Name, d.Name, d.Version, len(d.Sources), l.Counters, role)
		if len(d.Sources) == 0 {
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprintln(tw, "  source\tname\tunits\tmin\tdefault\tmax\tprecise\tdefault machine")
		for _, s := range d.Sources {
			precise := ""
			if s.Precise {
				precise = "yes"
			}
			own := "-"
			switch o := owner[s.Source]; {
			case !used[l.Name]:
			case o == l.Name:
				own = "owns it"
			default:
				own = o + " owns it"
			}
			fmt.Fprintf(tw, "  0x%02X\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", uint32(s.Source), s.Name, s.Units, s.Bounds.Min, s.Bounds.Default, s.Bounds.Max, precise, own)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if d.Settings != "" && d.Settings != "{}" {
			fmt.Fprintf(w, "  settings (defaults): %s\n", d.Settings)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// Check runs the haltest conformance suite on the plugin executable at
// path (or a name found along search), across the process boundary. It
// returns the results, or an error if the plugin cannot be started. When
// ctx ends (Ctrl-C) the plugin is stopped at once; the checks still
// running fail and Check returns.
func Check(ctx context.Context, path string, search Search, timeout time.Duration, log *slog.Logger) ([]haltest.Result, error) {
	exe, err := search.Find(path)
	if err != nil {
		return nil, err
	}
	c, err := halrpc.Start(halrpc.Options{Path: exe, Timeout: timeout, Logger: log, Context: ctx})
	if err != nil {
		return nil, err
	}
	defer c.Kill()
	defer context.AfterFunc(ctx, c.Kill)()
	return haltest.Check(func() (hal.Instance, error) {
		if c.Exited() {
			return nil, fmt.Errorf("plugin %s: %w", exe, halrpc.ErrExited)
		}
		return c.NewInstance(), nil
	}), nil
}

// WriteResults prints check results, one line each, then a summary line
// "N passed, N failed".
func WriteResults(w io.Writer, rs []haltest.Result) {
	pass, fail := 0, 0
	for _, r := range rs {
		if r.Err == nil {
			pass++
			fmt.Fprintf(w, "PASS  %s (%s)\n", r.Check, r.Machine)
			continue
		}
		fail++
		fmt.Fprintf(w, "FAIL  %s (%s)\n      %s\n", r.Check, r.Machine, strings.ReplaceAll(r.Err.Error(), "\n", "\n      "))
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", pass, fail)
}
