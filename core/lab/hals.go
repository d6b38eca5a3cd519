package lab

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/halplugins/pebs"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// HALProvider opens the HALs of one machine from the names it lists. A
// worker keeps one provider (one plugin host, its plugin processes
// started once) across the labs it assembles.
type HALProvider interface {
	// Names lists the HAL names that may be asked for, for checking and
	// messages.
	Names() []string
	// Open returns one HAL per name, in order, programming hw, and a
	// function that releases them (called when the lab is closed). An
	// error means a HAL could not be made ready (a plugin failed to start
	// or to configure).
	Open(names []string, m Spec, hw halhost.Hardware) (hals []kernel.HALDispatch, release func(), err error)
}

// TestHALs is the HALProvider of the kernel's in-process test HALs:
// "apic" (ProfileTime), "pmu" (the vendor's counter sources) and "pebs"
// (the PEBS-capable Intel sources; nothing on AuthenticAMD), each with
// the standard bounds and clamping. They program no hardware: a
// simulator on them raises no interrupts.
type TestHALs struct{}

// Names implements HALProvider.
func (TestHALs) Names() []string { return []string{"apic", "pmu", "pebs"} }

// Open implements HALProvider.
func (TestHALs) Open(names []string, m Spec, _ halhost.Hardware) ([]kernel.HALDispatch, func(), error) {
	for n := range m.HALSettings {
		return nil, nil, fmt.Errorf("hal_settings.%s: the in-process test HALs take no settings", n)
	}
	hals := make([]kernel.HALDispatch, 0, len(names))
	for _, n := range names {
		switch n {
		case "apic":
			hals = append(hals, kernel.NewTestHAL("apic", nt.ProfileTime))
		case "pmu":
			counters := nt.IntelCounterSources
			if m.Vendor == nt.VendorAMD {
				counters = nt.AMDCounterSources
			}
			hals = append(hals, kernel.NewTestHAL("pmu", counters...))
		case "pebs":
			var srcs []nt.Source
			if m.Vendor != nt.VendorAMD {
				srcs = pebs.Sources()
			}
			hals = append(hals, kernel.NewTestHAL("pebs", srcs...))
		default:
			return nil, nil, fmt.Errorf("no HAL named %q (the in-process HALs are apic, pmu and pebs)", n)
		}
	}
	return hals, func() {}, nil
}

// HostHALs is the HALProvider of a plugin host: the HALs of the
// configuration ([hal.NAME]), each machine getting its own instance of
// each HAL it lists, released when its lab is closed.
type HostHALs struct {
	Host     *halhost.Host
	HALNames []string // the configured names (config.Config.HALNames)

	log *logSwitch // where NewHostHALs's host logs (nil: not switchable)
}

// NewHostHALs makes the provider of one worker over cfg's HALs: a plugin
// host whose processes start on first use and then serve every lab the
// worker assembles, until the returned close function is called. The
// plugins' log lines go where SetLog says (nowhere until then), unless
// opts.Logger is set.
func NewHostHALs(cfg *config.Config, opts halhost.Options) (h *HostHALs, closeHost func()) {
	sw := &logSwitch{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(sw, &slog.HandlerOptions{ReplaceAttr: dropTime}))
	}
	host := halhost.New(cfg.HAL, opts)
	return &HostHALs{Host: host, HALNames: cfg.HALNames(), log: sw}, host.Close
}

// Names implements HALProvider.
func (h *HostHALs) Names() []string { return h.HALNames }

// Open implements HALProvider.
func (h *HostHALs) Open(names []string, m Spec, hw halhost.Hardware) ([]kernel.HALDispatch, func(), error) {
	if hw == nil {
		hw = halhost.Discard{}
	}
	ctx := m.Context
	if ctx == nil {
		ctx = context.Background()
	}
	mhs, err := h.Host.OpenMachineContext(ctx, names, m.HALMachine(), hw, m.HALSettings)
	if err != nil {
		return nil, nil, err
	}
	out := make([]kernel.HALDispatch, len(mhs))
	for i, mh := range mhs {
		out[i] = mh
	}
	return out, func() { halhost.CloseMachine(mhs) }, nil
}

// SetLog sends the plugins' log lines to w (nil: nowhere): the log of
// the run in progress, as the host outlives runs. It does nothing on a
// provider NewHostHALs did not make.
func (h *HostHALs) SetLog(w io.Writer) {
	if h.log == nil {
		return
	}
	h.log.mu.Lock()
	h.log.w = w
	h.log.mu.Unlock()
}

// ShippedInproc is the provider of the default configuration's HALs
// (apic, pmu, pebs) with their shipped logic running in-process: no
// plugin executable is needed, and a simulator on them raises interrupts
// exactly as through the plugins.
func ShippedInproc() *HostHALs {
	cfg := config.Default()
	for name, h := range cfg.HAL {
		h.Transport = config.TransportInproc
		cfg.HAL[name] = h
	}
	return &HostHALs{Host: halhost.New(cfg.HAL, halhost.Options{}), HALNames: cfg.HALNames()}
}

// dropTime removes the wall-clock time from plugin log lines.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// logSwitch is a plugin host's log destination, switched from run to
// run.
type logSwitch struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (s *logSwitch) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return len(p), nil
	}
	return s.w.Write(p)
}

var (
	_ HALProvider = TestHALs{}
	_ HALProvider = (*HostHALs)(nil)
)
