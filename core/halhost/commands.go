package halhost

import (
	"context"
	"fmt"
	"log/slog"
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
