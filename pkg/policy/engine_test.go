package policy

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/policygen/policygen/pkg/catalog"
)

// TestResultsOutliveThePool: Generate reuses its working memory, so a
// result must hold nothing of it. A result kept while other documents (of
// other types, jurisdictions and sizes) are generated stays equal to the
// same request generated from fresh memory.
func TestResultsOutliveThePool(t *testing.T) {
	c := mustCatalog(t)
	var kept []Result
	for _, typ := range c.Types {
		for _, j := range []string{"EU", "US", "BR", "UK,US-CA"} {
			req := Request{Type: typ, BusinessName: "Pool " + typ + " " + j, WebsiteURL: "https://pool.example",
				BusinessType: "marketplace", Language: "en", Jurisdiction: j, Format: Formats[len(kept)%len(Formats)],
				CollectsPayments: true, CollectsUserData: true, UsesAnalytics: true, ThirdPartyServices: serviceMix(c)}
			if len(kept)%2 == 0 {
				completeRequest(&req)
			}
			res, err := Generate(req)
			if err != nil {
				t.Fatal(err)
			}
			kept = append(kept, res)
		}
	}
	for _, res := range kept {
		doc, facts, _, err := Compose(res.Request)
		if err != nil {
			t.Fatal(err)
		}
		content, err := Render(doc, res.Request.Format, res.Request.Language)
		if err != nil {
			t.Fatal(err)
		}
		a := Assess(facts)
		name := res.Request.Type + "/" + res.Request.Jurisdiction
		switch {
		case res.Content != content:
			t.Fatalf("%s: content changed after later documents: %s", name, firstDiff(res.Content, content))
		case !reflect.DeepEqual(res.Todos, facts.Todos):
			t.Fatalf("%s: todos changed", name)
		case !reflect.DeepEqual(res.Flags, a.Flags) || !reflect.DeepEqual(res.RiskFactors, a.Factors):
			t.Fatalf("%s: flags or factors changed", name)
		}
	}
}

// TestCompileText: clause text is read as it always was: "{name}" with a
// placeholder's name (ASCII letters) is a placeholder; anything else with
// braces is literal text.
func TestCompileText(t *testing.T) {
	b := &builder{}
	b.base[phBusinessName] = value{ins: []Inline{{Kind: Plain, Text: "Acme"}}, ok: true}
	b.base[phEmailServices] = value{ins: []Inline{{Kind: Plain, Text: ""}}, ok: true} // set, empty
	b.vars = &b.base
	for in, want := range map[string]string{
		"":                             "",
		"plain text":                   "plain text",
		"{businessName}":               "Acme",
		"We are {businessName}.":       "We are Acme.",
		"{businessName}{businessName}": "AcmeAcme",
		"{unknownName} and {x}":        "{unknownName} and {x}",
		"{region}":                     "{region}", // a placeholder without a value stays as written
		"[{emailServices}]":            "[]",
		"{ businessName}":              "{ businessName}",
		"{business_name}":              "{business_name}",
		"{}":                           "{}",
		"{{businessName}}":             "{Acme}",
		"trailing {":                   "trailing {",
		"{businessName":                "{businessName",
		"{businessName}}":              "Acme}",
	} {
		if got := inlineText(b.expand(compileText(in))); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
	// Extra values win over the document's.
	got := inlineText(b.expand(compileText("{businessName} {services}"), extra{phBusinessName, []Inline{{Text: "Other"}}},
		extra{phServices, []Inline{{Text: "Stripe"}}}))
	if got != "Other Stripe" {
		t.Errorf("with extras: %q", got)
	}
}

// TestExpandLiteralRuns: literal text becomes the run for the document's
// format, carrying its escaped form; a line of literal text alone is its
// compiled run, shared and capped so that an append copies it.
func TestExpandLiteralRuns(t *testing.T) {
	b := &builder{}
	b.base[phBusinessName] = value{ins: []Inline{{Kind: Plain, Text: "Acme"}}, ok: true}
	b.vars = &b.base
	whole, mixed := compileText("a *b* <c>"), compileText("*x* {businessName} <y>")
	for _, tc := range []struct {
		esc      uint8
		esc1, e3 string
	}{
		{escNone, "", ""},
		{escMarkdown, mdEscape("a *b* <c>"), mdEscape(" <y>")},
		{escHTML, htmlEscape("a *b* <c>"), htmlEscape(" <y>")},
	} {
		b.esc = tc.esc
		got := b.expand(whole)
		if want := (Inline{Kind: Plain, esc: tc.esc, Text: "a *b* <c>", URL: tc.esc1}); len(got) != 1 || got[0] != want {
			t.Errorf("esc %d: expand(whole) = %+v, want %+v", tc.esc, got, want)
		}
		if cap(got) != 1 || &b.expand(whole)[0] != &got[0] {
			t.Errorf("esc %d: a literal line is not its shared, capped run", tc.esc)
		}
		got = b.expand(mixed)
		if len(got) != 3 || got[1].Text != "Acme" || got[2] != (Inline{Kind: Plain, esc: tc.esc, Text: " <y>", URL: tc.e3}) {
			t.Errorf("esc %d: expand(mixed) = %+v", tc.esc, got)
		}
	}
}

// TestExpandChunkEnd: a line expands to the same runs whether they fit
// in what is left of the arena's chunk (written there at once) or not
// (counted, then written in the next chunk), capped either way.
func TestExpandChunkEnd(t *testing.T) {
	b := &builder{}
	b.base[phBusinessName] = value{ins: []Inline{{Text: "A"}, {Text: "c"}, {Text: "me"}}, ok: true}
	b.vars = &b.base
	segs := compileText("We are {businessName}, {businessName}.")
	want := "We are Acme, Acme."
	for left := range 11 { // the runs are nine
		b.ins.reset()
		b.ins.alloc(arenaChunk - left)
		got := b.expand(segs)
		if inlineText(got) != want || len(got) != 9 || cap(got) != 9 {
			t.Errorf("%d left: %q (len %d, cap %d)", left, inlineText(got), len(got), cap(got))
		}
		// The arena carries on after the expansion's runs, unless they
		// took the last places of its chunk: then the next run is in
		// another chunk, wherever the allocator put it.
		if left == len(got) {
			if n := len(b.ins.free()); n != 0 {
				t.Errorf("%d left: %d places free after the expansion, want none", left, n)
			}
			continue
		}
		if next := b.ins.alloc(1); uintptr(unsafe.Pointer(&next[0])) != uintptr(unsafe.Pointer(&got[8]))+unsafe.Sizeof(Inline{}) {
			t.Errorf("%d left: the next run is not after the expansion's", left)
		}
	}
}

// TestLineBlocks: a literal paragraph line is compiled to the paragraph
// the builder would make of it, a literal item to its run alone, and a
// section's heading to its block, for every format.
func TestLineBlocks(t *testing.T) {
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, p := range lib.compiled.programs {
		for si := range p.sections {
			sec := &p.sections[si]
			for e := range sec.headBlocks {
				want := Block{Kind: Heading, Level: 2, Section: sec.id, Anchor: sec.anchor, Inlines: []Inline{sec.headingRuns[e]}}
				if h := sec.headBlocks[e]; !reflect.DeepEqual(h, want) || cap(h.Inlines) != 1 {
					t.Fatalf("section %s: heading block %+v", sec.id, h)
				}
			}
			for _, c := range sec.clauses {
				for _, l := range c.lines {
					literal := l.kind != lineGenerator && len(l.segs) == 1 && l.segs[0].runs != nil
					if (l.literal() != nil) != literal || (l.literal() != nil && l.literal() != l.segs[0].runs) {
						t.Fatalf("clause %s: runs %v for a literal line %v", c.id, l.literal(), literal)
					}
					if (l.block != nil) != (literal && l.kind != lineItem) {
						t.Fatalf("clause %s: block %v for a literal paragraph %v", c.id, l.block != nil, literal && l.kind != lineItem)
					}
					if l.block == nil {
						continue
					}
					blocks++
					for e, blk := range l.block {
						// What the builder makes of the line without
						// its compiled block, in a document of format e.
						b := &builder{esc: uint8(e), section: sec.id, openList: -1}
						b.paragraph(b.expand(l.segs), l.kind == lineStrong)
						if want := b.blocks[0]; !reflect.DeepEqual(blk, want) || cap(blk.Inlines) != 1 {
							t.Fatalf("clause %s: block %+v, want %+v", c.id, blk, want)
						}
					}
				}
			}
		}
	}
	if blocks == 0 {
		t.Fatal("no literal paragraph line")
	}
}

// TestPlaceholderNames: every placeholder has a distinct name, found by
// placeholderNumber.
func TestPlaceholderNames(t *testing.T) {
	seen := map[string]bool{}
	for i, n := range placeholderNames {
		if n == "" || seen[n] {
			t.Fatalf("placeholder %d: name %q empty or repeated", i, n)
		}
		seen[n] = true
		if got, ok := placeholderNumber(n); !ok || got != i {
			t.Fatalf("placeholderNumber(%q) = %d, %v", n, got, ok)
		}
	}
}

// TestArena: slices from an arena are capped (an append copies rather than
// overwriting a neighbour) and survive the arena's growth.
func TestArena(t *testing.T) {
	var a arena[int]
	var all [][]int
	for i := range 3000 {
		s := a.alloc(i%7 + 1)
		for k := range s {
			s[k] = i
		}
		if len(s) != cap(s) {
			t.Fatalf("alloc(%d): cap %d", len(s), cap(s))
		}
		all = append(all, s)
	}
	_ = append(all[0], -1) // must not write into all[1]
	for i, s := range all {
		for _, v := range s {
			if v != i {
				t.Fatalf("slice %d holds %d", i, v)
			}
		}
	}
	a.reset()
	if s := a.alloc(5); len(s) != 5 || s[0] != 0 {
		t.Fatalf("after reset: %v", s)
	}
	if a.alloc(0) != nil {
		t.Fatal("alloc(0) is not nil")
	}
}

// oldUserText is userText as it was before its fast path.
func oldUserText(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
	return strings.Join(lines, ", ")
}

// textSamples are strings with the cases the fast paths must get right.
var textSamples = []string{
	"", " ", "a", "A", "Acme Ltd", " Acme", "Acme ", "Acme  Ltd", "Acme\tLtd", "1 Main St\nSpringfield",
	"1 Main St\r\n\r\nSpringfield ", "Ünïcode GmbH", "Ålesund", "\u00a0nbsp", "a\u2003b", "x\vy", "x\fy",
	"google-analytics", "Google Analytics", "GOOGLE_ANALYTICS", "google.analytics", "stripe", "Stripe",
	"stirpe", "aws", "AWS", "a-b", "ab", "a", "éclair", "Éclair", "zoom", "Zoom Video", "zoom-", "-zoom",
	"İstanbul", "ǅ", "i", "I", "[x]", "_x", "a\x01b", "\x01", "a \x1f", "~", "a\x7f", "\x7f ", "a\x00b", "!x !",
}

func TestUserTextFastPath(t *testing.T) {
	for _, s := range textSamples {
		if got, want := userText(s), oldUserText(s); got != want {
			t.Errorf("userText(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestFoldCompare: services sort as their folded forms do.
func TestFoldCompare(t *testing.T) {
	sign := func(n int) int { return min(max(n, -1), 1) }
	for _, a := range textSamples {
		for _, b := range textSamples {
			if got, want := sign(foldCompare(a, b)), strings.Compare(fold(a), fold(b)); got != want {
				t.Errorf("foldCompare(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// TestCaseFirst: capFirst and lowerFirst change the first byte as
// strings.ToUpper and ToLower of it did, and sameLowerFirst compares what
// lowerFirst gives.
func TestCaseFirst(t *testing.T) {
	b := &builder{}
	for _, s := range textSamples {
		up := strings.ToUpper(s[:min(1, len(s))]) + s[min(1, len(s)):]
		if got := inlineText(b.capFirst([]Inline{{Kind: Plain, Text: s}})); got != up {
			t.Errorf("capFirst(%q) = %q, want %q", s, got, up)
		}
		low := lowerFirstString(s)
		if got := inlineText(b.lowerFirst(s)); got != low {
			t.Errorf("lowerFirst(%q) = %q, want %q", s, got, low)
		}
		for _, o := range textSamples {
			if got, want := sameLowerFirst(s, o), lowerFirstString(s) == lowerFirstString(o); got != want {
				t.Errorf("sameLowerFirst(%q, %q) = %v", s, o, got)
			}
		}
	}
	// A link or a placeholder is never changed.
	link := []Inline{{Kind: Link, Text: "acme", URL: "https://acme.example"}}
	if got := b.capFirst(link); got[0].Text != "acme" {
		t.Errorf("capFirst changed a link: %v", got)
	}
}

// TestJoin: lists in prose, with and without a lower-case first letter.
func TestJoin(t *testing.T) {
	b := &builder{none: "None"}
	b.seps = [numSeps]Inline{sepList: b.literal(", "), sepLast: b.literal(" and "), sepLastOr: b.literal(" or "), sepSemicolon: b.literal("; ")}
	for _, tt := range []struct {
		items                 []string
		join, joinOr, joinLow string
	}{
		{nil, "None", "None", "None"},
		{[]string{"Apples"}, "Apples", "Apples", "apples"},
		{[]string{"Apples", "Pears"}, "Apples and Pears", "Apples or Pears", "apples and pears"},
		{[]string{"A", "b", "Éclairs"}, "A, b and Éclairs", "A, b or Éclairs", "a, b and \ufffd\x89clairs"},
	} {
		if got := inlineText(b.join(tt.items)); got != tt.join {
			t.Errorf("join(%q) = %q", tt.items, got)
		}
		if got := inlineText(b.joinWith(tt.items, sepLastOr)); got != tt.joinOr {
			t.Errorf("joinWith(%q) = %q", tt.items, got)
		}
		if got := inlineText(b.joinLower(tt.items)); got != tt.joinLow {
			t.Errorf("joinLower(%q) = %q", tt.items, got)
		}
	}
	if got := inlineText(b.replaceHash("within # days (# days)", "12")); got != "within 12 days (12 days)" {
		t.Errorf("replaceHash: %q", got)
	}
}

// TestCountrySets: a jurisdiction's countries as a set, as the list says.
func TestCountrySets(t *testing.T) {
	c := mustCatalog(t)
	codes := append(countryList(), "", "d", "de", "DEU", "ZZ")
	for _, j := range c.Jurisdictions {
		g := regionOf(&j)
		for _, code := range codes {
			if got, want := g.countries.has(code), slices.Contains(j.Countries, code); got != want {
				t.Fatalf("%s: countries.has(%q) = %v", j.ID, code, got)
			}
			if got, want := g.adequate.has(code), slices.Contains(j.Adequate, code); got != want {
				t.Fatalf("%s: adequate.has(%q) = %v", j.ID, code, got)
			}
		}
	}
	// A jurisdiction not in the catalog gets its own sets.
	g := regionOf(&catalog.Jurisdiction{ID: "XX", Countries: []string{"FR"}})
	if !g.countries.has("FR") || g.countries.has("DE") {
		t.Fatal("sets of an uncatalogued jurisdiction")
	}
}

// TestLabelCacheKeys: the label cache answers by where a key's parts are
// and how long they are (TestLabelCache checks it against the library),
// so equal parts elsewhere, a part of another length at the same place,
// another wording and a key too long for an entry each get their own
// label, never another key's.
func TestLabelCacheKeys(t *testing.T) {
	long := strings.Repeat("x", 300)
	en := &Wording{Labels: map[string]string{"role.processor": "Processor", "role.proc": "Proc", "region.UK": "the UK",
		"region.UK.CH": "UK (Swiss words)", "a" + long: "long"}}
	de := &Wording{Labels: map[string]string{"role.processor": "Auftragsverarbeiter"}}
	b := &builder{t: en}
	id := "processor"
	elsewhere := string([]byte(id)) // equal bytes at another address
	for range 2 {                   // the second round reads the entries the first made
		for _, tc := range []struct {
			k1, k2, k3, j, want string
			ok                  bool
		}{
			{"role.", id, "", "", "Processor", true},
			{"role.", elsewhere, "", "", "Processor", true},
			{"role.", id[:4], "", "", "Proc", true},
			{"role.", id, ".x", "", "", false},
			{"region.", "UK", "", "", "the UK", true},
			{"region.", "UK", "", "CH", "UK (Swiss words)", true},
			{"a", long, "", "", "long", true},
		} {
			if v, ok := b.lookupLabelFor(tc.k1, tc.k2, tc.k3, tc.j); v != tc.want || ok != tc.ok {
				t.Errorf("%q+%q+%q (%q) = %q, %v; want %q, %v", tc.k1, tc.k2, tc.k3, tc.j, v, ok, tc.want, tc.ok)
			}
		}
	}
	b.t = de
	if v := b.label2("role.", id); v != "Auftragsverarbeiter" {
		t.Errorf("after a change of wording: %q", v)
	}
	if n := unsafe.Sizeof(labelEntry{}); n != 64 {
		t.Errorf("labelEntry is %d bytes, want 64 (a cache line)", n)
	}
}

// TestConditionHolds: a compiled "when" list holds when each of its
// groups has a term that holds, a negated term holding while its bit is
// clear, for bits in any word of the set.
func TestConditionHolds(t *testing.T) {
	c := &compiledLibrary{conditions: map[string]int{}}
	for i := range 70 { // "c69" is in the second word
		c.conditions["c"+strconv.Itoa(i)] = i
	}
	cases := []struct {
		when []string
		want bool
	}{
		{nil, true},
		{[]string{"c1"}, true},
		{[]string{"c2"}, false},
		{[]string{"!c2"}, true},
		{[]string{"!c1"}, false},
		{[]string{"c69"}, true},
		{[]string{"!c69"}, false},
		{[]string{"c2|c69"}, true},
		{[]string{"c2|c3"}, false},
		{[]string{"c2|!c3"}, true},
		{[]string{"c1", "c2|c69"}, true},
		{[]string{"c1", "c2|c3"}, false},
		{[]string{"c2|c3", "c1"}, false},
		{[]string{"c1|c2", "!c3", "c69|c4"}, true},
		{[]string{"new"}, false}, // a name no fact sets
		// Single-term groups are tested a word at a time.
		{[]string{"c1", "!c2", "c69", "!c68"}, true},
		{[]string{"c1", "!c2", "c69", "c3"}, false},
		{[]string{"c1", "!c69"}, false},
		{[]string{"c1", "!c1"}, false},
		{[]string{"!c2", "!c3", "c2|c1"}, true},
		{[]string{"c1|c2", "c2|c1"}, true}, // two groups, each its own bit
	}
	// Every list is compiled first, numbering the groups' bits; then the
	// facts' bits are set, and the groups' from them (setGroups).
	whens := make([]condition, len(cases))
	for i, tc := range cases {
		whens[i] = c.compileWhen(tc.when)
	}
	var cb conditionBits
	cb.reset(c)
	for _, bit := range []int{1, 69} {
		cb.setBit(bit)
	}
	cb.setGroups()
	for i, tc := range cases {
		if whens[i].holds(cb.bits) != tc.want {
			t.Errorf("%q: holds = %v, want %v", tc.when, !tc.want, tc.want)
		}
	}
}

// TestServiceTransfersCached: what a service's use holds of its transfers,
// by jurisdiction position, is what its catalog entry and the
// jurisdiction's region say.
func TestServiceTransfersCached(t *testing.T) {
	c := mustCatalog(t)
	uses := serviceUses()
	jt := jurisdictions()
	for i := range c.Services {
		sv := &c.Services[i]
		u := uses[i]
		for p := range c.Jurisdictions {
			j := &c.Jurisdictions[p]
			if jt.pos[j.ID] != p {
				t.Fatalf("%s: position %d, want %d", j.ID, jt.pos[j.ID], p)
			}
			for _, country := range j.Countries { // each has its bit in the region's set
				if countryBit(country) < 0 {
					t.Errorf("%s: country %q is not a code of two capitals", j.ID, country)
				}
			}
			if got, want := u.out.has(p), regionOf(j).transfersOut(sv); got != want {
				t.Errorf("%s in %s: transfers out %v, want %v", sv.ID, j.ID, got, want)
			}
			provider, access := regionOf(j).adequacy(sv)
			if u.providerOK.has(p) != provider || u.accessOK.has(p) != access {
				t.Errorf("%s in %s: adequate provider %v and access %v, want %v and %v", sv.ID, j.ID, u.providerOK.has(p), u.accessOK.has(p), provider, access)
			}
			got, bits := u.statedIn(p)
			if want := sv.Transfers[j.ID]; !slices.Equal(got, want) {
				t.Errorf("%s in %s: stated %v, want %v", sv.ID, j.ID, got, want)
			}
			for m, b := range jt.mechanismBit {
				if (bits&b != 0) != slices.Contains(got, m) {
					t.Errorf("%s in %s: stated %v, bit of %s %v", sv.ID, j.ID, got, m, bits&b != 0)
				}
			}
			want := uint8(0)
			if u.out.has(p) {
				want = uint8(transferBasis(j, &ServiceFact{Service: sv}, sv.Transfers[j.ID], provider, access)) + 1
			}
			if u.basis[p] != want {
				t.Errorf("%s in %s: basis %d, want %d", sv.ID, j.ID, u.basis[p], want)
			}
		}
	}
}

// TestCategorySources: a category's sources are each listed once, those
// addUse knows by their bit (sourceBit) as those it compares.
func TestCategorySources(t *testing.T) {
	c := mustCatalog(t)
	req, err := ParseRequest([]byte(standardRequest))
	if err != nil {
		t.Fatal(err)
	}
	f, err := BuildFacts(req)
	if err != nil {
		t.Fatal(err)
	}
	id := c.DataCategories[0].ID
	for _, source := range []string{"you", "device", "you", "survey", "derived", "survey", "device"} {
		u := usesOf(c, []string{id}, nil, source)
		if err := f.add(c, &u); err != nil {
			t.Fatal(err)
		}
	}
	cf := &f.scr.cats[0]
	got := slices.Clone(cf.Sources)
	slices.Sort(got)
	if want := []string{"derived", "device", "survey", "you"}; !slices.Equal(got, want) {
		t.Errorf("sources %v, want %v", cf.Sources, want)
	}
	for _, s := range []string{"you", "device", "derived"} {
		if b := sourceBit(s); b == 0 || cf.sourceSet&b == 0 {
			t.Errorf("source %s: bit %d not in %b", s, b, cf.sourceSet)
		}
	}
}

// TestTransferBasis: a transfer rests on adequacy where the region takes
// the provider's and access countries as adequate, else on the regime's
// certification (stated, or implied for a certified U.S. provider where
// the regime implies it), else on another stated mechanism, else on none.
func TestTransferBasis(t *testing.T) {
	yes := true
	eu := &catalog.Jurisdiction{Certification: "dpf", CertificationImplied: true}
	uk := &catalog.Jurisdiction{Certification: "uk-ext"}
	certified := &ServiceFact{Service: &catalog.Service{ProviderCountry: "US", DataPrivacyFramework: &yes}}
	plain := &ServiceFact{Service: &catalog.Service{ProviderCountry: "US"}}
	abroad := &ServiceFact{Service: &catalog.Service{ProviderCountry: "IN", DataPrivacyFramework: &yes}}
	for _, tc := range []struct {
		name               string
		j                  *catalog.Jurisdiction
		s                  *ServiceFact
		stated             []string
		providerOK, access bool
		want               int
	}{
		{"adequate", eu, plain, []string{"scc"}, true, true, basisAdequacy},
		{"access not adequate", eu, plain, []string{"scc"}, true, false, basisContract},
		{"implied", eu, certified, nil, false, true, basisDPF},
		{"implied, access not adequate", eu, certified, nil, false, false, basisNone},
		{"not implied", uk, certified, []string{"scc"}, false, true, basisContract},
		{"stated", uk, certified, []string{"scc", "uk-ext"}, false, true, basisDPF},
		{"stated, not certified", uk, plain, []string{"uk-ext"}, false, true, basisDPF},
		{"certification alone, provider abroad", uk, abroad, []string{"uk-ext"}, false, true, basisNone},
		{"another, provider abroad", eu, abroad, []string{"dpf", "bcr"}, false, true, basisContract},
		{"nothing stated", eu, plain, nil, false, true, basisNone},
	} {
		if got := transferBasis(tc.j, tc.s, tc.stated, tc.providerOK, tc.access); got != tc.want {
			t.Errorf("%s: basis %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestRegimeTransferSets: the regimes build marks as having a transfer out
// of their region (regimeOut), one on a contract or on nothing
// (regimeContract), and one on nothing (regimeNone) are those the
// services' transfers say, complete requests (every transfer safeguarded)
// and incomplete ones alike.
func TestRegimeTransferSets(t *testing.T) {
	c := mustCatalog(t)
	anyNone := false
	for _, j := range []string{"EU", "EU,UK", "CH,EU,UK,US-CA", "US-CA"} {
		for _, complete := range []bool{false, true} {
			req := Request{Type: "privacy", BusinessName: "X", WebsiteURL: "https://x.example", BusinessType: "ecommerce",
				Language: "en", Jurisdiction: j, Format: "markdown", UsesAnalytics: true, ThirdPartyServices: serviceMix(c)}
			if complete {
				completeRequest(&req)
			}
			f, err := BuildFacts(req)
			if err != nil {
				t.Fatal(err)
			}
			sawNone := false
			for i := range f.transferRegimes() {
				var out, contract, none bool
				for k := range f.Services {
					o, basis := f.transferOf(i, k)
					out = out || o
					contract = contract || o && (basis == basisContract || basisNone == basis)
					none = none || o && basis == basisNone
				}
				sawNone = sawNone || none
				if f.scr.regimeOut.has(i) != out || f.scr.regimeContract.has(i) != contract || f.scr.regimeNone.has(i) != none {
					t.Errorf("%s complete=%v regime %d: sets %v %v %v, transfers say %v %v %v", j, complete, i,
						f.scr.regimeOut.has(i), f.scr.regimeContract.has(i), f.scr.regimeNone.has(i), out, contract, none)
				}
			}
			// completeRequest safeguards the listed regimes' transfers.
			if complete && len(f.Regimes) > 0 && sawNone {
				t.Errorf("%s: a complete request has a transfer on no safeguard", j)
			}
			anyNone = anyNone || sawNone
		}
	}
	if !anyNone {
		t.Error("no request has a transfer on no safeguard: the sets are not tested")
	}
}

// TestJurisdictionLookup: the request's jurisdictions are found at their
// catalog positions in catalog order, out of it, repeated, and far apart,
// and an unknown one is an error.
func TestJurisdictionLookup(t *testing.T) {
	c := mustCatalog(t)
	jt := jurisdictions()
	n := len(c.Jurisdictions)
	ids := func(ps ...int) string {
		var out []string
		for _, p := range ps {
			out = append(out, c.Jurisdictions[p].ID)
		}
		return strings.Join(out, ",")
	}
	for _, list := range []string{ids(0, 1, 2), ids(0, n-1), ids(n-1, 0), ids(2, 1, 0), ids(3, 3), ids(1, 6, 7, n-2)} {
		var f Facts
		f.reset(c)
		if _, err := f.parseJurisdictions(c, jt, list); err != nil {
			t.Fatalf("%s: %v", list, err)
		}
		for i, id := range strings.Split(list, ",") {
			if p := f.scr.jpos[i]; p != jt.pos[id] || f.Jurisdictions[i].ID != id {
				t.Errorf("%s: %s at position %d (%s), want %d", list, id, p, f.Jurisdictions[i].ID, jt.pos[id])
			}
		}
	}
	var f Facts
	f.reset(c)
	if _, err := f.parseJurisdictions(c, jt, ids(0)+",XX-NOPE"); err == nil {
		t.Error("an unknown jurisdiction is found")
	}
}

// TestMechanismBit: a transfer mechanism's bit is the table's, for a
// name looked up once, again, and one no jurisdiction knows (no bit),
// past the few the scratch keeps.
func TestMechanismBit(t *testing.T) {
	c := mustCatalog(t)
	jt := jurisdictions()
	var names []string
	for _, j := range c.Jurisdictions {
		names = append(names, j.TransferMechanisms...)
	}
	names = append(names, "no-such-mechanism")
	var s factScratch
	for round := range 2 {
		for _, m := range names {
			if got, want := s.mechanismBit(jt, m), jt.mechanismBit[m]; got != want {
				t.Errorf("round %d: %s has bit %x, want %x", round, m, got, want)
			}
		}
	}
	if s.mechanismBit(jt, "no-such-mechanism") != 0 {
		t.Error("an unknown mechanism has a bit")
	}
	if len(s.mechanisms) == 0 || len(s.mechanisms) > 8 {
		t.Errorf("%d mechanisms kept", len(s.mechanisms))
	}
}

// TestAppendStated: a service's mechanisms under a regime, with the
// request's safeguards added by their bits (build: appendStated when
// some are to add), are the catalog's followed by each safeguard the
// regime's law knows and the list lacks, once, in the request's order.
func TestAppendStated(t *testing.T) {
	c := mustCatalog(t)
	jt := jurisdictions()
	uses := serviceUses()
	extras := [][]string{{"ch_sccs"}, {"eu_sccs", "uk_idta", "ch_sccs"}, {"uk_idta", "eu_sccs", "uk_idta"}, {"no-such-mechanism", "bcr", "eu_us_dpf"}, {"uk_addendum", "uk_extension", "ch_dpf", "ch_bcr", "bcr"}}
	n := 0
	for i := range c.Services {
		sv := &c.Services[i]
		u := uses[i]
		for p := range c.Jurisdictions {
			j := &c.Jurisdictions[p]
			if len(j.TransferMechanisms) == 0 {
				continue
			}
			for _, extra := range extras {
				var f Facts
				stated, statedBits := u.statedIn(p)
				var bits []uint64
				var extraBits uint64
				for _, m := range extra {
					b := f.scr.mechanismBit(jt, m)
					bits, extraBits = append(bits, b), extraBits|b
				}
				got := stated
				if add := extraBits & jt.knownBits[p] &^ statedBits; add != 0 {
					got = f.appendStated(stated, add, extra, bits)
					n++
				}
				want := slices.Clone(sv.Transfers[j.ID])
				for _, m := range extra {
					if slices.Contains(j.TransferMechanisms, m) && !slices.Contains(want, m) {
						want = append(want, m)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s in %s with %v: stated %v, want %v", sv.ID, j.ID, extra, got, want)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no safeguard added")
	}
}
