package ids

import (
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNewFormat(t *testing.T) {
	for _, prefix := range []string{Policy, Account, Key, ""} {
		id := New(prefix)
		if !Valid(prefix, id) {
			t.Errorf("New(%q) = %q, not Valid", prefix, id)
		}
		if len(id) != len(prefix)+Len {
			t.Errorf("New(%q) = %q: length %d", prefix, id, len(id))
		}
	}
}

func TestNewIncreases(t *testing.T) {
	// Many ids in a row share a millisecond: they must still increase.
	prev := New(Policy)
	for i := 0; i < 10000; i++ {
		id := New(Policy)
		if id <= prev {
			t.Fatalf("id %d: %q <= previous %q", i, id, prev)
		}
		prev = id
	}
}

func TestNewAtSortsByTime(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var got []string
	for i := 10; i >= 0; i-- {
		got = append(got, NewAt(Policy, base.Add(time.Duration(i)*time.Hour)))
	}
	if sort.StringsAreSorted(got) {
		t.Fatal("ids made for decreasing times sort increasing")
	}
	for i := 1; i < len(got); i++ {
		if got[i] >= got[i-1] {
			t.Errorf("id for an earlier time %q >= %q", got[i], got[i-1])
		}
	}
	// Same millisecond in a row: increasing.
	a, b := NewAt(Key, base), NewAt(Key, base)
	if b <= a {
		t.Errorf("same-time ids not increasing: %q then %q", a, b)
	}
}

func TestNewAtLeavesNewAlone(t *testing.T) {
	future := time.Now().Add(24 * time.Hour)
	NewAt(Policy, future)
	got, ok := Time(Policy, New(Policy))
	if !ok || !got.Before(future.Add(-time.Hour)) {
		t.Errorf("after NewAt(+24h), New made an id for %v", got)
	}
}

func TestTimeRoundTrip(t *testing.T) {
	for _, want := range []time.Time{
		time.UnixMilli(0).UTC(),
		time.Date(2026, 11, 22, 1, 2, 3, 4e6, time.UTC),
		time.UnixMilli(maxTime).UTC(),
	} {
		id := NewAt(Account, want)
		got, ok := Time(Account, id)
		if !ok || !got.Equal(want) {
			t.Errorf("Time(NewAt(%v)) = %v, %v", want, got, ok)
		}
	}
	if _, ok := Time(Account, "acct_bad"); ok {
		t.Error("Time accepted a malformed id")
	}
}

func TestEncodeKnownValue(t *testing.T) {
	// All ones in 128 bits is the largest ULID.
	var r [10]byte
	for i := range r {
		r[i] = 0xff
	}
	if got, want := encode(maxTime, r), "7zzzzzzzzzzzzzzzzzzzzzzzzz"; got != want {
		t.Errorf("encode(max) = %q, want %q", got, want)
	}
	if got, want := encode(0, [10]byte{}), strings.Repeat("0", Len); got != want {
		t.Errorf("encode(0) = %q, want %q", got, want)
	}
	// 1 ms, random 1: the time's lowest bit is digit 9, the random's lowest digit 25.
	if got, want := encode(1, [10]byte{9: 1}), "0000000001"+"0000000000000001"; got != want {
		t.Errorf("encode(1, 1) = %q, want %q", got, want)
	}
}

func TestValid(t *testing.T) {
	good := "plc_01hzzzzzzzzzzzzzzzzzzzzzzz"
	tests := []struct {
		name   string
		prefix string
		s      string
		want   bool
	}{
		{"good", Policy, good, true},
		{"new", Policy, New(Policy), true},
		{"wrong prefix", Account, good, false},
		{"no prefix", Policy, good[4:], false},
		{"too short", Policy, good[:len(good)-1], false},
		{"too long", Policy, good + "0", false},
		{"uppercase", Policy, strings.ToUpper(good[:4]) + good[4:], false},
		{"uppercase body", Policy, "plc_01HZZZZZZZZZZZZZZZZZZZZZZZ", false},
		{"letter i", Policy, "plc_01hzzzzzzzzzzzzzzzzzzzzi", false},
		{"letter l", Policy, "plc_01hzzzzzzzzzzzzzzzzzzzzl", false},
		{"letter o", Policy, "plc_01hzzzzzzzzzzzzzzzzzzzzo", false},
		{"letter u", Policy, "plc_01hzzzzzzzzzzzzzzzzzzzzu", false},
		{"overflowing first digit", Policy, "plc_81hzzzzzzzzzzzzzzzzzzzzz", false},
		{"punctuation", Policy, "plc_01hzzzzzzzzzzzzzzzzzzzz-", false},
		{"path", Policy, "plc_../../zzzzzzzzzzzzzzzzzzzz", false},
		{"non-ASCII", Policy, "plc_01hzzzzzzzzzzzzzzzzzzzzé", false},
		{"empty", Policy, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Valid(tt.prefix, tt.s); got != tt.want {
				t.Errorf("Valid(%q, %q) = %v, want %v", tt.prefix, tt.s, got, tt.want)
			}
		})
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New(Policy)
	}
}

// TestNewConcurrent: ids made at once from many goroutines (one Lambda
// environment serves one request at a time, but policyd serves many) are all
// distinct, and each goroutine's own ids still increase.
func TestNewConcurrent(t *testing.T) {
	const workers, each = 8, 2000
	var wg sync.WaitGroup
	out := make([][]string, workers)
	for w := range workers {
		wg.Go(func() {
			for range each {
				out[w] = append(out[w], New(Policy))
			}
		})
	}
	wg.Wait()
	seen := make(map[string]bool, workers*each)
	for w, ids := range out {
		for i, id := range ids {
			if seen[id] {
				t.Fatalf("id %q made twice", id)
			}
			seen[id] = true
			if i > 0 && id <= ids[i-1] {
				t.Fatalf("worker %d: %q <= its previous id %q", w, id, ids[i-1])
			}
		}
	}
}
