package etl_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/proflab/proflab/core/etl"
)

// kindsFile is a header buffer and one buffer holding a record of each
// header kind the real traces lack: compact SYSTEM, PERFINFO with two PMC
// values, a classic GUID event and an EVENT_HEADER with two extended data
// items.
func kindsFile(t *testing.T) []byte {
	le := binary.LittleEndian
	var recs [][]byte
	// compact SYSTEM: version, kind, flags, size, opcode, group, tid, pid, time
	r := le.AppendUint16(nil, 3)
	r = append(r, byte(etl.HeaderCompact64), etl.HeaderFlags)
	r = le.AppendUint16(r, etl.CompactHeaderSize+8)
	r = append(r, 0x03, 0x05) // Thread DCStart
	r = le.AppendUint32(r, 11)
	r = le.AppendUint32(r, 22)
	r = le.AppendUint64(r, 333)
	recs = append(recs, le.AppendUint64(r, 0xAAAA))
	// PERFINFO, version 2 with two PMC values (bits 0x0700 = 2): 16 bytes
	// between the header and the payload
	r = le.AppendUint16(nil, 0x0202)
	r = append(r, byte(etl.HeaderPerfInfo64), etl.HeaderFlags)
	r = le.AppendUint16(r, etl.PerfInfoHeaderSize+16+4)
	r = append(r, 0x2E, 0x0F)
	r = le.AppendUint64(r, 444)
	r = le.AppendUint64(le.AppendUint64(r, 1), 2)
	recs = append(recs, le.AppendUint32(r, 0xBBBB))
	// classic GUID: size, kind, flags, type, level, version, tid, pid, time, GUID, times
	r = le.AppendUint16(nil, etl.GUIDHeaderSize+4)
	r = append(r, byte(etl.HeaderFullGUIDTrace64), etl.HeaderFlags, etl.TypeDbgIDRSDS, 4)
	r = le.AppendUint16(r, 2)
	r = le.AppendUint32(r, 33)
	r = le.AppendUint32(r, 44)
	r = le.AppendUint64(r, 555)
	r = append(r, etl.KernelTraceControl[:]...)
	r = le.AppendUint64(r, 0)
	recs = append(recs, le.AppendUint32(r, 0xCCCC))
	// EVENT_HEADER with extended data: two items (4 bytes padded to 8,
	// then 8), the first linked to the second
	r = le.AppendUint16(nil, etl.EventHeaderSize+8+8+8+8+4)
	r = append(r, byte(etl.HeaderEvent64), etl.HeaderFlags)
	r = le.AppendUint16(r, etl.EventFlagExtendedInfo)
	r = le.AppendUint16(r, 0)
	r = le.AppendUint32(r, 55)
	r = le.AppendUint32(r, 66)
	r = le.AppendUint64(r, 666)
	r = append(r, etl.CLRRuntime[:]...)
	r = le.AppendUint16(r, etl.EventMethodLoadVerbose)
	r = append(r, 1, 0, 4, 37)
	r = le.AppendUint16(r, 9)
	r = le.AppendUint64(r, 0x38)
	r = le.AppendUint64(r, 0)
	r = append(r, make([]byte, 16)...) // ActivityId
	r = append(le.AppendUint16(le.AppendUint16(le.AppendUint16(le.AppendUint16(r, 0), 5), 1), 4), 1, 2, 3, 4, 0, 0, 0, 0)
	r = append(le.AppendUint16(le.AppendUint16(le.AppendUint16(le.AppendUint16(r, 0), 6), 0), 8), 1, 2, 3, 4, 5, 6, 7, 8)
	recs = append(recs, le.AppendUint32(r, 0xDDDD))

	h := traceBytes(t, smallest)
	first := int(le.Uint32(h))
	buf := make([]byte, etl.BufferHeaderSize)
	for _, rec := range recs {
		buf = append(buf, rec...)
		for len(buf)%8 != 0 {
			buf = append(buf, 0)
		}
	}
	le.PutUint32(buf[etl.OffSavedOffset:], uint32(len(buf)))
	for len(buf) < 4096 {
		buf = append(buf, etl.FillByte)
	}
	le.PutUint32(buf[etl.OffBufferSize:], uint32(len(buf)))
	le.PutUint16(buf[etl.OffProcessorIndex:], 3)
	return append(append([]byte(nil), h[:first]...), buf...)
}

// TestRecordKinds reads a record of each header kind: its identity, ids,
// time and payload.
func TestRecordKinds(t *testing.T) {
	r := etl.NewReader(bytes.NewReader(kindsFile(t)))
	if _, _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	var got []etl.Record
	if err := drain(r, func(rec *etl.Record) {
		if rec.Buffer == 1 {
			c := *rec
			c.Payload = append([]byte(nil), rec.Payload...)
			got = append(got, c)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d records in the buffer, want 4", len(got))
	}
	le := binary.LittleEndian
	checks := []struct {
		ok   bool
		what string
	}{
		{got[0].Kind == etl.HeaderCompact64 && got[0].Hook == etl.HookThreadDCStart && got[0].Version == 3 && got[0].ThreadID == 11 && got[0].ProcessID == 22 && got[0].Time == 333 && le.Uint64(got[0].Payload) == 0xAAAA && len(got[0].Payload) == 8, "compact SYSTEM"},
		{got[1].Kind == etl.HeaderPerfInfo64 && got[1].Hook == etl.HookSampledProfile && got[1].Time == 444 && got[1].ThreadID == etl.NoID && len(got[1].Payload) == 4 && le.Uint32(got[1].Payload) == 0xBBBB, "PERFINFO with two PMC values"},
		{got[2].Kind == etl.HeaderFullGUIDTrace64 && got[2].Provider == etl.KernelTraceControl && got[2].Opcode == etl.TypeDbgIDRSDS && got[2].Version == 2 && got[2].ThreadID == 33 && got[2].ProcessID == 44 && got[2].Time == 555 && le.Uint32(got[2].Payload) == 0xCCCC, "GUID"},
		{got[3].Kind == etl.HeaderEvent64 && got[3].Provider == etl.CLRRuntime && got[3].EventID == etl.EventMethodLoadVerbose && got[3].Version == 1 && got[3].Opcode == 37 && got[3].ThreadID == 55 && got[3].ProcessID == 66 && got[3].Time == 666 && len(got[3].Payload) == 4 && le.Uint32(got[3].Payload) == 0xDDDD, "EVENT_HEADER with extended data"},
	}
	for i, c := range checks {
		if !c.ok {
			t.Errorf("%s: %+v", c.what, got[i])
		}
		if got[i].Processor != 3 || got[i].Buffer != 1 {
			t.Errorf("%s: processor %d, buffer %d", c.what, got[i].Processor, got[i].Buffer)
		}
	}
}
