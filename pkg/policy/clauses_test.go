package policy

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLibraryMergesFragments(t *testing.T) {
	fsys := fstest.MapFS{
		"c/doc.json": {Data: []byte(`{"type":"doc","sections":[
			{"id":"a","clauses":[{"id":"a.one"}]},
			{"id":"z","clauses":[{"id":"z.one"}]}]}`)},
		"c/doc.xx.json": {Data: []byte(`{"type":"doc","part":"xx","sections":[
			{"id":"a","clauses":[{"id":"a.xx","when":["law:xx"]}]},
			{"id":"m","after":"a","when":["law:xx"],"clauses":[{"id":"m.xx"}]}]}`)},
		"c/en.json":    {Data: []byte(`{"language":"en","dateFormat":"January 2, 2006","titles":{"doc":"Doc"},"sections":{"a":"A","z":"Z"},"clauses":{"a.one":["one"],"z.one":["z"]}}`)},
		"c/en.xx.json": {Data: []byte(`{"language":"en","sections":{"m":"M"},"clauses":{"a.xx":["xx"],"m.xx":["m"]}}`)},
	}
	l, err := LoadLibrary(fsys, "c")
	if err != nil {
		t.Fatal(err)
	}
	s := l.Structures["doc"]
	var got []string
	for _, sec := range s.Sections {
		for _, c := range sec.Clauses {
			got = append(got, sec.ID+":"+c.ID)
		}
	}
	want := []string{"a:a.one", "a:a.xx", "m:m.xx", "z:z.one"}
	if !slices.Equal(got, want) {
		t.Errorf("merged structure = %v, want %v", got, want)
	}
	if s.Sections[1].When[0] != "law:xx" || s.Sections[1].After != "" {
		t.Errorf("inserted section = %+v", s.Sections[1])
	}
	w := l.Texts["en"]
	if w.DateFormat != "January 2, 2006" || w.Sections["m"] != "M" || w.Clauses["a.xx"][0] != "xx" || w.Titles["doc"] != "Doc" {
		t.Errorf("merged wording = %+v", w)
	}
}

func TestLibraryRefusesBadFragments(t *testing.T) {
	base := `{"type":"doc","sections":[{"id":"a","clauses":[{"id":"a.one"}]}]}`
	words := `{"language":"en","titles":{"doc":"Doc"},"sections":{"a":"A"},"clauses":{"a.one":["one"]}}`
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"worded twice":     {map[string]string{"en.x.json": `{"language":"en","clauses":{"a.one":["again"]}}`}, `clause "a.one" worded twice`},
		"no after":         {map[string]string{"doc.x.json": `{"type":"doc","part":"x","sections":[{"id":"b","clauses":[]}]}`}, `new section b needs "after"`},
		"after unknown":    {map[string]string{"doc.x.json": `{"type":"doc","part":"x","sections":[{"id":"b","after":"q","clauses":[]}]}`}, `(got "q")`},
		"no base":          {map[string]string{"other.x.json": `{"type":"other","part":"x","sections":[]}`}, `no base structure for type "other"`},
		"second base":      {map[string]string{"doc2.json": base}, `a second base structure`},
		"when on existing": {map[string]string{"doc.x.json": `{"type":"doc","part":"x","sections":[{"id":"a","when":["law:x"],"clauses":[]}]}`}, `section a exists`},
		"neither":          {map[string]string{"x.json": `{"titles":{}}`}, `begins with "type" (a structure or a fragment of one) or "language"`},
		"kind not first":   {map[string]string{"en.x.json": `{"titles":{},"language":"en"}`}, `begins with "type"`},
		"empty language":   {map[string]string{"en.x.json": `{"language":""}`}, `"language" is empty`},
		"not an object":    {map[string]string{"x.json": `["type"]`}, `not a JSON object`},
		"trailing data":    {map[string]string{"en.x.json": `{"language":"en"} junk`}, `trailing data after the JSON value`},
		"second object":    {map[string]string{"en.x.json": `{"language":"en"}{"language":"de"}`}, `trailing data after the JSON value`},
		"empty type":       {map[string]string{"doc.x.json": `{"type":"","sections":[]}`}, `"type" is empty`},
		"null type":        {map[string]string{"doc.x.json": `{"type":null,"part":"x","sections":[]}`}, `"type" is empty`},
		"type and wording": {map[string]string{"doc.x.json": `{"type":"doc","part":"x","language":"en"}`}, `unknown field "language"`},
	} {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{"c/doc.json": {Data: []byte(base)}, "c/en.json": {Data: []byte(words)}}
			for f, body := range tc.files {
				fsys["c/"+f] = &fstest.MapFile{Data: []byte(body)}
			}
			_, err := LoadLibrary(fsys, "c")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadLibrary error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
