package halrpctest_test

import (
	"os"
	"strings"
	"testing"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
	"github.com/proflab/proflab/halplugins/halrpc/halrpctest"
)

func TestMain(m *testing.M) {
	halrpctest.ServeIfPlugin()
	os.Exit(m.Run())
}

// TestInstalledPluginsServe: each installed name starts as a plugin
// process serving its HAL.
func TestInstalledPluginsServe(t *testing.T) {
	dir := t.TempDir()
	paths, err := halrpctest.Install(dir, "proflab-hal-pmu", halrpctest.FaultyAs("ok"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"pmu", "apic"} {
		c, err := halrpc.Start(halrpc.Options{Path: paths[i]})
		if err != nil {
			t.Fatal(err)
		}
		in := c.NewInstance()
		if err := in.Configure(hal.Machine{CPUs: 1, FreqMHz: 3000, Vendor: hal.VendorIntel, Arch: "x64", Version: "10.0.19041", Seed: 1}, nil); err != nil {
			t.Fatal(err)
		}
		d, err := in.Describe()
		c.Kill()
		if err != nil || d.Name != want {
			t.Errorf("%s: describes %q (%v), want %q", paths[i], d.Name, err, want)
		}
	}
	if _, err := halrpctest.Install(dir, "proflab-hal-nope"); err == nil || !strings.Contains(err.Error(), `no test plugin named "proflab-hal-nope"`) {
		t.Errorf("unknown name: %v", err)
	}
}
