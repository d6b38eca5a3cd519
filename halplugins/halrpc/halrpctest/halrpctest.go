// Package halrpctest lets a test binary be the HAL plugins its tests
// start, go-plugin's helper-process pattern: the tests of the process
// boundary run real plugin processes — the shipped HALs served by
// halrpc.Serve exactly as their main packages do, and a plugin that
// misbehaves on request — without a `go build` per plugin and package.
//
// A test package calls ServeIfPlugin first thing in TestMain, and links
// the plugins it needs into a folder with Install:
//
//	func TestMain(m *testing.M) {
//		halrpctest.ServeIfPlugin()
//		dir, _ := os.MkdirTemp("", "plugins-")
//		if _, err := halrpctest.Install(dir, "proflab-hal-apic", halrpctest.FaultyAs("crash")); err != nil { ... }
//		...
//	}
//
// Each link is the test executable under a plugin's name; started under
// that name, ServeIfPlugin serves that plugin and exits.
package halrpctest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
	"github.com/proflab/proflab/halplugins/pebs"
	"github.com/proflab/proflab/halplugins/pmu"
)

// Shipped are the shipped HALs by plugin executable name, served as
// their main packages serve them.
var Shipped = map[string]hal.Factory{
	"proflab-hal-apic": apic.New,
	"proflab-hal-pmu":  pmu.New,
	"proflab-hal-pebs": pebs.New,
}

// ServeIfPlugin serves the plugin the process was started as — a name
// of Shipped, Faulty or FaultyAs(mode), as Install links them — and
// exits. Under any other name (a test binary's own) it returns at once.
func ServeIfPlugin() {
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if f, ok := Shipped[name]; ok {
		halrpc.Serve(f)
		os.Exit(0)
	}
	if name == Faulty {
		serveFaulty("ok", os.Args[1:])
		os.Exit(0)
	}
	if mode, ok := strings.CutPrefix(name, "hal-"); ok {
		serveFaulty(mode, os.Args[1:])
		os.Exit(0)
	}
}

// Install links the running test executable into dir under each of
// names (a symbolic link, else a copy) and returns the links' paths, in
// order. Started, each serves its plugin (see ServeIfPlugin).
func Install(dir string, names ...string) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the test executable: %w", err)
	}
	paths := make([]string, len(names))
	for i, n := range names {
		if _, shipped := Shipped[n]; !shipped && n != Faulty && !strings.HasPrefix(n, "hal-") {
			return nil, fmt.Errorf("no test plugin named %q (the shipped HALs' executables, %s or %s)", n, Faulty, FaultyAs("MODE"))
		}
		if runtime.GOOS == "windows" {
			n += ".exe"
		}
		p := filepath.Join(dir, n)
		if err := link(exe, p); err != nil {
			return nil, fmt.Errorf("installing the test plugin %s: %w", n, err)
		}
		paths[i] = p
	}
	return paths, nil
}

// link makes dst a symbolic link to src, or else a copy of it.
func link(src, dst string) error {
	serr := os.Symlink(src, dst)
	if serr == nil {
		return nil
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return errors.Join(serr, err)
	}
	return os.WriteFile(dst, b, 0o755)
}
