package nt

import "testing"

func TestStatusNames(t *testing.T) {
	for _, tc := range []struct {
		s    Status
		name string
		ok   bool
	}{
		{StatusSuccess, "STATUS_SUCCESS", true},
		{StatusPrivilegeNotHeld, "STATUS_PRIVILEGE_NOT_HELD", true},
		{StatusBufferOverflow, "STATUS_BUFFER_OVERFLOW", true},
		{0xC0001234, "0xC0001234", false},
	} {
		if tc.s.Name() != tc.name || tc.s.Success() != (int32(tc.s) >= 0) {
			t.Errorf("%08X: %s", uint32(tc.s), tc.s.Name())
		}
	}
	if StatusBufferOverflow.Success() || StatusAccessViolation.Success() || !StatusSuccess.Success() {
		t.Error("NT_SUCCESS")
	}
	if StatusAccessDenied.String() != "STATUS_ACCESS_DENIED (0xC0000022)" {
		t.Error(StatusAccessDenied.String())
	}
	for name, v := range Statuses() {
		if v.Name() != name {
			t.Errorf("%s round-trips as %s", name, v.Name())
		}
	}
}

func TestWin32Error(t *testing.T) {
	for _, tc := range []struct {
		s    Status
		want uint32
	}{
		{StatusSuccess, ErrorSuccess}, {StatusPrivilegeNotHeld, ErrorPrivilegeNotHeld}, {StatusAccessViolation, ErrorNoAccess},
		{StatusInvalidParameter, ErrorInvalidParameter}, {StatusNotSupported, ErrorNotSupported}, {StatusInfoLengthMismatch, ErrorBadLength},
		{StatusAccessDenied, ErrorAccessDenied}, {StatusWMIAlreadyEnabled, ErrorWMIAlreadyEnabled}, {0xC0FFEE00, 317},
	} {
		if got := Win32Error(tc.s); got != tc.want {
			t.Errorf("%v → %d, want %d", tc.s, got, tc.want)
		}
	}
	if Win32Errors()["ERROR_INCORRECT_SIZE"] != 1462 || Win32Errors()["ERROR_BAD_LENGTH"] != 24 {
		t.Error("Win32 error names")
	}
}

func TestSources(t *testing.T) {
	if ProfileTime.Name() != "ProfileTime" || ProfileTime.Description() != "Timer" || Source(0x77).Name() != "Profile0x77" {
		t.Error("names")
	}
	if s, ok := SourceByName("ProfileMaximum"); !ok || s != 0x18 {
		t.Error("ProfileMaximum")
	}
	if _, ok := SourceByName("ProfileNothing"); ok {
		t.Error("unknown name found")
	}
	all := NamedSources()
	for i := 1; i < len(all); i++ {
		if all[i] <= all[i-1] {
			t.Fatal("not sorted")
		}
	}
	if TimerBounds.Clamp(1) != 1221 || TimerBounds.Clamp(1e9) != 10_000_000 || CounterBounds.Clamp(70000) != 70000 {
		t.Error("clamp")
	}
	if v, ok := EventSelect(VendorIntel, ProfileCacheMisses); !ok || v != 0x0003412E {
		t.Error("Emon select")
	}
	if v, ok := EventSelect(VendorAMD, ProfileDcacheMisses); !ok || v != 0x00030041 {
		t.Error("Amd64 select")
	}
	if _, ok := EventSelect(VendorAMD, ProfileCacheMisses); ok {
		t.Error("AMD has no CacheMisses")
	}
	if BugCheckName(0x0A) != "IRQL_NOT_LESS_OR_EQUAL" || BugCheckName(0x50) != "PAGE_FAULT_IN_NONPAGED_AREA" || BugCheckName(0x1E) != "KMODE_EXCEPTION_NOT_HANDLED" || BugCheckName(0xAC) != "HAL_MEMORY_ALLOCATION" || BugCheckName(1) != "BUGCHECK" {
		t.Error("bug-check names")
	}
}
