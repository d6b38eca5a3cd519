package etl

import (
	"encoding/binary"
	"fmt"
)

// DecompressLZ77 inflates src, which is compressed with Microsoft's plain
// LZ77 ("Xpress", [MS-XCA] sections 2.3–2.4: 32-bit flag words read from the most
// significant bit, literals of one byte, 16-bit match tokens of a 13-bit
// offset and a 3-bit length with the nibble, byte, word and dword length
// escapes), into dst[:0] and returns the result. The output may not grow
// past limit bytes: a stream that would is damaged (for a buffer, limit is
// SavedOffset less the buffer header), and so is a match reaching before
// the start of the output. dst is reused when it is large enough, so the
// caller's memory stays at one buffer whatever the file's size.
func DecompressLZ77(dst, src []byte, limit int) ([]byte, error) {
	if cap(dst) < limit {
		dst = make([]byte, 0, limit)
	}
	out := dst[:0]
	in := 0
	var flags uint32
	flagCount := 0
	lastHalfByte := -1
	for {
		if flagCount == 0 {
			if in+4 > len(src) {
				return out, nil
			}
			flags = binary.LittleEndian.Uint32(src[in:])
			in += 4
			flagCount = 32
		}
		flagCount--
		if flags&(1<<uint(flagCount)) == 0 {
			if in >= len(src) {
				return out, nil
			}
			if len(out) >= limit {
				return out, fmt.Errorf("LZ77: a literal at input offset %d inflates past %d bytes", in, limit)
			}
			out = append(out, src[in])
			in++
			continue
		}
		if in >= len(src) {
			return out, nil
		}
		if in+2 > len(src) {
			return out, fmt.Errorf("LZ77: a match token at input offset %d is cut short", in)
		}
		at := in
		token := int(binary.LittleEndian.Uint16(src[in:]))
		in += 2
		length := token & 7
		offset := token>>3 + 1
		if length == 7 {
			if lastHalfByte < 0 {
				if in >= len(src) {
					return out, fmt.Errorf("LZ77: a length nibble at input offset %d is missing", in)
				}
				length = int(src[in] & 0x0F)
				lastHalfByte = in
				in++
			} else {
				length = int(src[lastHalfByte] >> 4)
				lastHalfByte = -1
			}
			if length == 15 {
				if in >= len(src) {
					return out, fmt.Errorf("LZ77: a length byte at input offset %d is missing", in)
				}
				length = int(src[in])
				in++
				if length == 255 {
					if in+2 > len(src) {
						return out, fmt.Errorf("LZ77: a length word at input offset %d is missing", in)
					}
					length = int(binary.LittleEndian.Uint16(src[in:]))
					in += 2
					if length == 0 {
						if in+4 > len(src) {
							return out, fmt.Errorf("LZ77: a length dword at input offset %d is missing", in)
						}
						length = int(binary.LittleEndian.Uint32(src[in:]))
						in += 4
					}
					if length < 15+7 {
						return out, fmt.Errorf("LZ77: a match length %d at input offset %d is below its escape's minimum", length, at)
					}
					length -= 15 + 7
				}
				length += 15
			}
			length += 7
		}
		length += 3
		if offset > len(out) {
			return out, fmt.Errorf("LZ77: a match at input offset %d reaches %d bytes back, before the start of the output (%d bytes)", at, offset, len(out))
		}
		if length > limit-len(out) {
			return out, fmt.Errorf("LZ77: a match at input offset %d inflates past %d bytes", at, limit)
		}
		// out[i] = out[i-offset]: the bytes from start on repeat with
		// period offset, so each run copies all of them (offset bytes,
		// then twice as many…) and never reads bytes it writes
		start := len(out) - offset
		for length > 0 {
			n := min(length, len(out)-start)
			out = append(out, out[start:start+n]...)
			length -= n
		}
	}
}
