package etl

import "fmt"

// groupNames are the kernel's event groups (a hook's high byte), as
// ntwmi.h's EVENT_TRACE_GROUP_* name them.
var groupNames = [...]string{
	0x00: "EventTrace", 0x01: "DiskIo", 0x02: "Memory", 0x03: "Process", 0x04: "FileIo",
	0x05: "Thread", 0x06: "TcpIp", 0x07: "Job", 0x08: "UdpIp", 0x09: "Registry",
	0x0A: "DbgPrint", 0x0B: "Config", 0x0C: "Spare1", 0x0D: "Wnf", 0x0E: "Pool",
	0x0F: "PerfInfo", 0x10: "Heap", 0x11: "Object", 0x12: "Power", 0x13: "Modbound",
	0x14: "Image", 0x15: "Dpc", 0x16: "CacheManager", 0x17: "Critsec", 0x18: "StackWalk",
	0x19: "Ums", 0x1A: "Alpc", 0x1B: "SplitIo", 0x1C: "ThreadPool", 0x1D: "Hypervisor",
	0x1E: "HypervisorX",
}

// String names the hook by its group and its number, as notes show it:
// "FileIo 0x0424", "group 0x40 0x4010" for a group the table lacks.
func (h Hook) String() string {
	if g := int(h.Group()); g < len(groupNames) {
		return fmt.Sprintf("%s %#04x", groupNames[g], uint16(h))
	}
	return fmt.Sprintf("group %#02x %#04x", h.Group(), uint16(h))
}
