package policy

import (
	"fmt"
	"slices"
	"testing"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// inlinesText is the plain text of runs.
func inlinesText(ins []Inline) string {
	s := ""
	for _, in := range ins {
		s += in.Text
	}
	return s
}

// TestSafeguardCells: a transfer table makes each distinct safeguard cell
// once and shares it between rows, keyed by the safeguard and the
// mechanisms stated; beyond the cells it remembers, it still makes the
// right cell for every row.
func TestSafeguardCells(t *testing.T) {
	req := Request{Type: "privacy", BusinessName: "Cells Ltd", WebsiteURL: "https://cells.example", BusinessType: "ecommerce",
		Language: "en", Jurisdiction: "UK", Format: "markdown", ThirdPartyServices: []string{"stripe"}}
	completeRequest(&req)
	st := new(state)
	if _, _, _, err := st.compose(req, false); err != nil {
		t.Fatal(err)
	}
	b := &st.b
	j := &b.f.Jurisdiction
	b.regime = j
	w := &b.regimeWords().transfer
	var sc safeguardCells
	idta := []string{"uk_idta"}
	first := sc.cell(b, w, j, safeguardOther, idta)
	if got, want := inlinesText(first), "The UK International Data Transfer Agreement."; got != want {
		t.Fatalf("cell = %q, want %q", got, want)
	}
	// The same key from another list (another service's) is the same cell.
	again := sc.cell(b, w, j, safeguardOther, []string{"uk_idta"})
	if &again[0] != &first[0] {
		t.Error("a second row with the same safeguard made its cell again")
	}
	// Another safeguard with the same mechanisms is another cell.
	if dpf := sc.cell(b, w, j, safeguardDPF, idta); inlinesText(dpf) == inlinesText(first) {
		t.Errorf("the DPF cell reads as the cell without it: %q", inlinesText(dpf))
	}
	// More distinct keys than the memo holds: each is still right.
	for k := range 2 * len(sc.cells) {
		stated := []string{"uk_addendum", fmt.Sprint("m", k)}
		got := inlinesText(sc.cell(b, w, j, safeguardOther, stated))
		want := inlinesText(b.safeguardCell(w, j, safeguardOther, stated))
		if got != want {
			t.Errorf("key %d: cell %q, want %q", k, got, want)
		}
	}
}

// wordsBuilder is the builder that has composed, in Markdown, the
// document of a marketplace for four jurisdictions that uses
// serviceMix's services.
func wordsBuilder(t *testing.T) *builder {
	req := Request{Type: "privacy", BusinessName: "Words Ltd", WebsiteURL: "https://words.example", BusinessType: "marketplace",
		Language: "en", Jurisdiction: "EU,UK,US-CA,AU", Format: "markdown", CollectsPayments: true, CollectsUserData: true,
		UsesAnalytics: true, ThirdPartyServices: serviceMix(mustCatalog(t))}
	completeRequest(&req)
	st := new(state)
	if _, _, _, err := st.compose(req, false); err != nil {
		t.Fatal(err)
	}
	return &st.b
}

// TestCatalogWords: the words compiled with the library for the catalog's
// purposes, data categories and jurisdictions, found by the facts'
// catalog positions, are the labels the builder would look up by key.
func TestCatalogWords(t *testing.T) {
	b := wordsBuilder(t)
	f := b.f
	if len(f.Purposes) < 2 || len(f.Categories) < 2 || len(f.Jurisdictions) != 4 {
		t.Fatalf("facts too small to test: %d purposes, %d categories, %d jurisdictions", len(f.Purposes), len(f.Categories), len(f.Jurisdictions))
	}
	for i := range f.Purposes {
		id := f.Purposes[i].ID
		for kind, suffix := range purposeLabelSuffix {
			if got, want := b.purposeLabel(i, kind), b.label3("purpose.", id, suffix); got != want {
				t.Errorf("purpose %s%s: %q, want %q", id, suffix, got, want)
			}
		}
		w := &b.words.purposes[f.Purposes[i].pos]
		if want, ok := b.lookupLabel("purpose.", id, ".withoutData"); w.withoutData != want || w.hasWithoutData != ok {
			t.Errorf("purpose %s.withoutData: %q %v, want %q %v", id, w.withoutData, w.hasWithoutData, want, ok)
		}
	}
	// The CCPA names of a set of purposes, each once, in catalog order.
	var all posSet
	var want []string
	for i := range f.Purposes {
		all.add(f.Purposes[i].pos)
		want = addUnique(want, b.label3("purpose.", f.Purposes[i].ID, ".ccpa"))
	}
	if got := b.ccpaPurposeNames(&all, nil); !slices.Equal(got, want) {
		t.Errorf("CCPA names %q, want %q", got, want)
	}
	for k := range f.Categories {
		if got, want := b.categoryName(k), b.label2("category.", f.Categories[k].ID); got != want {
			t.Errorf("category %s: %q, want %q", f.Categories[k].ID, got, want)
		}
		checkLowerRuns(t, "category "+f.Categories[k].ID, b.words.categoriesLower[f.Categories[k].pos], b.categoryName(k))
	}
	// The summary's short names: each purpose's, lower-cased, and the
	// first purpose that reads alike, in catalog order.
	for i := range b.words.purposes {
		w := &b.words.purposes[i]
		checkLowerRuns(t, "purpose "+w.labels[purposeShort], w.shortLower, w.labels[purposeShort])
		first := slices.IndexFunc(b.words.purposes, func(o purposeWords) bool {
			return lowerFirstString(o.labels[purposeShort]) == lowerFirstString(w.labels[purposeShort])
		})
		if w.shortFirst != first {
			t.Errorf("purpose %q: shortFirst %d, want %d", w.labels[purposeShort], w.shortFirst, first)
		}
	}
	for i := range f.Jurisdictions {
		j := &f.Jurisdictions[i]
		w := &b.words.jurisdictions[f.scr.jpos[i]]
		if got, want := inlinesText(w.region), b.label2("region.", j.ID); got != want {
			t.Errorf("region of %s: %q, want %q", j.ID, got, want)
		}
		if a := j.Authority; a != nil && (inlinesText(w.authorityName) != a.Name || w.authorityURL[0].URL != a.URL) {
			t.Errorf("authority of %s: %v %v, want %v", j.ID, w.authorityName, w.authorityURL, *a)
		}
	}
	// A regime's words: a listed one's by the document's positions, one
	// the document does not list by its catalog position, and an unknown
	// one's are the document's own jurisdiction's.
	defer func(r *catalog.Jurisdiction) { b.regime = r }(b.regime)
	for _, tc := range []struct{ regime, want string }{{"UK", "UK"}, {"US-CA", "US-CA"}, {"BR", "BR"}, {"XX", f.Jurisdiction.ID}} {
		b.regime = &catalog.Jurisdiction{ID: tc.regime}
		if got, want := inlinesText(b.regimeWords().region), b.label2("region.", tc.want); got != want {
			t.Errorf("regime %s: words of region %q, want %q (%s's)", tc.regime, got, want, tc.want)
		}
	}
	if len(f.Laws) < 4 {
		t.Fatalf("%d laws, too few to test", len(f.Laws))
	}
	named := 0
	for i := range f.Laws {
		l := &f.Laws[i]
		if b.lib.lawAt(l) < 0 {
			t.Errorf("law %s is not numbered by the library", l.ID)
		}
		if got, want := b.lawNames[i], b.label2("law.", l.ID); got != want {
			t.Errorf("law %s: %q, want %q", l.ID, got, want)
		}
		if b.lawNames[i] != "" {
			named++
		}
	}
	if named == 0 {
		t.Errorf("%d of %d laws named", named, len(f.Laws))
	}
	// A law made in code, without its position, is found by its id.
	if got, want := b.lawName(&compliance.Law{ID: "gdpr"}), b.label("law.gdpr"); got != want || got == "" {
		t.Errorf("GDPR without its position: %q, want %q", got, want)
	}
}

// composeState composes req in fresh memory and returns the state, whose
// builder holds the document's words.
func composeState(t *testing.T, req Request) *state {
	t.Helper()
	completeRequest(&req)
	st := new(state)
	if _, _, _, err := st.compose(req, false); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSharedCells: the tables' cells of a service's name, and the
// services table's of the categories a service receives and of its
// role, are made once per document and shared by the rows they are the
// same for, and read as made anew.
func TestSharedCells(t *testing.T) {
	c := mustCatalog(t)
	st := composeState(t, Request{Type: "privacy", BusinessName: "Cells Ltd", WebsiteURL: "https://cells.example", BusinessType: "marketplace",
		Language: "en", Jurisdiction: "EU", Format: "markdown", CollectsPayments: true, CollectsUserData: true,
		UsesAnalytics: true, ThirdPartyServices: serviceMix(c)})
	b := &st.b
	f := b.f
	shared := 0
	for i := range f.Services {
		var names []string
		for k := range f.Categories {
			if f.Categories[k].recipientSet.has(i) {
				names = append(names, b.categoryName(k))
			}
			if has := b.receivedOf(i)>>k&1 == 1; has != f.Categories[k].recipientSet.has(i) {
				t.Errorf("%s: receivedOf says %v of %s", f.Services[i].ID, has, f.Categories[k].ID)
			}
		}
		got := b.receivedBy(i)
		if want := inlinesText(b.join(names)); inlinesText(got) != want {
			t.Errorf("%s receives %q, want %q", f.Services[i].ID, inlinesText(got), want)
		}
		for j := range i {
			if other := b.receivedBy(j); inlinesText(other) == inlinesText(got) {
				if &other[0] != &got[0] {
					t.Errorf("%s and %s receive the same categories in cells of their own", f.Services[j].ID, f.Services[i].ID)
				}
				shared++
				break
			}
		}
	}
	if shared == 0 {
		t.Error("no two services receive the same categories: the test shows nothing")
	}
	names := b.serviceNames()
	for i := range f.Services {
		if got := inlinesText(names[i]); got != f.Services[i].Name {
			t.Errorf("service %d's name cell %q, want %q", i, got, f.Services[i].Name)
		}
	}
	if again := b.serviceNames(); &again[0][0] != &names[0][0] {
		t.Error("the services' name cells made twice")
	}
	p := b.roleCell("processor")
	if got, want := inlinesText(p), b.label("role.processor"); got != want {
		t.Errorf("role cell %q, want %q", got, want)
	}
	if again := b.roleCell("processor"); &again[0] != &p[0] {
		t.Error("the same role's cell made twice")
	}
	if c := b.roleCell("controller"); inlinesText(c) == inlinesText(p) {
		t.Errorf("controller reads as processor: %q", inlinesText(c))
	}
}

// TestJurisdictionVars: each listed jurisdiction's placeholder values,
// made when first asked for (after the document has taken the primary
// jurisdiction's words), differ from the document's only in the
// jurisdiction's own words: the placeholders speaksOfJurisdiction
// knows, so that build may leave any jurisdiction's values current for a
// clause that names none of them.
func TestJurisdictionVars(t *testing.T) {
	st := composeState(t, Request{Type: "privacy", BusinessName: "Vars Ltd", WebsiteURL: "https://vars.example", BusinessType: "ecommerce",
		Language: "en", Jurisdiction: "BR,CH,EU,UK,US-CA,US-VA", Format: "markdown", CollectsUserData: true})
	b := &st.b
	own := map[int]bool{}
	for ph := range numPlaceholders {
		own[ph] = speaksOfJurisdiction([]line{{segs: []segment{{ph: ph}}}})
	}
	if len(b.f.Jurisdictions) != 6 {
		t.Fatalf("%d jurisdictions, want 6", len(b.f.Jurisdictions))
	}
	for i := range b.f.Jurisdictions {
		j := &b.f.Jurisdictions[i]
		v := b.jurisdictionVars(i)
		if got, want := inlinesText(v[phRegion].ins), b.label2("region.", j.ID); got != want {
			t.Errorf("%s: region %q, want %q", j.ID, got, want)
		}
		if a := j.Authority; a != nil && inlinesText(v[phAuthorityName].ins) != a.Name {
			t.Errorf("%s: authority %q, want %q", j.ID, inlinesText(v[phAuthorityName].ins), a.Name)
		}
		for ph := range v {
			if own[ph] {
				continue
			}
			if got, want := v[ph], b.base[ph]; got.ok != want.ok || inlinesText(got.ins) != inlinesText(want.ins) {
				t.Errorf("%s: {%s} = %q, the document's %q", j.ID, placeholderNames[ph], inlinesText(got.ins), inlinesText(want.ins))
			}
		}
	}
	if v := b.jurisdictionVars(0); inlinesText(v[phLawShort].ins) != "LGPD" {
		t.Errorf("Brazil's law is %q, want LGPD", inlinesText(v[phLawShort].ins))
	}
}

// TestSpeaksOfJurisdiction: a clause line may read differently in a
// listed jurisdiction's words when it is a generator's or names one of
// the jurisdiction's own placeholders, and not otherwise; the compiled
// library marks its clauses so.
func TestSpeaksOfJurisdiction(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  bool
	}{
		{[]string{"We are {businessName}.", "- Write to {contactEmail}."}, false},
		{[]string{"We are {businessName}.", "Under {lawShort} you may object."}, true},
		{[]string{"!Complain to {authorityName} ({authorityURL})."}, true},
		{[]string{"- Our representative: {representative}."}, true},
		{[]string{"@transfers"}, true},
		{[]string{"No placeholders at all."}, false},
	} {
		var lines []line
		for _, s := range tc.lines {
			lines = append(lines, compileLine(s))
		}
		if got := speaksOfJurisdiction(lines); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.lines, got, tc.want)
		}
	}
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	var some, none int
	for _, p := range lib.compiled.programs {
		for si := range p.sections {
			for ci := range p.sections[si].clauses {
				c := &p.sections[si].clauses[ci]
				if c.jurisdictional != speaksOfJurisdiction(c.lines) {
					t.Fatalf("clause %s: jurisdictional %v", c.id, c.jurisdictional)
				}
				if c.jurisdictional {
					some++
				} else {
					none++
				}
			}
		}
	}
	if some == 0 || none == 0 {
		t.Errorf("%d jurisdictional clauses and %d others, want some of each", some, none)
	}
}

// TestHeaderCells: every table's header compiled for every language has
// each column's label, in the order of its keys, and each CCPA
// category's cell its label.
func TestHeaderCells(t *testing.T) {
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	if len(tableHeaders) == 0 {
		t.Fatal("no table headers declared")
	}
	for lang, w := range lib.compiled.words {
		labels := lib.Texts[lang].Labels
		for i, letter := range ccpaLetters {
			want, ok := labels["ccpa."+letter]
			if got := w.ccpaLetters[i][escNone].Text; !ok || got != want {
				t.Errorf("%s: CCPA category %s is %q, want %q", lang, letter, got, want)
			}
		}
		for _, h := range tableHeaders {
			cells := w.headers[h.n]
			if len(cells) != len(h.keys) {
				t.Fatalf("%s: header %v has %d cells", lang, h.keys, len(cells))
			}
			for i, k := range h.keys {
				want, ok := labels["table."+k]
				if !ok || want == "" {
					t.Errorf("%s: no label table.%s", lang, k)
				}
				if got := inlinesText(cells[i]); got != want {
					t.Errorf("%s: header %v column %d is %q, want %q", lang, h.keys, i, got, want)
				}
			}
		}
	}
}

// TestCCPAPurposeNames: purposes that share a CCPA name are named once,
// where the first of them is, by the words compiled for the catalog.
func TestCCPAPurposeNames(t *testing.T) {
	c := &catalog.Catalog{Purposes: []catalog.Purpose{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}}
	w := compileWords(&Wording{Labels: map[string]string{
		"purpose.a.ccpa": "X", "purpose.b.ccpa": "Y", "purpose.c.ccpa": "X", "purpose.d.ccpa": "Z",
	}}, c, nil)
	for i, want := range []int{0, 1, 0, 3} {
		if got := w.purposes[i].ccpaFirst; got != want {
			t.Errorf("purpose %d: ccpaFirst %d, want %d", i, got, want)
		}
	}
	f := &Facts{}
	for i := range c.Purposes {
		f.Purposes = append(f.Purposes, PurposeFact{Purpose: c.Purposes[i], pos: i})
	}
	b := &builder{f: f, words: w}
	var set posSet
	for _, pos := range []int{1, 2, 3, 0} {
		set.add(pos)
	}
	if got, want := b.ccpaPurposeNames(&set, nil), []string{"X", "Y", "Z"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	set = posSet{}
	set.add(2)
	set.add(3)
	if got, want := b.ccpaPurposeNames(&set, nil), []string{"X", "Z"}; !slices.Equal(got, want) {
		t.Errorf("names of c and d %q, want %q", got, want)
	}
}

// checkLowerRuns checks that r is s with a lower-case first letter in
// every format, escaped for the formats that escape.
func checkLowerRuns(t *testing.T, what string, r lowerRuns, s string) {
	t.Helper()
	low := lowerFirstString(s)
	for esc, want := range [3]string{low, mdEscape(low), htmlEscape(low)} {
		got := ""
		for _, in := range r[esc] {
			if in.esc != uint8(esc) {
				t.Errorf("%s: run %q escaped as %d, want %d", what, in.Text, in.esc, esc)
			}
			if esc == int(escNone) {
				got += in.Text
			} else {
				got += in.URL
			}
		}
		if got != want {
			t.Errorf("%s: format %d: %q, want %q", what, esc, got, want)
		}
	}
}

// TestCompiledTableWords: the words compiled with the library for the
// tables read as the labels do. A transfer table's words and its
// adequacy column are the jurisdiction's own where it has them (the UK's
// "adequacy regulations"), the header's other cells the general ones; a
// provider cell reads as its pieces do, with the EU entity only where the
// jurisdiction names it, escaped in each format as its text is.
func TestCompiledTableWords(t *testing.T) {
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	c := mustCatalog(t)
	en := lib.Texts["en"]
	w := lib.compiled.words["en"]
	general := w.headers[transfersHeader.n]
	for i := range c.Jurisdictions {
		id := c.Jurisdictions[i].ID
		jw := &w.jurisdictions[i]
		want := en.Labels["table.adequacy"]
		if v, ok := en.Labels["table.adequacy."+id]; ok {
			want = v
		}
		h := jw.transferHeader
		if got := inlinesText(h[2]); got != want {
			t.Errorf("%s: adequacy column %q, want %q", id, got, want)
		}
		if &h[0][0] != &general[0][0] || &h[3][0] != &general[3][0] {
			t.Errorf("%s: the transfer header does not share the general header's cells", id)
		}
		if jw.transferHead == nil || jw.transferHead.cells != &h[0] {
			t.Errorf("%s: the transfer header is not rendered with the library", id)
		}
		wantYes := en.Labels["adequacy.yes"]
		if v, ok := en.Labels["adequacy.yes."+id]; ok {
			wantYes = v
		}
		if jw.transfer.adequacy[adequacyYes][escNone].Text != wantYes || jw.transfer.safeguardNone[escNone].Text != en.Labels["safeguard.unknown"] ||
			jw.transfer.adequacy[adequacyYes][escMarkdown].URL != mdEscape(wantYes) {
			t.Errorf("%s: transfer words %+v", id, jw.transfer)
		}
	}
	if uk := slices.IndexFunc(c.Jurisdictions, func(j catalog.Jurisdiction) bool { return j.ID == "UK" }); uk < 0 ||
		inlinesText(w.jurisdictions[uk].transferHeader[2]) != en.Labels["table.adequacy.UK"] {
		t.Error("the UK's transfer table is not worded by the UK's law")
	}
	withEntity, noDuration := 0, 0
	for i := range c.Services {
		s := &c.Services[i]
		sw := w.services[s]
		if sw == nil {
			t.Fatalf("%s: no provider cell", s.ID)
		}
		cells := &sw.provider
		for eu := range cells {
			parts := providerParts(s, eu == 1, func(code string) string {
				if n := en.Labels["country."+code]; n != "" {
					return n
				}
				return CountryName(code)
			}, en.Labels["country.unknown"], nil)
			want := ""
			for _, p := range parts {
				want += p
			}
			cell := cells[eu]
			if cell[escNone].Text != want || cell[escMarkdown].URL != mdEscape(want) || cell[escHTML].URL != htmlEscape(want) {
				t.Errorf("%s (EU entity %v): cell %q, want %q", s.ID, eu == 1, cell[escNone].Text, want)
			}
		}
		if cells[0][escNone].Text != cells[1][escNone].Text {
			withEntity++
		}
		// The purpose and cookie cells: the catalog's words, the
		// language's where it gives no duration.
		checkRuns := func(what string, r *escRuns, want string) {
			if r[escNone].Text != want || r[escMarkdown].URL != mdEscape(want) || r[escHTML].URL != htmlEscape(want) {
				t.Errorf("%s: %s cell %+v, want %q", s.ID, what, *r, want)
			}
		}
		checkRuns("purpose", &sw.purpose, s.Purpose)
		if len(sw.cookies) != len(s.Cookies) {
			t.Fatalf("%s: %d cookies' cells for %d cookies", s.ID, len(sw.cookies), len(s.Cookies))
		}
		for k, ck := range s.Cookies {
			duration := ck.Duration
			if duration == "" {
				duration = en.Labels["cookie.durationUnknown"]
				noDuration++
			}
			cw := &sw.cookies[k]
			checkRuns("cookie name", &cw.name, ck.Name)
			checkRuns("cookie purpose", &cw.purpose, ck.Purpose)
			checkRuns("cookie duration", &cw.duration, duration)
		}
	}
	if noDuration == 0 {
		t.Error("no catalog cookie lacks a duration; the test needs one that does")
	}
	for i := range c.Purposes {
		pw := &w.purposes[i]
		for k := range pw.labels {
			if r := &pw.runs[k]; r[escNone].Text != pw.labels[k] || r[escMarkdown].URL != mdEscape(pw.labels[k]) || r[escHTML].URL != htmlEscape(pw.labels[k]) {
				t.Errorf("purpose %s: label %d's runs %+v, want %q", c.Purposes[i].ID, k, *r, pw.labels[k])
			}
		}
	}
	if withEntity == 0 {
		t.Error("no catalog service names an EU entity; the test needs one that does")
	}
}

// TestEscapedRuns checks every run the builder hands over already
// escaped (Inline.esc) against escaping its text, in a document for
// many jurisdictions in each format that escapes, and that the transfer
// and category cells are among them.
func TestEscapedRuns(t *testing.T) {
	c := mustCatalog(t)
	for _, format := range []string{"markdown", "html"} {
		req := Request{Type: "privacy", BusinessName: "Runs Ltd", WebsiteURL: "https://runs.example", BusinessType: "marketplace",
			Language: "en", Jurisdiction: "EU,UK,CH,BR,US-CA", Format: format, CollectsPayments: true, CollectsUserData: true,
			UsesAnalytics: true, ThirdPartyServices: serviceMix(c)}
		completeRequest(&req)
		st := new(state)
		doc, _, _, err := st.compose(req, false)
		if err != nil {
			t.Fatal(err)
		}
		want, escape := escMarkdown, mdEscape
		if format == "html" {
			want, escape = escHTML, htmlEscape
		}
		var cells, plainCells int
		check := func(ins []Inline, cell bool) {
			for _, in := range ins {
				if in.Kind != Plain {
					continue
				}
				if in.esc == escNone {
					if cell {
						plainCells++
					}
					continue
				}
				if cell {
					cells++
				}
				if in.esc != want || in.URL != escape(in.Text) {
					t.Errorf("%s: run %q carries %d %q", format, in.Text, in.esc, in.URL)
				}
			}
		}
		for _, blk := range doc.Blocks {
			check(blk.Inlines, false)
			for _, it := range blk.Items {
				check(it, false)
			}
			for _, r := range blk.Rows {
				for _, cell := range r {
					check(cell, true)
				}
			}
		}
		if cells < 2*plainCells {
			t.Errorf("%s: %d escaped runs in cells, %d not", format, cells, plainCells)
		}
	}
}

// TestServiceCellsOfAnotherCatalog: the services and cookie tables of
// services the library compiled no cells for (serviceWords: a catalog
// other than the library's) read as those of the catalog's own, made
// for the document instead of copied from the library.
func TestServiceCellsOfAnotherCatalog(t *testing.T) {
	b := wordsBuilder(t)
	tables := func() (services, cookies [][][]Inline) {
		genServices(b)
		genCookies(b)
		n := len(b.blocks)
		return b.blocks[n-2].Rows, b.blocks[n-1].Rows
	}
	wantServices, wantCookies := tables()
	for i := range b.f.Services {
		other := *b.f.Services[i].Service
		b.f.Services[i].Service = &other
	}
	gotServices, gotCookies := tables()
	for _, tc := range []struct {
		name      string
		got, want [][][]Inline
		compiled  []int // columns whose cells are the library's
	}{{"services", gotServices, wantServices, []int{1, 2}}, {"cookies", gotCookies, wantCookies, []int{0, 2, 3}}} {
		if len(tc.got) != len(tc.want) || len(tc.want) == 0 {
			t.Fatalf("%s: %d rows, want %d (and some)", tc.name, len(tc.got), len(tc.want))
		}
		library := 0 // cells of the compiled columns that are the library's
		for i := range tc.want {
			for k := range tc.want[i] {
				if got, want := inlinesText(tc.got[i][k]), inlinesText(tc.want[i][k]); got != want {
					t.Errorf("%s row %d cell %d: %q, want %q", tc.name, i, k, got, want)
				}
			}
			for _, k := range tc.compiled {
				if tc.want[i][k][0].esc == escMarkdown {
					library++
				}
				if tc.got[i][k][0].esc != escNone {
					t.Errorf("%s row %d cell %d: the other catalog's service has a compiled cell", tc.name, i, k)
				}
			}
		}
		if library < len(tc.want) {
			t.Errorf("%s: %d of the compiled columns' cells are the library's; want one a row at least", tc.name, library)
		}
	}
}
