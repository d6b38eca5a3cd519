package importtest

import (
	"encoding/binary"
)

// LegacySample is one stack of a legacy CPU profile: how many times it
// was seen and its program counters, leaf first.
type LegacySample struct {
	Count uint64
	PCs   []uint64
}

// LegacyCPU encodes a legacy gperftools CPU profile as 64-bit
// little-endian words: the header (0, 3, 0, period in µs, 0), each
// sample (count, depth, pcs…), the trailer (0, 1, 0), then the text of
// /proc/self/maps (maps). pprof's parser reads it: it takes the first
// mapping as the main binary, subtracts 1 from every PC but the leaf
// (return addresses) and names no function.
func LegacyCPU(periodUS uint64, samples []LegacySample, maps string) []byte {
	var b []byte
	w := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	for _, v := range []uint64{0, 3, 0, periodUS, 0} {
		w(v)
	}
	for _, s := range samples {
		w(s.Count)
		w(uint64(len(s.PCs)))
		for _, pc := range s.PCs {
			w(pc)
		}
	}
	w(0)
	w(1)
	w(0)
	return append(b, maps...)
}

// LegacyMaps is a /proc/self/maps text for LegacyCPU: the main binary
// /usr/bin/legacyprog at 0x400000 and libc at 0x7f1200000000.
const LegacyMaps = `00400000-00452000 r-xp 00000000 08:01 131090 /usr/bin/legacyprog
00651000-00652000 rw-p 00051000 08:01 131090 /usr/bin/legacyprog
7f1200000000-7f12001bd000 r-xp 00000000 08:01 264222 /lib/x86_64-linux-gnu/libc-2.19.so
7ffc2a1d0000-7ffc2a1f1000 rw-p 00000000 00:00 0 [stack]
`

// LegacyExample is a small legacy CPU profile over LegacyMaps: 100 µs
// period; leaves at 0x401000 (main binary, 60 samples over two stacks),
// 0x401008 (30), 0x402010 (25) and 0x7f1200012340 (libc, 15).
func LegacyExample() []byte {
	return LegacyCPU(100, []LegacySample{
		{Count: 40, PCs: []uint64{0x401000, 0x403005, 0x404005}},
		{Count: 20, PCs: []uint64{0x401000, 0x403105, 0x404005}},
		{Count: 30, PCs: []uint64{0x401008, 0x403005, 0x404005}},
		{Count: 25, PCs: []uint64{0x402010, 0x404005}},
		{Count: 15, PCs: []uint64{0x7f1200012340, 0x402015, 0x404005}},
	}, LegacyMaps)
}
