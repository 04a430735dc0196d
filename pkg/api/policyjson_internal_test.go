package api

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
)

// TestEncodePolicy: encodePolicy writes the bytes encodeJSON writes, for
// the policy of every golden request, with and without evidence, and for
// content that needs every kind of escape.
func TestEncodePolicy(t *testing.T) {
	files, err := filepath.Glob("../policy/testdata/*.request.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden requests: %v", err)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	var objects []policyObject
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		req, err := policy.ParseRequest(body)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		res, err := policy.Generate(req)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pol := store.NewPolicy("acc_1", res, now)
		o := policyObject{policySummary: summaryJSON(pol.Summary), Content: pol.Content}
		objects = append(objects, o)
		if o.Evidence, err = evidence(pol.Summary); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		objects = append(objects, o)
	}
	o := objects[0]
	o.Content = "<b>&</b> \"q\" \\ \x00\x01\b\f\n\r\t\x1f\x7f é 🍪 \u2028\u2029 \xff\xc3( end"
	objects = append(objects, o, policyObject{})
	for i, o := range objects {
		if got, want := encodePolicy(o), wire.EncodeJSON(o); !bytes.Equal(got, want) {
			t.Errorf("object %d (%d bytes of content, %d evidence): encodePolicy differs from encodeJSON\n got: %.300s\nwant: %.300s", i, len(o.Content), len(o.Evidence), got, want)
		}
	}
}

// TestAppendJSONStringEveryByte: each byte value at each place of a
// two-word run, among bytes just above and below what needs escaping, is
// written as encoding/json writes it (the eight-byte test must not miss
// one, nor skip past one).
func TestAppendJSONStringEveryByte(t *testing.T) {
	for _, fill := range []byte{' ', 'a', '~', '!', ']'} {
		for b := range 256 {
			for at := range 16 {
				s := bytes.Repeat([]byte{fill}, 16)
				s[at] = byte(b)
				want, _ := json.Marshal(string(s)) // HTML escaping aside, the same
				want = bytes.ReplaceAll(bytes.ReplaceAll(bytes.ReplaceAll(want, []byte(`\u003c`), []byte("<")), []byte(`\u003e`), []byte(">")), []byte(`\u0026`), []byte("&"))
				if got := appendJSONString(nil, string(s)); !bytes.Equal(got, want) {
					t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
}

// FuzzAppendJSONString: appendJSONString writes what encoding/json writes
// (HTML escaping off) for any string, which decodes back to the string
// (invalid UTF-8 aside).
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "# Privacy Policy\n\nWe \"process\" data.\\", "\x00\x1f\x7f\u2028\u2029\xff\xed\xa0\x80", "12345678\n12345678é12345678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		got := appendJSONString([]byte("x"), s)
		if !bytes.Equal(got[1:], bytes.TrimSuffix(want.Bytes(), []byte("\n"))) || got[0] != 'x' {
			t.Fatalf("appendJSONString(%q) = %s, encoding/json writes %s", s, got[1:], want.Bytes())
		}
		var back string
		if err := json.Unmarshal(got[1:], &back); err != nil {
			t.Fatalf("appendJSONString(%q) = %s does not decode: %v", s, got[1:], err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("appendJSONString(%q) decodes to %q", s, back)
		}
		if !utf8.ValidString(back) {
			t.Fatalf("appendJSONString(%q) decodes to invalid UTF-8 %q", s, back)
		}
	})
}

func BenchmarkEncodePolicy(b *testing.B) {
	body, err := os.ReadFile("../policy/testdata/eu-ecommerce.request.json")
	if err != nil {
		b.Fatal(err)
	}
	req, err := policy.ParseRequest(body)
	if err != nil {
		b.Fatal(err)
	}
	res, err := policy.Generate(req)
	if err != nil {
		b.Fatal(err)
	}
	o := policyObject{policySummary: summaryJSON(store.NewPolicy("acc_1", res, time.Now()).Summary), Content: res.Content}
	for name, encode := range map[string]func(policyObject) []byte{
		"encodePolicy": encodePolicy,
		"encodeJSON":   func(o policyObject) []byte { return wire.EncodeJSONSized(o, len(o.Content)*9/8+8<<10) },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				encode(o)
			}
		})
	}
}
