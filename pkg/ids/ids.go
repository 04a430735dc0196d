// Package ids makes the identifiers of Policygen's records: a type prefix
// ("plc_", "acct_", "key_") followed by a 26-character ULID in lowercase
// Crockford base32 (48-bit millisecond time, 80 random bits).
//
// Ids sort by creation time as plain strings, which is what lets the stores
// list an account's policies newest first by iterating keys in reverse.
// Within one process New's ids are strictly increasing: two made in the same
// millisecond differ by an increment of the random part.
package ids

import (
	"crypto/rand"
	"sync"
	"time"
)

// Prefixes of the id of each record type.
const (
	Policy  = "plc_"
	Account = "acct_"
	Key     = "key_"
)

// Len is the length of an id without its prefix.
const Len = 26

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// maxTime is the largest millisecond time a ULID can hold (48 bits).
const maxTime = 1<<48 - 1

// generator is the last ULID made: its time and random part.
type generator struct {
	ms   uint64
	rand [10]byte
}

var (
	mu sync.Mutex
	// live serves New; at serves NewAt, so that an id made for another
	// time never moves New's clock.
	live, at generator
)

// New returns prefix followed by a new ULID for the current time. Ids from
// one process increase strictly, even if the wall clock steps back.
func New(prefix string) string {
	ms := uint64(time.Now().UnixMilli())
	mu.Lock()
	defer mu.Unlock()
	if ms < live.ms {
		ms = live.ms // the clock stepped back: stay on the last time and increment
	}
	return prefix + live.next(ms)
}

// NewAt returns prefix followed by a ULID for time t, for tests and
// benchmarks that need ids of a given age. Ids made for the same
// millisecond in a row still increase.
func NewAt(prefix string, t time.Time) string {
	ms := t.UnixMilli()
	if ms < 0 {
		ms = 0
	}
	mu.Lock()
	defer mu.Unlock()
	return prefix + at.next(uint64(ms))
}

// next encodes a ULID for ms: the last one plus one if ms is the last
// millisecond, else a fresh random part. The caller holds mu.
func (g *generator) next(ms uint64) string {
	if ms > maxTime {
		ms = maxTime
	}
	if ms == g.ms && increment(&g.rand) {
		return encode(ms, g.rand)
	}
	if ms == g.ms {
		// 2^80 ids in one millisecond: move to the next one.
		ms++
	}
	if _, err := rand.Read(g.rand[:]); err != nil {
		panic("ids: crypto/rand failed: " + err.Error())
	}
	g.ms = ms
	return encode(ms, g.rand)
}

// increment adds one to r as a big-endian number; false on overflow.
func increment(r *[10]byte) bool {
	for i := len(r) - 1; i >= 0; i-- {
		r[i]++
		if r[i] != 0 {
			return true
		}
	}
	return false
}

// encode writes 128 bits (48 time, 80 random) as 26 base32 digits; the first
// digit carries only 3 bits, so it is at most '7'.
func encode(ms uint64, r [10]byte) string {
	var b [16]byte
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	copy(b[6:], r[:])
	var out [Len]byte
	// Read the 128 bits 5 at a time from the top, with 2 leading zero bits
	// to make 130.
	for i := 0; i < Len; i++ {
		bit := i*5 - 2 // position of the digit's first bit within b
		var v byte
		for j := 0; j < 5; j++ {
			p := bit + j
			v <<= 1
			if p >= 0 && b[p/8]&(0x80>>(p%8)) != 0 {
				v |= 1
			}
		}
		out[i] = alphabet[v]
	}
	return string(out[:])
}

// Valid reports whether s is prefix followed by a well-formed ULID in the
// lowercase alphabet New produces.
func Valid(prefix, s string) bool {
	if len(s) != len(prefix)+Len || s[:len(prefix)] != prefix {
		return false
	}
	u := s[len(prefix):]
	if u[0] < '0' || u[0] > '7' {
		return false
	}
	for i := 0; i < len(u); i++ {
		if !isDigit(u[i]) {
			return false
		}
	}
	return true
}

// Time returns the creation time encoded in id (after prefix), and false if
// id is not Valid.
func Time(prefix, id string) (time.Time, bool) {
	if !Valid(prefix, id) {
		return time.Time{}, false
	}
	var ms uint64
	for _, c := range []byte(id[len(prefix) : len(prefix)+10]) {
		ms = ms<<5 | uint64(indexOf(c))
	}
	return time.UnixMilli(int64(ms)).UTC(), true
}

func isDigit(c byte) bool { return indexOf(c) >= 0 }

func indexOf(c byte) int {
	for i := 0; i < len(alphabet); i++ {
		if alphabet[i] == c {
			return i
		}
	}
	return -1
}
