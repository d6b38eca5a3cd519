package kernel

import (
	"fmt"
	"strings"

	"github.com/proflab/proflab/kernel/nt"
)

// ParamKind is the C type of a service parameter, which fixes its width.
type ParamKind int

// Parameter kinds.
const (
	KindPointer  ParamKind = iota // PVOID, ULONG*, HANDLE*: pointer width
	KindHandle                    // HANDLE: pointer width
	KindSizeT                     // SIZE_T: pointer width
	KindAffinity                  // KAFFINITY: pointer width
	KindULong                     // ULONG, KPROFILE_SOURCE, information classes: 32 bits
	KindUShort                    // USHORT: 16 bits
	KindULong64                   // TRACEHANDLE: 64 bits
)

// Width returns the parameter's width in bytes on arch.
func (k ParamKind) Width(a Arch) int {
	switch k {
	case KindULong:
		return 4
	case KindUShort:
		return 2
	case KindULong64:
		return 8
	}
	return a.PointerSize()
}

// Param is one declared parameter.
type Param struct {
	Name string
	Kind ParamKind
}

// Service is a service as the modelled version declares it.
type Service struct {
	Name   string
	Params []Param
	// Win32 is true for the ADVAPI32 functions, which return a Win32
	// error code instead of an NTSTATUS.
	Win32 bool
}

// Signature renders the declaration, for messages.
func (s Service) Signature() string {
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return s.Name + "(" + strings.Join(names, ", ") + ")"
}

var (
	pHandlePtr = Param{"ProfileHandle", KindPointer}
	pProcess   = Param{"Process", KindHandle}
	pBase      = Param{"ProfileBase", KindPointer}
	pSize      = Param{"ProfileSize", KindSizeT}
	pBucket    = Param{"BucketSize", KindULong}
	pBuffer    = Param{"Buffer", KindPointer}
	pBufSize   = Param{"BufferSize", KindULong}
	pSource    = Param{"ProfileSource", KindULong}
)

// Services returns the services the machine's version declares, in a
// fixed order.
func (m *Machine) Services() []Service {
	v := m.ver
	var out []Service
	create := []Param{pHandlePtr, pProcess, pBase, pSize, pBucket, pBuffer, pBufSize}
	if v.hasSource() {
		create = append(create, pSource, Param{"Affinity", KindAffinity})
	}
	out = append(out, Service{Name: "NtCreateProfile", Params: create})
	if v.hasCreateEx() {
		out = append(out, Service{Name: "NtCreateProfileEx", Params: []Param{pHandlePtr, pProcess, pBase, pSize, pBucket,
			pBuffer, pBufSize, pSource, {"GroupCount", KindUShort}, {"GroupAffinity", KindPointer}}})
	}
	out = append(out,
		Service{Name: "NtStartProfile", Params: []Param{{"ProfileHandle", KindHandle}}},
		Service{Name: "NtStopProfile", Params: []Param{{"ProfileHandle", KindHandle}}},
		Service{Name: "NtClose", Params: []Param{{"Handle", KindHandle}}})
	if v.hasSource() {
		out = append(out,
			Service{Name: "NtQueryIntervalProfile", Params: []Param{pSource, {"Interval", KindPointer}}},
			Service{Name: "NtSetIntervalProfile", Params: []Param{{"Interval", KindULong}, pSource}})
	} else {
		out = append(out,
			Service{Name: "NtQueryIntervalProfile", Params: []Param{{"Interval", KindPointer}}},
			Service{Name: "NtSetIntervalProfile", Params: []Param{{"Interval", KindULong}}})
	}
	out = append(out,
		Service{Name: "NtQuerySystemInformation", Params: []Param{{"SystemInformationClass", KindULong},
			{"SystemInformation", KindPointer}, {"SystemInformationLength", KindULong}, {"ReturnLength", KindPointer}}},
		Service{Name: "NtSetSystemInformation", Params: []Param{{"SystemInformationClass", KindULong},
			{"SystemInformation", KindPointer}, {"SystemInformationLength", KindULong}}})
	if v.hasTraceQuery() {
		out = append(out, Service{Name: "TraceQueryInformation", Win32: true, Params: []Param{{"SessionHandle", KindULong64},
			{"InformationClass", KindULong}, {"TraceInformation", KindPointer}, {"InformationLength", KindULong},
			{"ReturnLength", KindPointer}}})
	}
	if v.hasTraceSet() {
		out = append(out, Service{Name: "TraceSetInformation", Win32: true, Params: []Param{{"SessionHandle", KindULong64},
			{"InformationClass", KindULong}, {"TraceInformation", KindPointer}, {"InformationLength", KindULong}}})
	}
	return out
}

// Service looks a service up by name in the machine's version.
func (m *Machine) Service(name string) (Service, bool) {
	for _, s := range m.Services() {
		if s.Name == name {
			return s, true
		}
	}
	return Service{}, false
}

// UnknownServiceError is a call of a service the modelled version lacks.
type UnknownServiceError struct {
	Service string
	Version Version
}

func (e *UnknownServiceError) Error() string {
	return fmt.Sprintf("%s does not exist in Windows %s", e.Service, e.Version)
}

// ArityError is a call with more arguments than the declaration takes.
type ArityError struct {
	Service Service
	Version Version
	Got     int
}

func (e *ArityError) Error() string {
	return fmt.Sprintf("%s takes %d arguments in Windows %s, not %d: %s", e.Service.Name, len(e.Service.Params), e.Version, e.Got, e.Service.Signature())
}

// Call invokes a service by name with raw arguments, as the calling
// convention would: missing trailing arguments are 0 and each argument is
// truncated to its parameter's width. It returns the NTSTATUS (or, for
// the Trace functions, the Win32 error code). The error is non-nil when
// the call could not run (unknown service, too many arguments, a stopped
// machine) or stopped the machine (a *BugCheck, a *HALError).
func (t *Thread) Call(name string, args []uint64) (uint32, error) {
	m := t.proc.m
	svc, ok := m.Service(name)
	if !ok {
		return 0, &UnknownServiceError{Service: name, Version: m.ver}
	}
	if len(args) > len(svc.Params) {
		return 0, &ArityError{Service: svc, Version: m.ver, Got: len(args)}
	}
	a := make([]uint64, len(svc.Params))
	for i, p := range svc.Params {
		if i < len(args) {
			w := p.Kind.Width(m.arch)
			a[i] = args[i]
			if w < 8 {
				a[i] &= (uint64(1) << (8 * w)) - 1
			}
		}
	}
	var st Status
	var err error
	switch name {
	case "NtCreateProfile":
		c := CreateArgs{ProfileHandle: a[0], Process: a[1], ProfileBase: a[2], ProfileSize: a[3],
			BucketSize: uint32(a[4]), Buffer: a[5], BufferSize: uint32(a[6])}
		if len(a) > 7 {
			c.ProfileSource, c.Affinity = uint32(a[7]), a[8]
		}
		st, err = t.NtCreateProfile(c)
	case "NtCreateProfileEx":
		st, err = t.NtCreateProfileEx(CreateArgs{ProfileHandle: a[0], Process: a[1], ProfileBase: a[2], ProfileSize: a[3],
			BucketSize: uint32(a[4]), Buffer: a[5], BufferSize: uint32(a[6]), ProfileSource: uint32(a[7]),
			GroupCount: uint16(a[8]), AffinityArray: a[9]})
	case "NtStartProfile":
		st, err = t.NtStartProfile(a[0])
	case "NtStopProfile":
		st, err = t.NtStopProfile(a[0])
	case "NtClose":
		st, err = t.NtClose(a[0])
	case "NtQueryIntervalProfile":
		if len(a) == 1 {
			st, err = t.NtQueryIntervalProfile(nt.ProfileTime, a[0])
		} else {
			st, err = t.NtQueryIntervalProfile(nt.Source(a[0]), a[1])
		}
	case "NtSetIntervalProfile":
		if len(a) == 1 {
			st, err = t.NtSetIntervalProfile(uint32(a[0]), nt.ProfileTime)
		} else {
			st, err = t.NtSetIntervalProfile(uint32(a[0]), nt.Source(a[1]))
		}
	case "NtQuerySystemInformation":
		st, err = t.NtQuerySystemInformation(uint32(a[0]), a[1], uint32(a[2]), a[3])
	case "NtSetSystemInformation":
		st, err = t.NtSetSystemInformation(uint32(a[0]), a[1], uint32(a[2]))
	case "TraceQueryInformation":
		return t.TraceQueryInformation(a[0], uint32(a[1]), a[2], uint32(a[3]), a[4])
	case "TraceSetInformation":
		return t.TraceSetInformation(a[0], uint32(a[1]), a[2], uint32(a[3]))
	}
	return uint32(st), err
}
