package kernel

import (
	"fmt"
	"strings"
)

// Version is a modelled Windows version: Chappell's notation (3.10 … 10.0)
// with the Windows 10 build number.
type Version struct {
	Major, Minor int
	Build        int // Windows 10 build (10240 …); 0 for earlier versions
	name         string
}

// The modelled versions, oldest first.
var versions = []Version{
	{3, 10, 0, "3.10"}, {3, 50, 0, "3.50"}, {3, 51, 0, "3.51"}, {4, 0, 0, "4.0"},
	{5, 0, 0, "5.0"}, {5, 1, 0, "5.1"}, {5, 2, 0, "5.2"}, {6, 0, 0, "6.0"},
	{6, 1, 0, "6.1"}, {6, 2, 0, "6.2"}, {6, 3, 0, "6.3"},
	{10, 0, 10240, "10.0.10240"}, {10, 0, 10586, "10.0.10586"},
	{10, 0, 14393, "10.0.14393"}, {10, 0, 15063, "10.0.15063"},
	{10, 0, 16299, "10.0.16299"}, {10, 0, 17134, "10.0.17134"},
	{10, 0, 17763, "10.0.17763"}, {10, 0, 18362, "10.0.18362"},
	{10, 0, 19041, "10.0.19041"},
}

// Windows 10 release builds.
const (
	Build1507 = 10240
	Build1511 = 10586
	Build1607 = 14393
	Build1703 = 15063
	Build1709 = 16299
	Build1803 = 17134
	Build1809 = 17763
	Build1903 = 18362
	Build2004 = 19041
)

// DefaultVersion is the version a machine models when none is given.
const DefaultVersion = "10.0.19041"

// Versions returns the accepted version strings, oldest first.
func Versions() []string {
	out := make([]string, 0, len(versions)+1)
	for _, v := range versions {
		out = append(out, v.name)
		if v.Build == Build1507 {
			out = append(out, "10.0")
		}
	}
	return out
}

// ParseVersion reads "6.2", "10.0" (the original release, 10240) or
// "10.0.BUILD". Anything else is an error listing the accepted strings.
func ParseVersion(s string) (Version, error) {
	s = strings.TrimSpace(s)
	if s == "10.0" {
		s = "10.0.10240"
	}
	for _, v := range versions {
		if v.name == s {
			return v, nil
		}
	}
	return Version{}, fmt.Errorf("unknown Windows version %q: use one of %s", s, strings.Join(Versions(), ", "))
}

// MustVersion is ParseVersion for constants known to be valid; it panics
// on a bad string and is meant for tests and tables.
func MustVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

// String returns the version as ParseVersion accepts it.
func (v Version) String() string { return v.name }

func (v Version) key() int { return v.Major*1_000_000 + v.Minor*10_000 + v.Build/10 }

// AtLeast reports whether v is s or later; s must be a valid version.
func (v Version) AtLeast(s string) bool { return v.key() >= MustVersion(s).key() }

// Before reports whether v is earlier than s.
func (v Version) Before(s string) bool { return !v.AtLeast(s) }

// Version keys of the versions where behaviours change.
const (
	k3_50       = 3500000
	k3_51       = 3510000
	k4_0        = 4000000
	k5_0        = 5000000
	k5_1        = 5010000
	k5_2        = 5020000
	k6_0        = 6000000
	k6_1        = 6010000
	k6_2        = 6020000
	k6_3        = 6030000
	k10_0_15063 = 10001506
	k10_0_17763 = 10001776
	k10_0_18362 = 10001836
)

// Feature predicates: each names the version where the behaviour starts,
// per docs/reference/README.md#what-changed-in-which-version.
func (v Version) hasSource() bool              { return v.key() >= k3_51 } // source and affinity in create
func (v Version) hasSP4Validation() bool       { return v.key() >= k4_0 }  // "4.0" models SP4
func (v Version) hasCreateEx() bool            { return v.key() >= k6_1 }
func (v Version) hasStartLimit() bool          { return v.key() >= k6_1 }
func (v Version) hasHALSourceCheck() bool      { return v.key() >= k6_2 }
func (v Version) setNeedsPrivilege() bool      { return v.key() >= k6_2 }
func (v Version) hasCallbackObjects() bool     { return v.key() >= k6_2 }
func (v Version) inclusiveEndBug() bool        { return v.key() >= k6_2 && v.key() < k10_0_17763 }
func (v Version) restrictedCheck() bool        { return v.key() >= k6_3 }
func (v Version) fixedBufferCheck() bool       { return v.key() >= k10_0_15063 }
func (v Version) hasSampledProfile() bool      { return v.key() >= k5_1 }
func (v Version) hasSetIntervalEvent() bool    { return v.key() >= k6_0 }
func (v Version) hasKernelLogger() bool        { return v.key() >= k5_0 }
func (v Version) hasPerfTraceClass() bool      { return v.key() >= k6_0 }
func (v Version) hasControlArea() bool         { return v.key() >= k6_2 }
func (v Version) hasPerfInfoEx() bool          { return v.key() >= k6_2 }
func (v Version) hasTraceQuery() bool          { return v.key() >= k6_2 }
func (v Version) hasTraceSet() bool            { return v.key() >= k6_1 }
func (v Version) hasTraceProfileClasses() bool { return v.key() >= k6_2 }

// profileObjectType is KOBJECTS.ProfileObject for the version.
func (v Version) profileObjectType() uint16 {
	if v.key() < k4_0 {
		return 0x0F
	}
	return 0x17
}
