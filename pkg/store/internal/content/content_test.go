package content

import (
	"strings"
	"sync"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	tests := map[string]string{
		"empty":     "",
		"text":      "# Privacy Policy\n",
		"non-ASCII": "Datenschutzerklärung 個人情報 🍪",
		"binary":    "\x00\xff\xfe",
		"large":     strings.Repeat("personal data is processed lawfully. ", 10000),
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := Compress(s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decompress(b)
			if err != nil {
				t.Fatal(err)
			}
			if got != s {
				t.Errorf("round trip changed %d bytes into %d", len(s), len(got))
			}
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			s := strings.Repeat(string(rune('a'+i)), 1000+i)
			for range 50 {
				b, err := Compress(s)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := Decompress(b); err != nil || got != s {
					t.Errorf("round trip: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestDecompressRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("not gzip"), {0x1f, 0x8b, 8, 0, 0}} {
		if _, err := Decompress(b); err == nil {
			t.Errorf("Decompress(%q) succeeded", b)
		}
	}
}
