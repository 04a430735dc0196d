package api

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"sync"
	"unicode/utf8"

	"github.com/policygen/policygen/pkg/api/wire"
)

// encodePolicy is wire.EncodeJSON(o), byte for byte, made faster for the one
// big value in it: the content, tens of KB that encoding/json would escape
// a byte at a time (a fifth of a generate's own CPU time when it did). The
// summary and the evidence still go through wire.EncodeJSON; the content is
// written by appendJSONString. TestEncodePolicy holds it to wire.EncodeJSON's
// output for every golden request, FuzzAppendJSONString to encoding/json's
// for any string.
func encodePolicy(o policyObject) []byte {
	content, evidence := o.Content, o.Evidence
	o.Content, o.Evidence = "", nil
	// Encoded without them, o ends in `"content":""}` and a newline:
	// the content and the evidence go back in between.
	head := headBuffers.Get().(*bytes.Buffer)
	defer headBuffers.Put(head)
	head.Reset()
	enc := json.NewEncoder(head)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		panic(err) // as in wire.EncodeJSONSized: our own types always encode
	}
	tail := []byte(`""}` + "\n")
	if !bytes.HasSuffix(head.Bytes(), tail) {
		panic("api: a policy's JSON does not end with its content") // a field was added after Content
	}
	// Sized for the content's escapes (a line break is two bytes, about 1 %
	// of a document) with room to spare, so that it is allocated once.
	out := make([]byte, 0, head.Len()+len(content)+len(content)/16+64)
	out = append(out, head.Bytes()[:head.Len()-len(tail)]...)
	out = appendJSONString(out, content)
	if len(evidence) > 0 {
		ev := wire.EncodeJSON(evidence)
		out = append(out, `,"evidence":`...)
		out = append(out, ev[:len(ev)-1]...) // without its newline
	}
	return append(out, '}', '\n')
}

// headBuffers hold a policy's JSON without its content while encodePolicy
// runs: the response is allocated once its size is known.
var headBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it with HTML escaping off: `"` and `\` escaped, control
// characters as \n, \t, ... or \u00XX, each byte of invalid UTF-8 as
// \ufffd, and U+2028 and U+2029 as \u2028 and \u2029. Runs of bytes that
// need none of that (most of a document) are found eight at a time and
// copied whole.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			m := special8(load64(s, i))
			if m == 0 {
				i += 8
				continue
			}
			// The lowest flagged byte is the first that needs a look.
			i += bits.TrailingZeros64(m) >> 3
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// load64 is s[i:i+8] as a little-endian number (one load, compiled).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

const hexDigits = "0123456789abcdef"

// jsonSafe: the ASCII bytes a JSON string holds as they are.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// special8 has the high bit set of the first byte of the eight in v (in
// little-endian order) that is a control character, '"', '\' or
// non-ASCII, and is 0 when none is. Bits above that byte may be set
// wrongly (a borrow carries upwards), never bits below it.
func special8(v uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	zeroIn := func(x uint64) uint64 { return (x - ones) &^ x }
	return (v | // non-ASCII
		(v - 0x20*ones) | // below 0x20
		zeroIn(v^('"'*ones)) |
		zeroIn(v^('\\'*ones))) & highs
}
