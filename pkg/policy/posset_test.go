package policy

import (
	"slices"
	"testing"
)

func TestPosSet(t *testing.T) {
	var s posSet
	for _, i := range []int{3, 0, 63, 64, 200, 3, 127, 64} {
		first := !s.has(i)
		if got := s.add(i); got != first {
			t.Errorf("add(%d) = %v, want %v", i, got, first)
		}
		if !s.has(i) {
			t.Errorf("has(%d) after add = false", i)
		}
	}
	var got []int
	for i := s.next(0); i >= 0; i = s.next(i + 1) {
		got = append(got, i)
	}
	if want := []int{0, 3, 63, 64, 127, 200}; !slices.Equal(got, want) {
		t.Errorf("each = %v, want %v", got, want)
	}
	for _, i := range []int{1, 62, 65, 128, 199, 201, 1000} {
		if s.has(i) {
			t.Errorf("has(%d) = true, never added", i)
		}
	}
	var o posSet
	o.add(5)
	o.add(300)
	s.union(&o)
	if !s.has(5) || !s.has(300) || !s.has(200) {
		t.Errorf("union lost a position")
	}
	s.reset()
	got = got[:0]
	for i := s.next(0); i >= 0; i = s.next(i + 1) {
		got = append(got, i)
	}
	if len(got) != 0 || s.has(0) || s.has(300) {
		t.Errorf("after reset the set holds %v", got)
	}
}
