package content

import (
	"bytes"
	"compress/flate"
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
		for cname, compress := range compressors {
			t.Run(name+"/"+cname, func(t *testing.T) {
				b, err := compress(s)
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
}

// compressors are the ways to write content that Decompress reads alone.
var compressors = map[string]func(string) ([]byte, error){"Compress": Compress, "CompressFast": CompressFast}

func TestConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			s := strings.Repeat(string(rune('a'+i)), 1000+i)
			compress := Compress
			if i%2 == 1 {
				compress = CompressFast
			}
			for range 50 {
				b, err := compress(s)
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
	bad := [][]byte{nil, []byte("not gzip"), {0x1f, 0x8b, 8, 0, 0}, {encZstd2, 1, 2, 3}, {encS2a, 0}, {encS2b, 0, 0, 0, 0, 0xff}, {0x08, 0}}
	for cname, compress := range compressors {
		good, err := compress("# Privacy Policy\nWe process personal data.\n")
		if err != nil {
			t.Fatal(err)
		}
		bad = append(bad, good[:len(good)-3])
		for i := 1; i < len(good); i++ {
			// Zstandard's frame header has bits a decoder ignores; S2's
			// checksum covers every byte of it.
			if cname == "CompressFast" || i == len(good)/2 {
				flipped := bytes.Clone(good)
				flipped[i] ^= 0xff
				bad = append(bad, flipped)
			}
		}
	}
	for _, b := range bad {
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

// TestEncodings: Compress writes Zstandard with dict2 for California text
// and with dict1 for the rest, and reads back what template versions up to
// 2026-11-23.1 wrote: DEFLATE level 6 with either dictionary.
func TestEncodings(t *testing.T) {
	for text, want := range map[string]byte{
		"# Privacy Policy\nWe process personal data under the GDPR.\n":             encZstd1,
		"# Privacy Policy\nYour rights under the CCPA as a California resident.\n": encZstd2,
		`{"jurisdiction":"US-CA"}`: encZstd2,
	} {
		b, err := Compress(text)
		if err != nil {
			t.Fatal(err)
		}
		if b[0] != want {
			t.Errorf("Compress(%q) wrote encoding 0x%02x, want 0x%02x", text, b[0], want)
		}
		wantFast := want - encZstd1 + encS2a
		if b, err := CompressFast(text); err != nil || b[0] != wantFast {
			t.Errorf("CompressFast(%q) wrote encoding 0x%02x (%v), want 0x%02x", text, b[0], err, wantFast)
		}
	}
	doc, err := os.ReadFile("../../../policy/testdata/eu-ecommerce.md.golden")
	if err != nil {
		t.Fatal(err)
	}
	for enc, dict := range map[byte][]byte{encDict1: dict1, encDict2: dict2} {
		var buf bytes.Buffer
		buf.WriteByte(enc)
		zw, err := flate.NewWriterDict(&buf, flate.DefaultCompression, dict)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(doc)
		zw.Close()
		if got, err := Decompress(buf.Bytes()); err != nil || got != string(doc) {
			t.Errorf("DEFLATE content with encoding 0x%02x: %v", enc, err)
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

// TestDictionaryCompresses: the point of dict1 is a policy in a KB or two
// (CompressFast: three or four).
func TestDictionaryCompresses(t *testing.T) {
	for _, name := range []string{"eu-ecommerce", "uk-shop", "us-ca-marketplace"} {
		doc, err := os.ReadFile("../../../policy/testdata/" + name + ".md.golden")
		if err != nil {
			t.Fatal(err)
		}
		for cname, limit := range map[string]int{"Compress": 2560, "CompressFast": 3584} {
			b, err := compressors[cname](string(doc))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: %d bytes -> %d (encoding 0x%02x)", cname, name, len(doc), len(b), b[0])
			if len(b) > limit {
				t.Errorf("%s %s: %d bytes of Markdown compressed to %d, want at most %d", cname, name, len(doc), len(b), limit)
			}
		}
	}
}

// benchDoc is the document the benchmarks compress: the EU shop's policy.
func benchDoc(b *testing.B) string {
	b.Helper()
	doc, err := os.ReadFile("../../../policy/testdata/eu-ecommerce.md.golden")
	if err != nil {
		b.Fatal(err)
	}
	return string(doc)
}

// BenchmarkCompress times each encoder (BenchmarkCompress/Compress is the
// former BenchmarkCompress).
func BenchmarkCompress(b *testing.B) {
	doc := benchDoc(b)
	for _, cname := range []string{"Compress", "CompressFast"} {
		b.Run(cname, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := compressors[cname](doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecompress(b *testing.B) {
	doc := benchDoc(b)
	for _, cname := range []string{"Compress", "CompressFast"} {
		c, err := compressors[cname](doc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(cname, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decompress(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
