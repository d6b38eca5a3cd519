package halrpctest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// Faulty is the name under which Install links the misbehaving plugin:
//
//	faulty [-mode ok|crash|hang|nonsense|counters|old|nodescribe|seeded|unary|detach] [-protocol N] [-pidfile FILE]
//
// Linked as hal-MODE (FaultyAs), it takes its mode from its name, so a
// host configuration can choose it without arguments. ok behaves as the
// apic HAL; crash exits in StartInterrupt; hang never answers
// StartInterrupt; nonsense answers queries with the wrong number of
// entries and programs a processor it was not asked about; counters
// reports 6 for HalQueryProfileNumberOfCounters (the others 0); old answers
// it UNIMPLEMENTED, as a plugin built before the call existed does;
// nodescribe panics in Describe (so configure cannot answer for it);
// seeded puts the machine's seed in its version, which a HAL must not do
// (hal.HAL's Describe); unary behaves as the apic HAL but serves the
// unary RPCs only, as a plugin built before the Session stream did;
// detach starts `setsid sleep 1000`, a child out of its process group,
// writes the child's pid to -pidfile, and then serves as ok.
// -protocol serves another protocol version than halrpc's.
const Faulty = "testplugin"

// FaultyAs is the name of the misbehaving plugin in a mode ("hal-crash").
func FaultyAs(mode string) string { return "hal-" + mode }

type faulty struct {
	hal.HAL
	mode string
	seed uint64
}

func (f *faulty) Configure(m hal.Machine) error {
	f.seed = m.Seed
	return f.HAL.Configure(m)
}

func (f *faulty) Settings() any { return f.HAL.(hal.Configurable).Settings() }

func (f *faulty) Describe() hal.Description {
	if f.mode == "nodescribe" {
		panic("testplugin: no description, as asked")
	}
	d := f.HAL.Describe()
	if f.mode == "seeded" {
		d.Version = fmt.Sprintf("%s-seed%d", d.Version, f.seed)
	}
	return d
}

func (f *faulty) StartInterrupt(cpus []int, src hal.Source) (hal.Programming, error) {
	switch f.mode {
	case "crash":
		os.Stderr.WriteString("testplugin: crashing as asked\n")
		os.Exit(3)
	case "hang":
		time.Sleep(time.Hour)
	case "nonsense":
		return hal.Programming{Timers: []hal.TimerProgram{{CPU: 63, Enabled: true, Period: 1}}}, nil
	}
	return f.HAL.StartInterrupt(cpus, src)
}

func (f *faulty) NumberOfCounters() (uint32, error) {
	switch f.mode {
	case "counters":
		return 6, nil
	case "old":
		return 0, hal.ErrUnsupported // UNIMPLEMENTED on the wire
	}
	return 0, nil
}

func (f *faulty) QuerySource(cpus []int, src hal.Source) ([]hal.SourceInfo, error) {
	info, err := f.HAL.QuerySource(cpus, src)
	if f.mode == "nonsense" {
		info = append(info, hal.SourceInfo{Supported: true, Interval: 1})
	}
	return info, err
}

// serveFaulty serves the misbehaving plugin in mode def, unless args say
// otherwise (-mode, -protocol).
func serveFaulty(def string, args []string) {
	fs := flag.NewFlagSet(Faulty, flag.ExitOnError)
	fs.SetOutput(os.Stderr)
	mode := fs.String("mode", def, "ok, crash, hang, nonsense, counters, old, nodescribe, seeded, unary, detach, or chatty (a plain line on stderr at start)")
	protocol := fs.Int("protocol", halrpc.ProtocolVersion, "protocol version to serve")
	pidFile := fs.String("pidfile", "", "where detach writes its child's pid")
	_ = fs.Parse(args)
	if *mode == "detach" {
		child := exec.Command("setsid", "sleep", "1000")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "testplugin: detach:", err)
			os.Exit(2)
		}
		if err := os.WriteFile(*pidFile, []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "testplugin: detach:", err)
			os.Exit(2)
		}
	}
	factory := func() hal.HAL { return &faulty{HAL: apic.New(), mode: *mode} }
	if *mode == "chatty" {
		fmt.Fprintln(os.Stderr, "testplugin: a plain line on stderr")
	}
	if *protocol == halrpc.ProtocolVersion && *mode != "unary" {
		halrpc.Serve(factory)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion: uint(*protocol), MagicCookieKey: halrpc.MagicCookieKey, MagicCookieValue: halrpc.MagicCookieValue,
		},
		VersionedPlugins: map[int]plugin.PluginSet{*protocol: {halrpc.PluginName: &halrpc.GRPCPlugin{Factory: factory, Unary: *mode == "unary"}}},
		GRPCServer:       plugin.DefaultGRPCServer,
		Logger:           hclog.New(&hclog.LoggerOptions{Output: os.Stderr, JSONFormat: true}),
	})
}
