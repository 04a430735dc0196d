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

// posSetOf is the set of positions ps.
func posSetOf(ps ...int) *posSet {
	var s posSet
	for _, p := range ps {
		s.add(p)
	}
	return &s
}

func TestPosSetHasAll(t *testing.T) {
	set := posSetOf
	for _, tc := range []struct {
		s, o *posSet
		want bool
	}{
		{set(), set(), true},
		{set(1, 2), set(), true},
		{set(1, 2), set(2), true},
		{set(1, 2), set(3), false},
		{set(1, 70), set(70), true},
		{set(1), set(70), false},
		{set(1, 70), set(1, 200), false},
		{set(1, 200), set(1, 200), true},
		{set(200), set(1), false},
	} {
		if got := tc.s.hasAll(tc.o); got != tc.want {
			t.Errorf("%v.hasAll(%v) = %v, want %v", tc.s, tc.o, got, tc.want)
		}
	}
	// A set whose words past the first were emptied holds no more than one
	// that never had them.
	s := set(1, 200)
	s.reset()
	s.add(1)
	if !set(1).hasAll(s) || !s.hasAll(set(1)) {
		t.Errorf("an emptied word counts as a position")
	}
}

func TestPosSetHasAnyRemove(t *testing.T) {
	set := posSetOf
	for _, tc := range []struct {
		s, o *posSet
		any  bool
		left []int // s without o
	}{
		{set(), set(), false, nil},
		{set(1, 2), set(), false, []int{1, 2}},
		{set(1, 2), set(2, 3), true, []int{1}},
		{set(1, 70), set(70), true, []int{1}},
		{set(1), set(70), false, []int{1}},
		{set(1, 200), set(3, 200), true, []int{1}},
		{set(200), set(1, 201), false, []int{200}},
	} {
		if got := tc.s.hasAny(tc.o); got != tc.any {
			t.Errorf("%v.hasAny(%v) = %v, want %v", tc.s, tc.o, got, tc.any)
		}
		tc.s.remove(tc.o)
		var left []int
		for i := tc.s.next(0); i >= 0; i = tc.s.next(i + 1) {
			left = append(left, i)
		}
		if !slices.Equal(left, tc.left) {
			t.Errorf("after remove: %v, want %v", left, tc.left)
		}
	}
}

// TestPosSetRuns checks nextMissing, with next, against the runs of
// consecutive positions worked out one position at a time.
func TestPosSetRuns(t *testing.T) {
	full := make([]int, 128)
	for i := range full {
		full[i] = i
	}
	for _, ps := range [][]int{
		{}, {0}, {0, 1, 2, 5, 63, 64, 65, 200}, {62, 63}, {63, 64}, full[:64], full, append(full[:64:64], 130, 131),
	} {
		s := posSetOf(ps...)
		var got, want [][2]int
		for i := s.next(0); i >= 0; {
			j := s.nextMissing(i)
			got = append(got, [2]int{i, j})
			i = s.next(j)
		}
		for k := 0; k < len(ps); {
			j := k + 1
			for j < len(ps) && ps[j] == ps[j-1]+1 {
				j++
			}
			want = append(want, [2]int{ps[k], ps[j-1] + 1})
			k = j
		}
		if !slices.Equal(got, want) {
			t.Errorf("runs of %v = %v, want %v", ps, got, want)
		}
		for _, i := range []int{0, 3, 64, 300} {
			if m := s.nextMissing(i); m < i || s.has(m) {
				t.Errorf("nextMissing(%d) of %v = %d, in the set or before %d", i, ps, m, i)
			}
		}
	}
}
