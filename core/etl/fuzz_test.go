package etl_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/proflab/proflab/core/etl"
)

// seedBuffers are the start of the real traces: the header buffer and the
// next, an uncompressed one cut to its first 4 KiB (its BufferSize and
// SavedOffset rewritten) so that the fuzzer mutates small inputs.
func seedBuffers(f *testing.F) [][]byte {
	var out [][]byte
	le := binary.LittleEndian
	for _, name := range []string{x86Zip, rundown, smallest} {
		b := traceBytes(f, name)
		first := int(le.Uint32(b))
		second := first + int(le.Uint32(b[first:]))
		seed := append([]byte(nil), b[:min(second, len(b))]...)
		if len(seed) > first+4096 && le.Uint16(seed[first+etl.OffBufferFlag:])&etl.BufferFlagCompressed == 0 {
			seed = seed[:first+4096]
			le.PutUint32(seed[first+etl.OffBufferSize:], 4096)
			le.PutUint32(seed[first+etl.OffSavedOffset:], min(le.Uint32(seed[first+etl.OffSavedOffset:]), 4096))
		}
		out = append(out, seed)
	}
	return out
}

// decodeAll decodes a record's payload with the decoder of its kind, as
// the importer does, and every decoder besides: none may panic.
func decodeAll(p []byte, ptr int) {
	etl.DecodeProcess(p, ptr, 4)
	etl.DecodeProcess(p, ptr, 3)
	etl.DecodeThread(p, ptr)
	etl.DecodeImage(p, ptr, 3)
	etl.DecodeSampledProfile(p, ptr)
	etl.DecodePmcSample(p, ptr)
	etl.DecodeInterval(p, ptr)
	etl.DecodeStack(p, ptr)
	etl.DecodeStackKeyRef(p, ptr)
	etl.DecodeStackKey(p, ptr)
	etl.DecodeImageID(p, ptr)
	etl.DecodeDbgIDRSDS(p, ptr)
	etl.DecodeMethod(p)
	etl.DecodeLogfileHeader(p)
}

// FuzzReader reads buffers and records from any bytes: errors, never a
// panic, and every record inside its buffer.
func FuzzReader(f *testing.F) {
	for _, b := range seedBuffers(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := etl.NewReader(bytes.NewReader(data))
		h, _, err := r.ReadHeader()
		ptr := 8
		if err == nil {
			ptr = int(h.PointerSize)
		}
		for n := 0; n < 1<<12; n++ {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				var fe *etl.FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a FormatError", err)
				}
				return
			}
			if int64(len(rec.Payload)) > r.BytesRead() {
				t.Fatalf("a payload of %d bytes from %d bytes read", len(rec.Payload), r.BytesRead())
			}
			decodeKind(&rec, ptr)
		}
	})
}

// decodeKind decodes a record's payload as the importer does: by its hook
// or provider.
func decodeKind(rec *etl.Record, ptr int) {
	p := rec.Payload
	switch rec.Hook {
	case etl.HookProcessStart, etl.HookProcessDCStart:
		etl.DecodeProcess(p, ptr, rec.Version)
	case etl.HookThreadStart, etl.HookThreadDCStart:
		etl.DecodeThread(p, ptr)
	case etl.HookImageLoad, etl.HookImageDCStart:
		etl.DecodeImage(p, ptr, rec.Version)
	case etl.HookSampledProfile:
		etl.DecodeSampledProfile(p, ptr)
	case etl.HookStackWalk:
		etl.DecodeStack(p, ptr)
	case etl.HookStackKeyKernel, etl.HookStackKeyUser:
		etl.DecodeStackKeyRef(p, ptr)
	case etl.HookStackRundown, etl.HookStackKeyDelete:
		etl.DecodeStackKey(p, ptr)
	}
	if !rec.Kernel() {
		etl.DecodeMethod(p)
		etl.DecodeImageID(p, ptr)
	}
}

// FuzzRecords decodes any payload with every event decoder, of both
// pointer sizes.
func FuzzRecords(f *testing.F) {
	for _, b := range seedBuffers(f) {
		r := etl.NewReader(bytes.NewReader(b))
		for n := 0; n < 64; n++ {
			rec, err := r.Next()
			if err != nil {
				break
			}
			f.Add(rec.Payload, true)
		}
	}
	f.Fuzz(func(t *testing.T, p []byte, wide bool) {
		ptr := 4
		if wide {
			ptr = 8
		}
		decodeAll(p, ptr)
	})
}

// FuzzLZ77 inflates any bytes: never past the limit, never a panic.
func FuzzLZ77(f *testing.F) {
	b := traceBytes(f, x86Zip)
	first := int(binary.LittleEndian.Uint32(b))
	size := int(binary.LittleEndian.Uint32(b[first:]))
	saved := int(binary.LittleEndian.Uint32(b[first+etl.OffSavedOffset:]))
	f.Add(b[first+etl.BufferHeaderSize:first+size], saved-etl.BufferHeaderSize)
	f.Add(unhex(f, "ffffff1f 616263 1700 0fff 2601"), 300)
	f.Fuzz(func(t *testing.T, src []byte, limit int) {
		limit = max(0, min(limit, 1<<17)) // a buffer is at most 64 KiB in practice
		out, _ := etl.DecompressLZ77(nil, src, limit)
		if len(out) > limit {
			t.Fatalf("inflated %d bytes past the limit %d", len(out), limit)
		}
	})
}
