package kernel

import "fmt"

// MapHardwareBuffer maps size bytes (whole pages, zeroed, read-write) of
// fresh memory in system space, followed by an unmapped guard page, for the
// lab's simulated hardware: the PEBS buffer a DS save area points to. It
// is not a pool allocation (injected pool failures do not apply and it is
// not in PoolAllocations) and it stays mapped for the machine's life.
func (m *Machine) MapHardwareBuffer(size uint64) (uint64, error) {
	if size == 0 || size > 64<<20 {
		return 0, fmt.Errorf("hardware buffer of %d bytes: want 1 byte to 64 MB", size)
	}
	frames := make([]*frame, pagesFor(size))
	for i := range frames {
		frames[i] = &frame{}
	}
	base, ok := m.mapSystem(frames)
	if !ok {
		return 0, fmt.Errorf("hardware buffer of %d bytes: system space for mappings is exhausted", size)
	}
	return base, nil
}
