package hal

import (
	"encoding/binary"
	"fmt"
)

// Interrupt is one profile interrupt the lab delivered for a HAL's
// programming, as an [InterruptHook] sees it.
type Interrupt struct {
	// Time is simulated time in 100 ns units since the machine was created.
	Time uint64
	// IP is the interrupted (or, with PEBS, the recorded) instruction
	// pointer.
	IP uint64
	// CPU is the processor.
	CPU uint16
	// Source is the profile source.
	Source Source
	// Flags: InterruptUser, InterruptISR, InterruptDPC, InterruptPEBS.
	Flags uint32
}

// Interrupt flags.
const (
	InterruptUser = 1 << 0 // the interrupted code ran in user mode
	InterruptISR  = 1 << 1 // an interrupt service routine was running
	InterruptDPC  = 1 << 2 // a DPC was running
	InterruptPEBS = 1 << 3 // delivered from a PEBS record
)

// InterruptRecordSize is the packed size of one Interrupt in bytes.
const InterruptRecordSize = 32

// PackInterrupts packs a batch little-endian, InterruptRecordSize bytes a
// record: Time u64, IP u64, CPU u16, pad u16, Source u32, Flags u32, pad u32.
func PackInterrupts(batch []Interrupt) []byte {
	b := make([]byte, len(batch)*InterruptRecordSize)
	for i, r := range batch {
		o := b[i*InterruptRecordSize:]
		binary.LittleEndian.PutUint64(o[0:], r.Time)
		binary.LittleEndian.PutUint64(o[8:], r.IP)
		binary.LittleEndian.PutUint16(o[16:], r.CPU)
		binary.LittleEndian.PutUint32(o[20:], uint32(r.Source))
		binary.LittleEndian.PutUint32(o[24:], r.Flags)
	}
	return b
}

// UnpackInterrupts is PackInterrupts' inverse. A length that is not a
// multiple of InterruptRecordSize is an error.
func UnpackInterrupts(b []byte) ([]Interrupt, error) {
	if len(b)%InterruptRecordSize != 0 {
		return nil, fmt.Errorf("hal: packed interrupt batch of %d bytes is not a multiple of %d", len(b), InterruptRecordSize)
	}
	out := make([]Interrupt, len(b)/InterruptRecordSize)
	for i := range out {
		o := b[i*InterruptRecordSize:]
		out[i] = Interrupt{
			Time:   binary.LittleEndian.Uint64(o[0:]),
			IP:     binary.LittleEndian.Uint64(o[8:]),
			CPU:    binary.LittleEndian.Uint16(o[16:]),
			Source: Source(binary.LittleEndian.Uint32(o[20:])),
			Flags:  binary.LittleEndian.Uint32(o[24:]),
		}
	}
	return out, nil
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
