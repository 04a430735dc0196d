package policy

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/policygen/policygen/pkg/compliance"
)

// The clause library: clauses/<type>.json holds each document type's
// language-neutral structure (sections, clause order, conditions, the
// requirement ids each clause satisfies); clauses/<language>.json holds the
// text of every section and clause of every type, keyed by id.
//
//go:embed clauses/*.json
var clauseFiles embed.FS

// Structure is a document type's ordered sections.
type Structure struct {
	Type     string    `json:"type"`
	Sections []Section `json:"sections"`
}

// Section is a headed part of a document.
type Section struct {
	ID      string   `json:"id"`
	When    []string `json:"when,omitempty"`
	Clauses []Clause `json:"clauses"`
}

// Clause is the unit of text selection.
type Clause struct {
	ID string `json:"id"`
	// When lists conditions that must all hold; "!x" negates x.
	When []string `json:"when,omitempty"`
	// Satisfies lists the checklist requirement ids the clause discloses.
	Satisfies []string `json:"satisfies,omitempty"`
}

// Wording is one language's wording of every clause.
type Wording struct {
	Language   string              `json:"language"`
	DateFormat string              `json:"dateFormat"`
	Titles     map[string]string   `json:"titles"`
	Sections   map[string]string   `json:"sections"`
	Clauses    map[string][]string `json:"clauses"`
	Labels     map[string]string   `json:"labels"`
}

// Library is the parsed clause library.
type Library struct {
	Structures map[string]*Structure // by document type
	Texts      map[string]*Wording   // by language
}

var (
	libOnce sync.Once
	lib     *Library
	libErr  error
)

// DefaultLibrary returns the embedded clause library, parsed on first use.
func DefaultLibrary() (*Library, error) {
	libOnce.Do(func() { lib, libErr = LoadLibrary(clauseFiles, "clauses") })
	return lib, libErr
}

// LoadLibrary parses the clause library in dir of fsys. Files are told
// apart by content: a structure has "sections" as a list and a "type".
func LoadLibrary(fsys fs.FS, dir string) (*Library, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	l := &Library{Structures: map[string]*Structure{}, Texts: map[string]*Wording{}}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := fs.ReadFile(fsys, dir+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		var probe struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &probe); err != nil {
			return nil, fmt.Errorf("policy: %s: %w", e.Name(), err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if probe.Type != "" {
			var s Structure
			if err := dec.Decode(&s); err != nil {
				return nil, fmt.Errorf("policy: %s: %w", e.Name(), err)
			}
			l.Structures[s.Type] = &s
		} else {
			var t Wording
			if err := dec.Decode(&t); err != nil {
				return nil, fmt.Errorf("policy: %s: %w", e.Name(), err)
			}
			l.Texts[t.Language] = &t
		}
	}
	return l, nil
}

// placeholder matches {name} in clause text and labels.
var placeholder = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// Placeholders clause text may use.
var placeholders = []string{
	"businessName", "websiteUrl", "contactEmail", "postalAddress", "effectiveDate",
	"templateVersion", "authorityName", "authorityUrl", "region", "lawName", "lawShort",
	"dpoContact", "recipientCategories", "minorsStatement", "soldSharedServices", "provisionExamples",
	"phone", "tollFreeNumber", "representative", "hostingProvider", "unknownServices", "jointServices",
	"consentMethod", "emailServices", "memberStateName", "memberAuthorityName", "memberAuthorityUrl",
	"crossSiteServices", "optOutLinkStatus", "optOutSignalsStatus",
}

// labelPlaceholders are filled in by the generator that uses the label.
var labelPlaceholders = []string{"url", "recipients", "services", "channels", "examples", "service", "provider", "purposes",
	"country", "access", "role", "categories", "retention"}

// conditionName reports whether c (without "!") is in the condition vocabulary.
func conditionName(c string) bool {
	if slices.Contains(compliance.FactNames, c) {
		return true
	}
	switch c {
	case "gdprFamily", "collectsUserData", "setsCookies", "cookiesKnown", "cookiesUnknown", "contractData", "hasPostalAddress",
		"hasPhone", "hasTollFree", "hasDPO", "onlineOnly", "consentBanner", "noConsentBanner", "sellsMinorsData",
		"transfersUncertain", "unknownServices", "hostKnown", "memberState", "establishedInRegion",
		"needsRepresentative", "hasRepresentative", "crossSiteTracking", "emailTracking", "tollFreeRequired", "optOutLink":
		return true
	}
	for _, p := range []string{"law:", "jurisdiction:", "purpose:", "basis:", "serviceCategory:"} {
		if strings.HasPrefix(c, p) && len(c) > len(p) {
			return true
		}
	}
	return false
}

// Check validates the library: ids unique, conditions in the vocabulary,
// every clause and section worded in every language, placeholders and
// generators known, and every satisfied requirement id on a checklist.
func (l *Library) Check(laws []compliance.Law) error {
	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	if len(l.Texts) == 0 || len(l.Structures) == 0 {
		bad("library needs at least one structure and one language")
	}
	for _, s := range l.Structures {
		seen := map[string]bool{}
		for _, sec := range s.Sections {
			if seen["section:"+sec.ID] {
				bad("%s: duplicate section %q", s.Type, sec.ID)
			}
			seen["section:"+sec.ID] = true
			checkWhen := func(where string, when []string) {
				for _, w := range when {
					if !conditionName(strings.TrimPrefix(w, "!")) {
						bad("%s: unknown condition %q", where, w)
					}
				}
			}
			checkWhen(s.Type+" section "+sec.ID, sec.When)
			for _, c := range sec.Clauses {
				if seen[c.ID] {
					bad("%s: duplicate clause %q", s.Type, c.ID)
				}
				seen[c.ID] = true
				checkWhen(s.Type+" clause "+c.ID, c.When)
				for _, r := range c.Satisfies {
					if _, ok := compliance.FindRequirement(laws, r); !ok {
						bad("%s clause %s: satisfies unknown requirement %q", s.Type, c.ID, r)
					}
				}
				for lang, t := range l.Texts {
					lines, ok := t.Clauses[c.ID]
					if !ok || len(lines) == 0 {
						bad("language %s: no text for clause %s", lang, c.ID)
					}
					for _, line := range lines {
						checkLine(lang, c.ID, line, bad)
					}
				}
			}
			for lang, t := range l.Texts {
				if t.Sections[sec.ID] == "" {
					bad("language %s: no heading for section %s", lang, sec.ID)
				}
			}
		}
		for lang, t := range l.Texts {
			if t.Titles[s.Type] == "" {
				bad("language %s: no title for type %s", lang, s.Type)
			}
		}
	}
	// Every language has exactly the same clauses, sections and labels.
	var ref *Wording
	for _, t := range l.Texts {
		if ref == nil || t.Language < ref.Language {
			ref = t
		}
	}
	for _, t := range l.Texts {
		for _, pair := range [][2]*Wording{{ref, t}, {t, ref}} {
			a, b := pair[0], pair[1]
			for k := range a.Clauses {
				if _, ok := b.Clauses[k]; !ok {
					bad("language %s: clause %s missing (present in %s)", b.Language, k, a.Language)
				}
			}
			for k := range a.Labels {
				if _, ok := b.Labels[k]; !ok {
					bad("language %s: label %s missing (present in %s)", b.Language, k, a.Language)
				}
			}
			for k := range a.Sections {
				if _, ok := b.Sections[k]; !ok {
					bad("language %s: section %s missing (present in %s)", b.Language, k, a.Language)
				}
			}
		}
		for k, v := range t.Labels {
			checkLine(t.Language, "label "+k, v, bad)
		}
	}
	return errors.Join(problems...)
}

func checkLine(lang, where, line string, bad func(string, ...any)) {
	if name, ok := strings.CutPrefix(line, "@"); ok {
		if _, known := generators[name]; !known {
			bad("language %s: %s: unknown generator @%s", lang, where, name)
		}
		return
	}
	for _, m := range placeholder.FindAllStringSubmatch(line, -1) {
		if !slices.Contains(placeholders, m[1]) && !slices.Contains(labelPlaceholders, m[1]) {
			bad("language %s: %s: unknown placeholder {%s}", lang, where, m[1])
		}
	}
}
