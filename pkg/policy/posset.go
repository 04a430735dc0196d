package policy

import "math/bits"

// posSet is a set of positions: a purpose's or a data category's in the
// catalog, a service's in Facts.Services. The facts keep one beside each
// list of ids they build (a category's purposes and recipients, a
// purpose's categories), so that asking whether a list holds an id is a
// bit test rather than a scan of strings; the lists keep their order and
// remain what the documents are written from.
//
// Positions below 64 are one word; a larger one (a request built in code
// with more services than ParseRequest allows) goes to more.
type posSet struct {
	w    uint64
	more []uint64 // positions 64 and up, 64 to a word
}

// add puts i in the set and reports whether it was not there before.
func (s *posSet) add(i int) bool {
	if i < 64 {
		bit := uint64(1) << uint(i)
		if s.w&bit != 0 {
			return false
		}
		s.w |= bit
		return true
	}
	k, bit := (i-64)>>6, uint64(1)<<uint((i-64)&63)
	for len(s.more) <= k {
		s.more = append(s.more, 0)
	}
	if s.more[k]&bit != 0 {
		return false
	}
	s.more[k] |= bit
	return true
}

// has reports whether i is in the set.
func (s *posSet) has(i int) bool {
	if i < 64 {
		return s.w&(uint64(1)<<uint(i)) != 0
	}
	k := (i - 64) >> 6
	return k < len(s.more) && s.more[k]&(uint64(1)<<uint((i-64)&63)) != 0
}

// union adds every position of o.
func (s *posSet) union(o *posSet) {
	s.w |= o.w
	for len(s.more) < len(o.more) {
		s.more = append(s.more, 0)
	}
	for k, w := range o.more {
		s.more[k] |= w
	}
}

// hasAll reports whether every position of o is in s.
func (s *posSet) hasAll(o *posSet) bool {
	if o.w&^s.w != 0 {
		return false
	}
	for k, w := range o.more {
		if k >= len(s.more) {
			if w != 0 {
				return false
			}
		} else if w&^s.more[k] != 0 {
			return false
		}
	}
	return true
}

// hasAny reports whether some position of o is in s.
func (s *posSet) hasAny(o *posSet) bool {
	if o.w&s.w != 0 {
		return true
	}
	for k, w := range o.more {
		if k < len(s.more) && w&s.more[k] != 0 {
			return true
		}
	}
	return false
}

// remove takes every position of o out of s.
func (s *posSet) remove(o *posSet) {
	s.w &^= o.w
	for k, w := range o.more {
		if k < len(s.more) {
			s.more[k] &^= w
		}
	}
}

// reset empties the set, keeping its storage.
func (s *posSet) reset() {
	s.w = 0
	clear(s.more)
}

// next is the smallest position in the set from i on, or -1: the
// positions in ascending order are
//
//	for i := s.next(0); i >= 0; i = s.next(i + 1)
func (s *posSet) next(i int) int {
	if i < 64 {
		if w := s.w >> uint(i); w != 0 {
			return i + bits.TrailingZeros64(w)
		}
		i = 64
	}
	for k := (i - 64) >> 6; k < len(s.more); k++ {
		w := s.more[k]
		if k == (i-64)>>6 {
			w &^= uint64(1)<<uint((i-64)&63) - 1
		}
		if w != 0 {
			return 64 + k<<6 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// nextMissing is the smallest position from i on that is not in the set.
// With next it walks the set's runs of consecutive positions,
//
//	for i := s.next(0); i >= 0; {
//		j := s.nextMissing(i) // i..j-1 are in the set
//		...
//		i = s.next(j)
//	}
//
// which build copies from a list in one piece each rather than one
// element at a time.
func (s *posSet) nextMissing(i int) int {
	if i < 64 {
		if w := ^s.w >> uint(i); w != 0 {
			return i + bits.TrailingZeros64(w)
		}
		i = 64
	}
	for k := (i - 64) >> 6; k < len(s.more); k++ {
		w := ^s.more[k]
		if k == (i-64)>>6 {
			w &^= uint64(1)<<uint((i-64)&63) - 1
		}
		if w != 0 {
			return 64 + k<<6 + bits.TrailingZeros64(w)
		}
	}
	return max(i, 64+len(s.more)<<6)
}
