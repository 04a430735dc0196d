package policy

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/internal/strictjson"
)

// The clause library, all of it data in clauses/:
//   - <type>.json: a document type's language-neutral structure (sections,
//     clause order, conditions, the requirement ids each clause satisfies);
//   - <type>.<part>.json: a fragment of that structure ("part" names it),
//     which appends clauses to the type's sections and inserts new sections
//     after a named one: how a jurisdiction adds its own clauses without
//     editing the shared file;
//   - <language>.json and <language>.<part>.json: the text of sections,
//     clauses, titles and labels, merged per language (an id worded twice
//     is an error).
//
// Files are told apart by content: a structure has a "type", wording a
// "language". Fragments merge in file-name order, so the result does not
// depend on the order the file system lists them in.
//
//go:embed clauses/*.json
var clauseFiles embed.FS

// Structure is a document type's ordered sections.
type Structure struct {
	Type string `json:"type"`
	// Part names a fragment; empty in the type's base file.
	Part     string    `json:"part,omitempty"`
	Sections []Section `json:"sections"`
}

// Section is a headed part of a document.
type Section struct {
	ID   string   `json:"id"`
	When []string `json:"when,omitempty"`
	// After, in a fragment only, places a new section after the section
	// with that id (which the base file or an earlier fragment defines).
	After   string   `json:"after,omitempty"`
	Clauses []Clause `json:"clauses"`
}

// Clause is the unit of text selection.
type Clause struct {
	ID string `json:"id"`
	// When lists conditions that must all hold; "!x" negates x and "a|b"
	// holds when either alternative does.
	When []string `json:"when,omitempty"`
	// Satisfies lists the checklist requirement ids the clause discloses.
	Satisfies []string `json:"satisfies,omitempty"`
}

// Wording is one language's wording of every clause.
type Wording struct {
	Language   string              `json:"language"`
	DateFormat string              `json:"dateFormat,omitempty"`
	Titles     map[string]string   `json:"titles,omitempty"`
	Sections   map[string]string   `json:"sections,omitempty"`
	Clauses    map[string][]string `json:"clauses,omitempty"`
	Labels     map[string]string   `json:"labels,omitempty"`
}

// Library is the parsed clause library.
type Library struct {
	Structures map[string]*Structure // by document type
	Texts      map[string]*Wording   // by language

	// compiled is what generation reads (compile.go); DefaultLibrary
	// compiles the embedded library.
	compiled *compiledLibrary
}

var (
	libOnce sync.Once
	lib     *Library
	libErr  error
)

// DefaultLibrary returns the embedded clause library, parsed on first use.
func DefaultLibrary() (*Library, error) {
	libOnce.Do(func() {
		lib, libErr = LoadLibrary(clauseFiles, "clauses")
		if libErr != nil {
			return
		}
		laws, err := compliance.Laws()
		if err != nil {
			lib, libErr = nil, err
			return
		}
		if lib.compiled, libErr = lib.compile(laws, cat()); libErr != nil {
			lib = nil
		}
	})
	return lib, libErr
}

// LoadLibrary parses the clause library in dir of fsys and merges its
// fragments into one structure per type and one wording per language.
func LoadLibrary(fsys fs.FS, dir string) (*Library, error) {
	entries, err := fs.ReadDir(fsys, dir) // sorted by file name
	if err != nil {
		return nil, err
	}
	l := &Library{Structures: map[string]*Structure{}, Texts: map[string]*Wording{}}
	var parts []*Structure
	var problems []error
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := fs.ReadFile(fsys, dir+"/"+e.Name())
		if err != nil {
			return nil, err
		}
		kind, err := firstKey(b)
		if err != nil {
			return nil, fmt.Errorf("policy: %s: %w", e.Name(), err)
		}
		if kind == "type" {
			var s Structure
			if err := strictjson.Decode(b, &s); err != nil {
				return nil, fmt.Errorf("policy: %s: %w", e.Name(), err)
			}
			if s.Type == "" {
				problems = append(problems, fmt.Errorf("policy: %s: \"type\" is empty", e.Name()))
				continue
			}
			if s.Part != "" {
				parts = append(parts, &s)
				continue
			}
			if l.Structures[s.Type] != nil {
				problems = append(problems, fmt.Errorf("policy: %s: a second base structure for type %q (give it a \"part\")", e.Name(), s.Type))
				continue
			}
			for _, sec := range s.Sections {
				if sec.After != "" {
					problems = append(problems, fmt.Errorf("policy: %s: section %s: \"after\" belongs in fragments", e.Name(), sec.ID))
				}
			}
			l.Structures[s.Type] = &s
			continue
		}
		var t Wording
		if err := strictjson.Decode(b, &t); err != nil {
			return nil, fmt.Errorf("policy: %s: %w", e.Name(), err)
		}
		if t.Language == "" {
			problems = append(problems, fmt.Errorf("policy: %s: \"language\" is empty", e.Name()))
			continue
		}
		if err := l.mergeWording(&t); err != nil {
			problems = append(problems, fmt.Errorf("policy: %s: %w", e.Name(), err))
		}
	}
	for _, p := range parts {
		if err := l.mergePart(p); err != nil {
			problems = append(problems, err)
		}
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	return l, nil
}

// firstKey is the first member name of the JSON object b, which says what
// a clause file is: "type" a structure or a fragment of one, "language" a
// wording. Reading only that far, rather than decoding the file once to
// find its kind and again as that kind, saves about a third of loading the
// library.
func firstKey(b []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", errors.New("not a JSON object")
	}
	if tok, err := dec.Token(); err == nil {
		if k, ok := tok.(string); ok && (k == "type" || k == "language") {
			return k, nil
		}
	}
	return "", errors.New(`a clause file begins with "type" (a structure or a fragment of one) or "language" (a wording)`)
}

// mergeWording adds t to its language's wording; an id worded twice is an
// error, so no fragment silently rewrites another's text.
func (l *Library) mergeWording(t *Wording) error {
	w := l.Texts[t.Language]
	if w == nil {
		w = &Wording{Language: t.Language, Titles: map[string]string{}, Sections: map[string]string{},
			Clauses: map[string][]string{}, Labels: map[string]string{}}
		l.Texts[t.Language] = w
	}
	var problems []error
	if t.DateFormat != "" {
		if w.DateFormat != "" {
			problems = append(problems, fmt.Errorf("dateFormat of %s given twice", t.Language))
		}
		w.DateFormat = t.DateFormat
	}
	problems = append(problems, mergeMap("title", w.Titles, t.Titles)...)
	problems = append(problems, mergeMap("section", w.Sections, t.Sections)...)
	problems = append(problems, mergeMap("clause", w.Clauses, t.Clauses)...)
	problems = append(problems, mergeMap("label", w.Labels, t.Labels)...)
	return errors.Join(problems...)
}

func mergeMap[V any](kind string, dst, src map[string]V) []error {
	var problems []error
	for _, k := range slices.Sorted(maps.Keys(src)) {
		if _, dup := dst[k]; dup {
			problems = append(problems, fmt.Errorf("%s %q worded twice", kind, k))
			continue
		}
		dst[k] = src[k]
	}
	return problems
}

// mergePart merges a structure fragment into its type's base structure:
// clauses of a known section are appended to it; a new section goes after
// the section its "after" names.
func (l *Library) mergePart(p *Structure) error {
	base := l.Structures[p.Type]
	if base == nil {
		return fmt.Errorf("policy: fragment %q: no base structure for type %q", p.Part, p.Type)
	}
	var problems []error
	for _, sec := range p.Sections {
		i := slices.IndexFunc(base.Sections, func(s Section) bool { return s.ID == sec.ID })
		if i >= 0 {
			if sec.After != "" || len(sec.When) > 0 {
				problems = append(problems, fmt.Errorf("policy: fragment %q: section %s exists; a fragment adds clauses to it, not \"after\" or \"when\"", p.Part, sec.ID))
				continue
			}
			base.Sections[i].Clauses = append(base.Sections[i].Clauses, sec.Clauses...)
			continue
		}
		at := slices.IndexFunc(base.Sections, func(s Section) bool { return s.ID == sec.After })
		if sec.After == "" || at < 0 {
			problems = append(problems, fmt.Errorf("policy: fragment %q: new section %s needs \"after\" naming an existing section (got %q)", p.Part, sec.ID, sec.After))
			continue
		}
		sec.After = ""
		base.Sections = slices.Insert(base.Sections, at+1, sec)
	}
	return errors.Join(problems...)
}

// conditionName reports whether c (without "!") is in the condition vocabulary.
func conditionName(c string) bool {
	if slices.Contains(compliance.FactNames, c) {
		return true
	}
	switch c {
	case "gdprFamily", "collectsUserData", "setsCookies", "cookiesKnown", "cookiesUnknown", "contractData", "hasPostalAddress",
		"hasPhone", "hasTollFree", "hasDPO", "onlineOnly", "consentBanner", "noConsentBanner", "sellsMinorsData",
		"transfersUncertain", "unknownServices", "hostKnown", "memberState", "establishedInRegion",
		"needsRepresentative", "hasRepresentative", "crossSiteTracking", "emailTracking", "tollFreeRequired", "optOutLink",
		"hasPrivacyOfficer", "smallAgentNoEncarregado", // issue 8, part j1
		"usStateLaw": // issue 8: any US state privacy law (law id us-<postal code>)
		return true
	// Contract documents: what the request says of subscriptions.
	// Disclaimer (issue 8, t2).
	case "noAffiliateLinks":
		return true
	// Refund policy (issue 8, t3): what the request says of returns.
	case "refundWindow", "noRefundWindow", "refundWindowUnknown",
		"returnPostageCustomer", "returnPostageBusiness", "returnPostageUnknown":
		return true
	case "subscriptions", "noSubscriptions", "subscriptionsUnknown", "renewalUnknown", "fixedTermSubscriptions",
		"cancelOnline", "cancelEmail":
		return true
	}
	for _, p := range []string{"law:", "jurisdiction:", "purpose:", "basis:", "serviceCategory:", "businessType:"} {
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
					for alt := range strings.SplitSeq(w, "|") {
						if !conditionName(strings.TrimPrefix(alt, "!")) {
							bad("%s: unknown condition %q", where, w)
						}
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
					req, ok := compliance.FindRequirement(laws, r)
					if !ok {
						bad("%s clause %s: satisfies unknown requirement %q", s.Type, c.ID, r)
						continue
					}
					if i := slices.IndexFunc(laws, func(l compliance.Law) bool { return l.ID == req.Law }); i >= 0 && !slices.Contains(req.DocumentTypes(laws[i]), s.Type) {
						bad("%s clause %s: satisfies %q, a requirement of other document types", s.Type, c.ID, r)
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
	// Every law's document types have a structure.
	for _, law := range laws {
		for _, typ := range law.DocumentTypes() {
			if l.Structures[typ] == nil {
				bad("law %s: document type %q has no clause structure", law.ID, typ)
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
		if generatorNamed(name) == nil {
			bad("language %s: %s: unknown generator @%s", lang, where, name)
		}
		return
	}
	for i := 0; ; {
		open, end, ok := nextPlaceholder(line, i)
		if !ok {
			break
		}
		if _, ok := placeholderNumber(line[open+1 : end]); !ok {
			bad("language %s: %s: unknown placeholder %s", lang, where, line[open:end+1])
		}
		i = end + 1
	}
}
