package content

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
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

// TestDictionariesAreFrozen: items are stored with the dictionaries, and
// a changed byte would make them unreadable. A new dictionary is a new
// file and encoding byte.
func TestDictionariesAreFrozen(t *testing.T) {
	for name, tt := range map[string]struct {
		data []byte
		want string
	}{
		"dict1.txt": {dict1, "b9b1cbc05629a9af98a37084081a590114534e9c7cb661288bc7ea56946ede3e"},
		"dict2.txt": {dict2, "741d1d656de3189025a135fc6a06f92c1d45687d6dee1c00406f20024a9395ac"},
	} {
		if got := fmt.Sprintf("%x", sha256.Sum256(tt.data)); got != tt.want {
			t.Errorf("%s has changed (sha256 %s): add a new dictionary instead", name, got)
		}
	}
}

// TestReadsGzip: content written before the dictionary (plain gzip) still
// reads.
func TestReadsGzip(t *testing.T) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	io.WriteString(zw, "# Privacy Policy\nold text\n")
	zw.Close()
	for _, dec := range []func([]byte) (string, error){
		Decompress,
		func(b []byte) (string, error) { return DecompressDelta(b, "base") },
	} {
		if got, err := dec(buf.Bytes()); err != nil || got != "# Privacy Policy\nold text\n" {
			t.Errorf("old gzip content: %q, %v", got, err)
		}
	}
}

func TestDelta(t *testing.T) {
	base := strings.Repeat("We process personal data only as this policy says. ", 400) // beyond the 32 KB window
	s := `{"id":"plc_1","content":` + strconv.Quote(base) + `}`
	b, err := CompressDelta(s, base)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DecompressDelta(b, base); err != nil || got != s {
		t.Fatalf("delta round trip: %v", err)
	}
	if _, err := Decompress(b); !errors.Is(err, ErrNeedsBase) {
		t.Errorf("Decompress of a delta: %v, want ErrNeedsBase", err)
	}
	if got, err := DecompressDelta(b, base+"x"); err == nil && got == s {
		t.Error("a delta decoded against another base gave the original")
	}
}

// TestDictionaryCompresses: the point of dict1 is a policy in a KB or two.
func TestDictionaryCompresses(t *testing.T) {
	for _, name := range []string{"eu-ecommerce", "uk-shop", "us-ca-marketplace"} {
		doc, err := os.ReadFile("../../../policy/testdata/" + name + ".md.golden")
		if err != nil {
			t.Fatal(err)
		}
		b, err := Compress(string(doc))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes -> %d (encoding 0x%02x)", name, len(doc), len(b), b[0])
		if len(b) > 2560 {
			t.Errorf("%s: %d bytes of Markdown compressed to %d, want at most 2.5 KB", name, len(doc), len(b))
		}
	}
}

func BenchmarkCompress(b *testing.B) {
	doc, err := os.ReadFile("../../../policy/testdata/eu-ecommerce.md.golden")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compress(string(doc)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecompress(b *testing.B) {
	doc, err := os.ReadFile("../../../policy/testdata/eu-ecommerce.md.golden")
	if err != nil {
		b.Fatal(err)
	}
	c, err := Compress(string(doc))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decompress(c); err != nil {
			b.Fatal(err)
		}
	}
}
