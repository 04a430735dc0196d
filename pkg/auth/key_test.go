package auth

import (
	"hash/crc32"
	"strings"
	"testing"

	"github.com/policygen/policygen/pkg/errs"
)

func mustKey(t testing.TB) string {
	t.Helper()
	k, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestNewKeyFormat(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		k := mustKey(t)
		if err := CheckFormat(k); err != nil {
			t.Fatalf("CheckFormat(%q) = %v", k, err)
		}
		if len(k) != 47 || !strings.HasPrefix(k, "pol_live_") {
			t.Fatalf("key %q: want pol_live_ + 38 characters", k)
		}
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
	}
}

// The checksum is the CRC32 (IEEE) of the random part in base62, fixed width.
func TestChecksumKnownValues(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", "000000"}, // CRC32("") = 0
		{strings.Repeat("0", 32), base62Of(crc32.ChecksumIEEE([]byte(strings.Repeat("0", 32))))},
		{"abc", base62Of(0x352441C2)}, // CRC32("abc"), a published test vector
	}
	for _, tt := range tests {
		if got := checksum(tt.in); got != tt.want {
			t.Errorf("checksum(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// 0xFFFFFFFF = 4294967295 = 4*62^5 + 42*62^4 + 41*62^3 + 15*62^2 + 12*62 + 3.
	if got := base62Of(0xFFFFFFFF); got != "4gfFC3" {
		t.Errorf("max CRC32 encodes as %q, want 4gfFC3", got)
	}
}

// base62Of is an independent encoder for the test: repeated division,
// built back to front.
func base62Of(v uint32) string {
	s := ""
	n := uint64(v)
	for range 6 {
		s = string(base62[n%62]) + s
		n /= 62
	}
	return s
}

func TestCheckFormat(t *testing.T) {
	valid := mustKey(t)
	body := valid[len(Prefix):]
	tests := []struct {
		name string
		key  string
		ok   bool
	}{
		{"valid", valid, true},
		{"empty", "", false},
		{"prefix only", Prefix, false},
		{"test prefix", "pol_test_" + body, false},
		{"upper-case prefix", "POL_LIVE_" + body, false},
		{"no prefix", body, false},
		{"one short", valid[:len(valid)-1], false},
		{"one long", valid + "0", false},
		{"space inside", valid[:20] + " " + valid[21:], false},
		{"underscore in body", valid[:20] + "_" + valid[21:], false},
		{"non-ASCII", valid[:20] + "é" + valid[22:], false},
		{"trailing newline", valid[:len(valid)-1] + "\n", false},
		{"checksum of other body", Prefix + strings.Repeat("a", 32) + checksum(strings.Repeat("b", 32)), false},
		{"example in docs/AUTH.md", "pol_live_7Hq2V0aZ9kLm3XcB8dTn1RyE4uWs6PfG3T3oIR", true},
		{"all zero with right checksum", Prefix + strings.Repeat("0", 32) + checksum(strings.Repeat("0", 32)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckFormat(tt.key)
			if tt.ok {
				if err != nil {
					t.Fatalf("CheckFormat(%q) = %v, want nil", tt.key, err)
				}
				return
			}
			e := errs.As(err)
			if e == nil || e.Kind != errs.Unauthenticated || e.Code != "invalid_api_key" {
				t.Fatalf("CheckFormat(%q) = %v, want invalid_api_key", tt.key, err)
			}
		})
	}
}

// Every single-character substitution after the prefix is caught: CRC32
// detects every error burst of up to 32 bits, and a changed checksum digit
// no longer matches.
func TestCheckFormatCatchesEverySingleChange(t *testing.T) {
	for range 5 {
		k := mustKey(t)
		for i := len(Prefix); i < len(k); i++ {
			for j := 0; j < len(base62); j++ {
				c := base62[j]
				if c == k[i] {
					continue
				}
				mutated := k[:i] + string(c) + k[i+1:]
				if CheckFormat(mutated) == nil {
					t.Fatalf("changing position %d of %q to %q is not detected", i, k, c)
				}
			}
		}
		// Swapping two adjacent different characters is caught too.
		for i := len(Prefix); i+1 < len(Prefix)+RandomLen; i++ {
			if k[i] == k[i+1] {
				continue
			}
			swapped := k[:i] + string(k[i+1]) + string(k[i]) + k[i+2:]
			if CheckFormat(swapped) == nil {
				t.Fatalf("swapping positions %d,%d of %q is not detected", i, i+1, k)
			}
		}
	}
}

// randomBase62 uses every character with equal probability. A modulo
// without rejection would give the first 8 characters 5/256 instead of
// 4/256 (25% more). The chi-square bound below is far in the tail (the
// statistic has mean 61 and standard deviation ~11), so the test does not
// flake, while the modulo bias gives a statistic in the thousands.
func TestRandomBase62Uniform(t *testing.T) {
	const n = 620_000
	s, err := randomBase62(n)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != n {
		t.Fatalf("len = %d", len(s))
	}
	counts := map[byte]int{}
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	if len(counts) != 62 {
		t.Fatalf("%d distinct characters, want 62", len(counts))
	}
	expected := float64(n) / 62
	chi2 := 0.0
	for i := 0; i < len(base62); i++ {
		d := float64(counts[base62[i]]) - expected
		chi2 += d * d / expected
	}
	if chi2 > 160 {
		t.Fatalf("chi-square %.1f over 61 degrees of freedom: characters are not uniform", chi2)
	}
	// The biased characters would be base62[:8].
	first, rest := 0, 0
	for i := 0; i < len(base62); i++ {
		if i < 8 {
			first += counts[base62[i]]
		} else {
			rest += counts[base62[i]]
		}
	}
	ratio := (float64(first) / 8) / (float64(rest) / 54)
	if ratio > 1.05 || ratio < 0.95 {
		t.Fatalf("first 8 characters appear %.3f times as often as the rest", ratio)
	}
}

func TestLast4(t *testing.T) {
	k := mustKey(t)
	if got := Last4(k); got != k[len(k)-4:] {
		t.Fatalf("Last4 = %q", got)
	}
}

func FuzzCheckFormat(f *testing.F) {
	valid, err := NewKey()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)-1] + "0")
	f.Add("")
	f.Add(Prefix)
	f.Add("pol_live_" + strings.Repeat("\x00", 38))
	f.Add("Bearer " + valid)
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckFormat(s)
		if err == nil {
			// Whatever passes is exactly a key this package could have made.
			if len(s) != KeyLen || !strings.HasPrefix(s, Prefix) {
				t.Fatalf("accepted %q of wrong shape", s)
			}
			body := s[len(Prefix):]
			for i := 0; i < len(body); i++ {
				if !strings.ContainsRune(base62, rune(body[i])) {
					t.Fatalf("accepted %q with non-base62 %q", s, body[i])
				}
			}
			if base62Of(crc32.ChecksumIEEE([]byte(body[:RandomLen]))) != body[RandomLen:] {
				t.Fatalf("accepted %q with a wrong checksum", s)
			}
			return
		}
		if e := errs.As(err); e == nil || e.Code != "invalid_api_key" || e.Kind != errs.Unauthenticated {
			t.Fatalf("CheckFormat(%q) = %v, want invalid_api_key", s, err)
		}
	})
}

// FuzzParseAuthorization: any Authorization value either yields a token
// (non-empty, no surrounding blanks) or missing_api_key; a Bearer header
// around a key this package made always yields that key. Seeds:
// testdata/fuzz/FuzzParseAuthorization.
func FuzzParseAuthorization(f *testing.F) {
	valid, err := NewKey()
	if err != nil {
		f.Fatal(err)
	}
	f.Add("Bearer " + valid)
	f.Fuzz(func(t *testing.T, header string) {
		tok, err := ParseAuthorization(header)
		if err != nil {
			if e := errs.As(err); e == nil || e.Code != "missing_api_key" {
				t.Fatalf("ParseAuthorization(%q) = %v", header, err)
			}
		} else if tok == "" || tok[0] == ' ' || strings.HasSuffix(tok, " ") || strings.HasSuffix(tok, "\t") {
			t.Fatalf("ParseAuthorization(%q) = %q", header, tok)
		}
		for _, h := range []string{"Bearer " + valid, "bearer  " + valid, " Bearer " + valid + " "} {
			if got, err := ParseAuthorization(h); err != nil || got != valid {
				t.Fatalf("ParseAuthorization(%q) = %q, %v", h, got, err)
			}
		}
	})
}
