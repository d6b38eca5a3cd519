package kernel

import "testing"

func TestMapHardwareBuffer(t *testing.T) {
	v, err := ParseVersion(DefaultVersion)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMachine(Config{Version: v, Arch: X64, CPUs: 1, Vendor: "GenuineIntel", FreqMHz: 3000})
	if err != nil {
		t.Fatal(err)
	}
	m.InjectPoolFailures(1)
	base, err := m.MapHardwareBuffer(0x1800)
	if err != nil || base%PageSize != 0 {
		t.Fatalf("MapHardwareBuffer = %#x, %v", base, err)
	}
	if err := m.WriteSystem(base+0x1FFC, []byte{1, 2, 3, 4}); err != nil {
		t.Errorf("last page not writable: %v", err)
	}
	if err := m.WriteSystem(base+0x2000, []byte{1}); err == nil {
		t.Error("guard page is mapped")
	}
	if len(m.PoolAllocations()) != 0 {
		t.Error("counted as a pool allocation")
	}
	if _, err := m.MapHardwareBuffer(0); err == nil {
		t.Error("empty buffer accepted")
	}
}
