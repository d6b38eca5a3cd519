package main

// The text of `proflab hal list` and `proflab hal check`: the plugin host
// (core/halhost) lists and checks, the command renders.

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/haltest"
)

// writeList prints listings as a table of sources with units and bounds.
// Every configured HAL is listed, each described on the default machine;
// the "default machine" column says, for the HALs the default machine
// uses, whether the HAL owns the source there or which earlier HAL of
// machine.hal does (each source belongs to the first HAL listing it).
func writeList(w io.Writer, ls []halhost.Listing, m config.Machine) error {
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
	fmt.Fprintf(w, "Configured HALs, each described on the default machine (Windows %s, %s, %s, %d processors;\n", m.Version, m.CPUVendor, m.Arch, m.CPUs)
	fmt.Fprintf(w, "bounds differ per version: --config-set machine.version=6.1 lists another).\n")
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

// writeResults prints check results, one line each, then a summary line
// "N passed, N failed".
func writeResults(w io.Writer, rs []haltest.Result) {
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
