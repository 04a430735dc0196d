package policy

import (
	"strings"
	"unicode"
)

// Readability is the Flesch Reading Ease of a plain-text document:
// 206.835 - 1.015 (words/sentences) - 84.6 (syllables/words). Sentences end
// at ".", "!" or "?" and at the end of a line (a heading, list item
// or table cell); syllables are counted with the usual English vowel-group
// rule. Higher is easier; 50-60 is "fairly difficult", 60-70 "plain
// English".
type Readability struct {
	Words, Sentences, Syllables int
	Score                       float64
}

// MeasureReadability measures text (the "text" rendering of a document).
func MeasureReadability(text string) Readability {
	var r Readability
	for _, line := range strings.Split(text, "\n") {
		// Table cells are separated by " | " in the text rendering.
		for _, cell := range strings.Split(line, " | ") {
			inSentence := false
			for _, tok := range strings.Fields(cell) {
				w := strings.TrimFunc(tok, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
				if w == "" || strings.Contains(tok, "://") || strings.Contains(tok, "@") {
					continue
				}
				r.Words++
				r.Syllables += syllables(w)
				inSentence = true
				if strings.ContainsAny(tok[len(tok)-1:], ".!?") {
					r.Sentences++
					inSentence = false
				}
			}
			if inSentence {
				r.Sentences++
			}
		}
	}
	if r.Words > 0 && r.Sentences > 0 {
		r.Score = 206.835 - 1.015*float64(r.Words)/float64(r.Sentences) - 84.6*float64(r.Syllables)/float64(r.Words)
	}
	return r
}

// syllables estimates the syllables of an English word: groups of vowels,
// less a silent final "e", at least one.
func syllables(w string) int {
	w = strings.ToLower(w)
	if strings.IndexFunc(w, unicode.IsLetter) < 0 {
		return 1 // a number
	}
	n, prev := 0, false
	for _, c := range w {
		v := strings.ContainsRune("aeiouy", c)
		if v && !prev {
			n++
		}
		prev = v
	}
	if strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "le") && n > 1 {
		n--
	}
	return max(n, 1)
}
