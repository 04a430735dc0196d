package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MinReadingEase is the plain-language target for English documents: the
// Flesch Reading Ease of every golden text rendering is at least this.
const MinReadingEase = 50

// TestReadability prints the length and Flesch Reading Ease of every golden
// document (text rendering) and holds the English ones to MinReadingEase.
func TestReadability(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt.golden")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden text files: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := MeasureReadability(string(b))
		name := strings.TrimSuffix(filepath.Base(f), ".txt.golden")
		t.Logf("%-20s %5d words %4d sentences  Flesch Reading Ease %.1f", name, r.Words, r.Sentences, r.Score)
		if r.Score < MinReadingEase {
			t.Errorf("%s: Flesch Reading Ease %.1f, below %d", name, r.Score, MinReadingEase)
		}
	}
}

func TestMeasureReadability(t *testing.T) {
	// "The cat sat on the mat." 6 words, 1 sentence, 6 syllables:
	// 206.835 - 1.015*6 - 84.6*1 = 116.145.
	if r := MeasureReadability("The cat sat on the mat."); r.Words != 6 || r.Sentences != 1 || r.Syllables != 6 {
		t.Errorf("got %+v", r)
	}
	for w, n := range map[string]int{"information": 4, "personal": 3, "data": 2, "the": 1, "cookies": 2, "table": 2, "2026": 1} {
		if got := syllables(w); got != n {
			t.Errorf("syllables(%q) = %d, want %d", w, got, n)
		}
	}
	// A table cell and a list item end a sentence; URLs and email addresses are not words.
	if r := MeasureReadability("Name | Value\n  * see https://example.com/x or a@b.example"); r.Sentences != 3 || r.Words != 4 {
		t.Errorf("got %+v", r)
	}
}
