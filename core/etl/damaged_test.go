package etl_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/etl"
)

// readErr reads b to its end and returns the first error (nil at EOF).
func readErr(b []byte) error {
	r := etl.NewReader(bytes.NewReader(b))
	if _, _, err := r.ReadHeader(); err != nil {
		return err
	}
	return drain(r, nil)
}

// TestDamagedFiles mutates the real traces: each damage is a FormatError
// naming the buffer and the offset, never a panic.
func TestDamagedFiles(t *testing.T) {
	plain := traceBytes(t, rundown) // uncompressed 64 KiB buffers
	x86 := traceBytes(t, x86Zip)
	le := binary.LittleEndian
	first := int(le.Uint32(plain[etl.OffBufferSize:])) // the second buffer's file offset
	clone := func(b []byte) []byte { return append([]byte(nil), b...) }
	for _, c := range []struct {
		name string
		data func() []byte
		want string
	}{
		{"truncated in a buffer", func() []byte { return plain[:first+1000] }, "buffer 1 (file offset " + hexOf(first) + "), offset 0x3e8: truncated"},
		{"truncated in a buffer header", func() []byte { return plain[:first+30] }, "buffer 1 (file offset " + hexOf(first) + "), offset 0x0: truncated"},
		{"BufferSize past the file", func() []byte {
			b := clone(plain)
			le.PutUint32(b[first+etl.OffBufferSize:], uint32(len(b)))
			return b
		}, "buffer 1 (file offset " + hexOf(first) + "), offset 0x300000: truncated: the file ends 3145728 of 3211264 bytes into the buffer"},
		{"BufferSize below the header", func() []byte {
			b := clone(plain)
			le.PutUint32(b[first+etl.OffBufferSize:], 8)
			return b
		}, "BufferSize 8 is outside"},
		{"SavedOffset past BufferSize", func() []byte {
			b := clone(plain)
			le.PutUint32(b[first+etl.OffSavedOffset:], 0x20000)
			return b
		}, "SavedOffset 131072 overruns the buffer's 65536 bytes"},
		{"a record size that overruns", func() []byte {
			b := clone(plain)
			le.PutUint16(b[first+etl.BufferHeaderSize+4:], 0xFFF0) // the first record's Size (a SYSTEM or PERFINFO header)
			return b
		}, "buffer 1 (file offset " + hexOf(first) + "), offset 0x48:"},
		{"a record of no known kind", func() []byte {
			b := clone(plain)
			b[first+etl.BufferHeaderSize+2] = 0x7E
			return b
		}, "of no kind the reader knows"},
		{"a compressed buffer inflating past SavedOffset", func() []byte {
			b := clone(x86)
			le.PutUint32(b[512+etl.OffSavedOffset:], 0x1000)
			return b
		}, "buffer 1 (file offset 0x200), offset 0x48: compressed buffer (SavedOffset 4096): LZ77:"},
		{"PointerSize 3", func() []byte {
			b := clone(plain)
			le.PutUint32(b[etl.BufferHeaderSize+etl.SystemHeaderSize+etl.LogOffPointerSize:], 3)
			return b
		}, "PointerSize is 3; an .etl file has 4 or 8"},
		{"not an .etl file", func() []byte { return []byte(strings.Repeat("PK\x03\x04 not a trace ", 20)) }, "not a buffer of an .etl file"},
		{"a first record that is not the header", func() []byte {
			b := clone(plain)
			b[etl.BufferHeaderSize+6] = 0x2E
			return b
		}, "not the EventTrace header"},
	} {
		err := readErr(c.data())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if err := readErr(nil); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("an empty file: error %v", err)
	}
}

func hexOf(v int) string { return fmt.Sprintf("%#x", v) }
