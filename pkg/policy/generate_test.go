package policy

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// matrixOnly narrows the matrix tests to some jurisdictions while their
// data is written (go test ./pkg/policy -run TestMatrix -matrix.only BR,CH);
// the full matrix runs without it.
var matrixOnly = flag.String("matrix.only", "", "comma-separated jurisdiction ids the matrix tests cover (default all)")

// matrixJurisdictions are the jurisdictions the matrix tests cover: each
// one, and documents for several markets (matrixCombinations).
func matrixJurisdictions(c *catalog.Catalog) []string {
	if *matrixOnly != "" {
		return strings.Split(*matrixOnly, ",")
	}
	return append(c.JurisdictionIDs(), matrixCombinations(c)...)
}

// matrixCombinations are multi-jurisdiction requests in canonical form:
// each jurisdiction without its own transfer regime with one that has one
// (in turn), every jurisdiction without one together with the first that
// has one, the transfer regimes together, and every jurisdiction at once.
func matrixCombinations(c *catalog.Catalog) []string {
	var regimes, others []string
	for _, j := range c.Jurisdictions {
		if len(j.TransferMechanisms) > 0 {
			regimes = append(regimes, j.ID)
		} else {
			others = append(others, j.ID)
		}
	}
	canonical := func(ids ...string) string {
		order := c.JurisdictionIDs()
		slices.SortFunc(ids, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
		return strings.Join(ids, ",")
	}
	var out []string
	for i, o := range others {
		if len(regimes) > 0 {
			out = append(out, canonical(o, regimes[i%len(regimes)]))
		}
	}
	if len(others) > 1 {
		all := slices.Clone(others)
		if len(regimes) > 0 {
			all = append(all, regimes[0])
		}
		out = append(out, canonical(all...))
	}
	if len(regimes) > 1 {
		out = append(out, canonical(slices.Clone(regimes)...))
		out = append(out, canonical(append(slices.Clone(regimes), others...)...))
	}
	return out
}

func mustCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLibrary checks the clause library against the checklists: parity of
// every language, known conditions, placeholders and generators, and that
// every requirement id a clause claims exists.
func TestLibrary(t *testing.T) {
	laws, err := compliance.Laws()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.Check(laws); err != nil {
		t.Fatal(err)
	}
	// setVars makes the contract documents' and the shipping policy's
	// values only for a program whose lines name them, so no label may
	// name them but the one contractVars expands itself.
	for lang, labels := range lib.compiled.labels {
		for key, segs := range labels {
			if key == "governingLaw.text" || strings.HasPrefix(key, "governingLaw.text.") {
				continue
			}
			if namesAny([]line{{segs: segs}}, contractPlaceholders) || namesAny([]line{{segs: segs}}, shippingPlaceholders) {
				t.Errorf("%s label %s names a placeholder only some programs are given", lang, key)
			}
		}
	}
	for typ, want := range map[string][2]bool{"privacy": {false, false}, "terms": {true, false}, "refund": {true, false}, "shipping": {false, true}} {
		if p := lib.compiled.programs[[2]string{typ, "en"}]; p.contractWords != want[0] || p.shippingWords != want[1] {
			t.Errorf("%s: contract and shipping words %v %v, want %v", typ, p.contractWords, p.shippingWords, want)
		}
	}
	c := mustCatalog(t)
	for _, lang := range c.Languages {
		w, ok := lib.Texts[lang]
		if !ok {
			t.Fatalf("catalog language %s has no clause text", lang)
		}
		// Every vocabulary entry the generators may name has a label.
		var keys []string
		for _, d := range c.DataCategories {
			keys = append(keys, "category."+d.ID, "category."+d.ID+".examples")
			for _, l := range d.CCPA {
				keys = append(keys, "ccpa."+l)
			}
		}
		for _, p := range c.Purposes {
			keys = append(keys, "purpose."+p.ID, "purpose."+p.ID+".retention", "purpose."+p.ID+".short", "purpose."+p.ID+".ccpa", "basis."+p.GDPRBasis)
			if p.GDPRBasis == "legitimate_interests" {
				keys = append(keys, "purpose."+p.ID+".interest")
			}
		}
		for _, s := range c.ServiceCategories {
			keys = append(keys, "serviceCategory."+s.ID)
		}
		// Country names come from CLDR; a code must name a country.
		for _, s := range c.Services {
			for _, code := range append([]string{s.ProviderCountry}, s.AccessCountries...) {
				if code != "" && CountryName(code) == code {
					t.Errorf("service %s: %q is not a country code", s.ID, code)
				}
			}
		}
		for _, j := range c.Jurisdictions {
			keys = append(keys, "region."+j.ID)
		}
		for _, k := range keys {
			if w.Labels[k] == "" {
				t.Errorf("language %s: no label %q", lang, k)
			}
		}
	}
	for _, typ := range c.Types {
		if lib.Structures[typ] == nil {
			t.Errorf("catalog type %s has no clause structure", typ)
		}
	}
}

func TestLibraryCheckFindsProblems(t *testing.T) {
	laws, _ := compliance.Laws()
	lib := &Library{
		Structures: map[string]*Structure{"privacy": {Type: "privacy", Sections: []Section{{ID: "s", Clauses: []Clause{
			{ID: "a", When: []string{"sunny"}, Satisfies: []string{"no.such.requirement"}},
			{ID: "b"},
		}}}}},
		Texts: map[string]*Wording{
			"en": {Language: "en", Titles: map[string]string{"privacy": "P"}, Sections: map[string]string{"s": "S"},
				Clauses: map[string][]string{"a": {"{nope}"}, "b": {"@nothing"}}, Labels: map[string]string{"x": "y"}},
			"de": {Language: "de", Titles: map[string]string{"privacy": "P"}, Sections: map[string]string{"s": "S"},
				Clauses: map[string][]string{"a": {"ok"}}, Labels: map[string]string{}},
		},
	}
	err := lib.Check(laws)
	if err == nil {
		t.Fatal("Check passed a broken library")
	}
	for _, want := range []string{`unknown condition "sunny"`, `unknown requirement "no.such.requirement"`,
		"unknown placeholder {nope}", "unknown generator @nothing", "language de: no text for clause b", "language de: label x missing"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error lacks %q:\n%v", want, err)
		}
	}
}

// serviceSubsets returns the service lists the matrix runs: none, each
// service alone, all of them, and one of each category.
// TestMatrix generates every jurisdiction x business type x flag
// combination x service subset x contact details given or not, and demands
// that every checklist item that applies is satisfied by a clause of the
// document (no gap), with the evidence pointing at a section present in it.
func TestMatrix(t *testing.T) {
	laws, err := compliance.Laws()
	if err != nil {
		t.Fatal(err)
	}
	c := mustCatalog(t)
	n := 0
	for name, req := range matrixRequests(c) {
		checkOne(t, name, req, laws)
		n++
	}
	t.Logf("%d documents generated without a gap or a missing checklist item", n)
	t.Log(matrixSample(c))
}

// matrixFull runs the whole product (slow: minutes) instead of the sample.
var matrixFull = flag.Bool("matrix.full", false, "every type x jurisdiction x business type (default: a rotating sample of business types)")

// matrixBusinessTypes is how many business types each type x jurisdiction
// pair is tried with when sampling.
const matrixBusinessTypes = 2

// matrixPairBusinessTypes are the business types the p-th type x
// jurisdiction pair is tried with: consecutive pairs take consecutive
// business types, so that every business type meets many types and
// jurisdictions, and the full product is -matrix.full.
func matrixPairBusinessTypes(c *catalog.Catalog, p int) []string {
	all := c.BusinessTypeIDs()
	if *matrixFull {
		return all
	}
	out := make([]string, matrixBusinessTypes)
	for i := range out {
		out[i] = all[(p*matrixBusinessTypes+i)%len(all)]
	}
	return out
}

// matrixTypes are the document types the matrix covers: every one.
func matrixTypes(c *catalog.Catalog) []string { return c.Types }

// matrixSample describes what matrixRequests generates.
func matrixSample(c *catalog.Catalog) string {
	var b strings.Builder
	types, js := matrixTypes(c), matrixJurisdictions(c)
	fmt.Fprintf(&b, "matrix: %d types x %d jurisdictions x business types (%d of %d per pair", len(types), len(js), len(matrixPairBusinessTypes(c, 0)), len(c.BusinessTypeIDs()))
	if !*matrixFull {
		b.WriteString(", rotating; -matrix.full for all")
	}
	fmt.Fprintf(&b, ") x 8 data-practice combinations x {no service, one per category} x {complete, incomplete}; privacy also every single service (each in every %dth jurisdiction) and all services\n", matrixServiceStride)
	p := 0
	for _, typ := range types {
		for _, j := range js {
			fmt.Fprintf(&b, "  %s/%s: %s\n", typ, j, strings.Join(matrixPairBusinessTypes(c, p), ", "))
			p++
		}
	}
	return b.String()
}

// matrixServiceStride spreads the single-service privacy requests: service
// i is tried in the jurisdictions j with j%stride == i%stride.
const matrixServiceStride = 4

// matrixRequests yields, for every document type and jurisdiction, complete
// and incomplete requests: each flag combination with no service and with
// one service of each category, for the pair's business types; and, for
// privacy, single services and all of them with every flag set. A complete
// request gives every optional input its documents need
// (TestCompleteInputIsReady).
func matrixRequests(c *catalog.Catalog) iter.Seq2[string, Request] {
	mix := serviceMix(c)
	return func(yield func(string, Request) bool) {
		one := func(typ, j, bt string, flags int, svcs []string, complete bool) bool {
			req := Request{
				Type: typ, BusinessName: "Matrix Ltd", WebsiteURL: "https://matrix.example",
				BusinessType: bt, Language: "en", Jurisdiction: j, Format: "markdown",
				CollectsPayments: flags&1 != 0, CollectsUserData: flags&2 != 0, UsesAnalytics: flags&4 != 0,
				ThirdPartyServices: svcs,
			}
			if complete {
				completeRequest(&req)
			}
			return yield(fmt.Sprintf("%s/%s/%s/flags=%03b/services=%v/complete=%v", typ, j, bt, flags, svcs, complete), req)
		}
		p := 0
		for _, typ := range matrixTypes(c) {
			for ji, j := range matrixJurisdictions(c) {
				bts := matrixPairBusinessTypes(c, p)
				p++
				for _, complete := range []bool{true, false} {
					for _, bt := range bts {
						for flags := range 8 {
							for _, svcs := range [][]string{{}, mix} {
								if !one(typ, j, bt, flags, svcs, complete) {
									return
								}
							}
						}
					}
					if typ != "privacy" {
						continue
					}
					for si, svcs := range serviceSubsets(c) {
						if !*matrixFull && si%matrixServiceStride != ji%matrixServiceStride {
							continue
						}
						if !one(typ, j, "ecommerce", 7, svcs, complete) {
							return
						}
					}
					if !one(typ, j, "ecommerce", 7, c.ServiceIDs(), complete) {
						return
					}
				}
			}
		}
	}
}

// completeRequest gives req every optional input a document may need.
func completeRequest(req *Request) {
	t, f := true, false
	req.ContactEmail, req.PostalAddress, req.Phone = "privacy@matrix.example", "1 Main St, Springfield", "+1 555 0100"
	req.HostingProvider = "aws"
	req.EstablishedIn = "US" // outside the EEA and the UK: representatives needed
	req.EURepresentative, req.UKRepresentative = "Rep EU Ltd, Dublin, rep@eu.example", "Rep UK Ltd, London, rep@uk.example"
	req.DPOContact = "dpo@matrix.example"
	req.ConsentBanner, req.OnlineOnly, req.SellsMinorsData, req.CCPAThresholdsMet, req.OptOutLink = &t, &f, &f, &t, &t
	req.TollFreeNumber = "(800) 555-0199"
	// Contract documents: the law and courts, the minimum age, and
	// renewing subscriptions described in full where payments are taken.
	req.GoverningLaw, req.MinimumAge = "GB-EAW", 18
	req.Subscriptions = subscriptionCases()["renews-online"]
	// Disclaimer (issue 8, t2): whether links earn the business anything.
	req.AffiliateLinks = &f
	// COPPA (issue 8, part j6): directed to children for an odd number of
	// the three data practices, so that both answers meet every practice
	// (and every service, tried with all three, gets the children's notice).
	dtc := req.CollectsPayments != req.CollectsUserData != req.UsesAnalytics
	req.DirectedToChildren = &dtc
	// Shipping policy (issue 8, t4): where the business ships and when.
	two := 2
	req.ShippingRegions, req.DispatchDays = []string{"worldwide"}, &two
	// Refund policy (issue 8, t3): a 30-day return window, postage paid by
	// the customer.
	days := 30
	req.RefundWindowDays, req.ReturnShippingPaidBy = &days, "customer"
	// Issue 8, part j1: a complete Canadian request serves Québec, so the
	// matrix covers Law 25 (an incomplete one covers PIPEDA alone).
	req.ServesQuebec, req.PrivacyOfficer = &t, "Privacy Officer, privacy@matrix.example"
	// A complete request names its analytics tool.
	c, _ := catalog.Default()
	named := slices.ContainsFunc(req.ThirdPartyServices, func(id string) bool {
		s, _ := c.Service(id)
		return s.Category == "analytics"
	})
	if req.UsesAnalytics && !named {
		req.ThirdPartyServices = append(slices.Clone(req.ThirdPartyServices), "google-analytics")
		slices.Sort(req.ThirdPartyServices)
	}
	// The business names the safeguard of every transfer the catalog
	// cannot place, for each transfer regime (eu_sccs, uk_idta, ch_sccs).
	facts, err := BuildFacts(*req)
	if err != nil {
		panic(err)
	}
	for i, r := range facts.Regimes {
		for k, s := range facts.Services {
			if out, basis := facts.transferOf(i, k); out && basis == basisNone {
				if req.TransferSafeguards == nil {
					req.TransferSafeguards = map[string][]string{}
				}
				req.TransferSafeguards[s.ID] = append(req.TransferSafeguards[s.ID], r.TransferMechanisms[1])
			}
		}
	}
}

// serviceSubsets is every single service.
func serviceSubsets(c *catalog.Catalog) [][]string {
	var subsets [][]string
	for _, s := range c.Services {
		subsets = append(subsets, []string{s.ID})
	}
	return subsets
}

// serviceMix is one service of each category.
func serviceMix(c *catalog.Catalog) []string {
	seen := map[string]bool{}
	var mix []string
	for _, s := range c.Services {
		if !seen[s.Category] {
			seen[s.Category] = true
			mix = append(mix, s.ID)
		}
	}
	return mix
}

// countPlaceholders counts the placeholders (missing inputs) in doc.
func countPlaceholders(doc *Document) int {
	n := 0
	for _, b := range doc.Blocks {
		for _, in := range allInlines(b) {
			if in.Kind == Missing {
				n++
			}
		}
	}
	return n
}

// TestCompleteInputIsReady: a complete request yields status ready and a
// document with no placeholder, for every jurisdiction and business type
// (and every service); an incomplete one with a placeholder is never ready.
func TestCompleteInputIsReady(t *testing.T) {
	n, ready := 0, 0
	for name, req := range matrixRequests(mustCatalog(t)) {
		facts, err := BuildFacts(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		doc, _, _, err := Compose(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		placeholders := countPlaceholders(doc)
		if f := emptyPlaceholder(doc); f != "" {
			t.Fatalf("%s: a placeholder in %q has no text: the language lacks its missing.<field> label", name, f)
		}
		status := Status(facts.Todos)
		complete := strings.HasSuffix(name, "complete=true")
		switch {
		case complete && (placeholders > 0 || status != StatusReady):
			t.Fatalf("%s: complete request: %d placeholders, status %s, todos %+v", name, placeholders, status, facts.Todos)
		case placeholders > 0 && status != StatusNeedsInput:
			t.Fatalf("%s: %d placeholders but status %s", name, placeholders, status)
		}
		n++
		if status == StatusReady {
			ready++
		}
	}
	t.Logf("%d documents, %d ready", n, ready)
}

// emptyPlaceholder returns the text of the first block holding a
// placeholder without text (which renders as an empty "****"), or "".
func emptyPlaceholder(doc *Document) string {
	for _, b := range doc.Blocks {
		for _, in := range allInlines(b) {
			if in.Kind == Missing && in.Text == "" {
				return plainText(allInlines(b))
			}
		}
	}
	return ""
}

func plainText(ins []Inline) string {
	var sb strings.Builder
	for _, in := range ins {
		sb.WriteString(in.Text)
	}
	return sb.String()
}

func allInlines(b Block) []Inline {
	out := slices.Clone(b.Inlines)
	for _, it := range b.Items {
		out = append(out, it...)
	}
	for _, r := range b.Rows {
		for _, c := range r {
			out = append(out, c...)
		}
	}
	return out
}

// templateMarker matches a "{placeholder}" (escaped or not) or an
// "@generator" line left in rendered output.
var templateMarker = regexp.MustCompile(`\\?\{[A-Za-z]+\\?\}|(^|\n)@[a-zA-Z]+`)

// TestNoTemplateMarkersOrEmptyCells: no document, in any format, shows a
// placeholder or generator that was not filled in, or a table cell with
// nothing in it.
func TestNoTemplateMarkersOrEmptyCells(t *testing.T) {
	for name, req := range matrixRequests(mustCatalog(t)) {
		doc, _, _, err := Compose(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, b := range doc.Blocks {
			if b.Kind != Table {
				continue
			}
			if len(b.Rows) == 0 {
				t.Fatalf("%s: section %s has a table without rows", name, b.Section)
			}
			for i, row := range b.Rows {
				if len(row) != len(b.Header) {
					t.Fatalf("%s: section %s row %d has %d cells, header %d", name, b.Section, i, len(row), len(b.Header))
				}
				for k, cell := range row {
					if strings.TrimSpace(inlineText(cell)) == "" {
						t.Fatalf("%s: section %s row %d cell %d is empty", name, b.Section, i, k)
					}
				}
			}
		}
		for _, f := range Formats {
			out, err := Render(doc, f, req.Language)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if f == "markdown" && (strings.Contains(out, "| |") || strings.Contains(out, "||")) {
				t.Fatalf("%s: markdown table with an empty cell", name)
			}
			// The regexp runs only where a marker could be (it is slow on
			// thousands of documents).
			if !strings.Contains(out, "{") && !strings.Contains(out, "\n@") {
				continue
			}
			if m := templateMarker.FindString(out); m != "" {
				t.Fatalf("%s: %s output contains the template marker %q", name, f, m)
			}
		}
	}
}

// TestFlagCitationsOnChecklists: every flag cites checklist items word for
// word, so each citation traces to docs/LEGAL_SOURCES.md.
// TestFlagsFromCatalog: every flag the matrix raises is a catalog code,
// under one of the document's laws (or a sector law), citing what the
// catalog says for that law.
func TestFlagsFromCatalog(t *testing.T) {
	seen := map[string]bool{}
	for name, req := range matrixRequests(mustCatalog(t)) {
		_, facts, _, err := Compose(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var laws []string
		for _, l := range facts.Laws {
			laws = append(laws, l.ShortName)
		}
		for _, f := range Assess(facts).Flags {
			seen[f.Code] = true
			d, ok := compliance.Lookup(f.Code)
			if !ok {
				t.Fatalf("%s: flag %s is not in the catalog", name, f.Code)
			}
			if !slices.Contains(laws, f.Law) && !slices.Contains(catalog.SectorLaws, f.Law) && f.Law != "CCPA" {
				t.Fatalf("%s: flag %s under %q, not a law of the document", name, f.Code, f.Law)
			}
			if c, _ := d.Citation(f.Law); c == "" || !strings.HasPrefix(f.Citation, c) {
				t.Fatalf("%s: flag %s cites %q, the catalog says %q", name, f.Code, f.Citation, c)
			}
		}
	}
	t.Logf("flag codes raised: %v", slices.Sorted(maps.Keys(seen)))
}

func inlineText(in []Inline) string {
	var b strings.Builder
	for _, i := range in {
		b.WriteString(i.Text)
	}
	return b.String()
}

func checkOne(t *testing.T, name string, req Request, laws []compliance.Law) {
	t.Helper()
	doc, facts, applicable, err := Compose(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// The facts the checklists' conditions read, worked out here from the
	// request and the catalog's entries by the rules the laws state, not
	// taken from the generator: a wrong fact fails here, before any golden
	// file. collectsSensitive and consentBasis follow from the data
	// categories and legal bases the generator assigns per purpose; the
	// checks below pin the cases the law fixes (see expectFacts).
	expected := expectFacts(t, req)
	for fact, v := range expected {
		if facts.Set[fact] != v {
			t.Fatalf("%s: fact %s = %v, want %v (from the request and the catalog)", name, fact, facts.Set[fact], v)
		}
	}
	// consentBasis must hold when analytics or advertising sets
	// non-essential cookies; otherwise it, and collectsSensitive, come from
	// the legal bases and data categories the generator assigns.
	if expected[compliance.FactSetsNonEssentialCookies] && (expected[compliance.FactUsesAnalytics] || usesAdvertising(t, req)) && !facts.Set[compliance.FactConsentBasis] {
		t.Fatalf("%s: non-essential analytics or advertising cookies without a consent basis", name)
	}
	expected[compliance.FactConsentBasis] = facts.Set[compliance.FactConsentBasis]
	// Every item of the jurisdiction's checklists whose conditions hold;
	// below the CCPA thresholds, only CalOPPA's.
	lawsHere := compliance.ForType(lawsFor(laws, JurisdictionIDs(req.Jurisdiction)), req.Type)
	if req.CCPAThresholdsMet != nil && !*req.CCPAThresholdsMet {
		lawsHere = slices.DeleteFunc(lawsHere, func(l compliance.Law) bool { return strings.HasPrefix(l.ID, "ccpa") })
	}
	// Quebec's Act only for a business that serves Québec (issue 8, j1).
	if req.ServesQuebec == nil || !*req.ServesQuebec {
		lawsHere = slices.DeleteFunc(lawsHere, func(l compliance.Law) bool { return l.ID == "quebec-law25" })
	}
	want := compliance.Applicable(lawsHere, expected)
	if len(want) != len(applicable) || len(want) == 0 {
		t.Fatalf("%s: %d applicable requirements, want %d", name, len(applicable), len(want))
	}
	sections := map[string]bool{}
	for _, b := range doc.Blocks {
		if b.Kind == Heading {
			sections[b.Section] = true
		}
	}
	for _, r := range want {
		i := slices.IndexFunc(doc.Evidence, func(e Evidence) bool { return e.Requirement == r.ID })
		if i < 0 {
			t.Fatalf("%s: requirement %s (%s) has no evidence", name, r.ID, r.Citation)
		}
		if !sections[doc.Evidence[i].Section] {
			t.Fatalf("%s: requirement %s points at section %s, which is not in the document", name, r.ID, doc.Evidence[i].Section)
		}
	}
	formats := []string{"markdown"}
	if req.CollectsPayments && req.CollectsUserData && req.UsesAnalytics {
		formats = Formats
	}
	for _, f := range formats {
		out, err := Render(doc, f, req.Language)
		if err != nil || !strings.Contains(out, "Matrix Ltd") {
			t.Fatalf("%s: render %s failed: %v", name, f, err)
		}
	}
}

// expectFacts derives the checklist facts of req independently of the
// generator:
//   - collectsPayments, usesAnalytics: the request's flag, or a named
//     service of that kind (a payment provider means payments are taken);
//   - hasThirdPartyServices: any service named;
//   - sellsOrShares (Cal. Civ. Code 1798.140(ad), (ah)): a named service the
//     catalog records as a CCPA third party, except payment providers, which
//     complete a transaction the consumer asked for;
//   - internationalTransfers (GDPR Chapter V): a named service whose provider
//     is outside the jurisdiction's countries;
//   - setsNonEssentialCookies (ePrivacy Art. 5(3), PECR reg. 6): a
//     non-essential service that sets or may set cookies, or analytics with
//     no named analytics tool (assumed to use cookies);
//
// consentBasis and collectsSensitive depend on the legal basis and data
// categories per purpose; checkOne checks the part the law fixes.
func expectFacts(t *testing.T, req Request) compliance.FactSet {
	t.Helper()
	c := mustCatalog(t)
	// Transfers are judged against the region of each listed jurisdiction
	// with its own transfer rules (EU, UK), or of the first listed when
	// none has them.
	var regions []catalog.Jurisdiction
	for _, id := range JurisdictionIDs(req.Jurisdiction) {
		j, ok := c.Jurisdiction(id)
		if !ok {
			t.Fatalf("unknown jurisdiction %s", id)
		}
		if len(j.TransferMechanisms) > 0 {
			regions = append(regions, j)
		}
	}
	if len(regions) == 0 {
		j, _ := c.Jurisdiction(JurisdictionIDs(req.Jurisdiction)[0])
		regions = append(regions, j)
	}
	services := slices.Clone(req.ThirdPartyServices)
	if req.HostingProvider != "" && !slices.Contains(services, req.HostingProvider) {
		services = append(services, req.HostingProvider)
	}
	f := compliance.FactSet{
		compliance.FactCollectsPayments:      req.CollectsPayments,
		compliance.FactUsesAnalytics:         req.UsesAnalytics,
		compliance.FactHasThirdPartyServices: len(services) > 0,
	}
	namedAnalytics := false
	var categories []string // data categories processed (for sensitive data)
	for _, id := range services {
		s, ok := c.Service(id)
		if !ok {
			t.Fatalf("unknown service %s", id)
		}
		switch s.Category {
		case "payments":
			f[compliance.FactCollectsPayments] = true
		case "analytics":
			f[compliance.FactUsesAnalytics] = true
			namedAnalytics = true
		}
		// A CCPA third party (§ 1798.140(ai)): recorded as one, or an
		// advertising or social service whose role is not recorded;
		// never a payment provider.
		if s.Category != "payments" && (s.CCPARole == catalog.RoleThirdParty || s.CCPARole == "" && (s.Category == "advertising" || s.Category == "social")) {
			f[compliance.FactSellsOrShares] = true
		}
		// A provider outside a region, of unknown country, or that
		// accesses the data from outside it, transfers it (Chapter V).
		for _, j := range regions {
			if !slices.Contains(j.Countries, s.ProviderCountry) || slices.ContainsFunc(s.AccessCountries, func(a string) bool { return !slices.Contains(j.Countries, a) }) {
				f[compliance.FactInternationalTransfers] = true
			}
		}
		if s.JointController != nil && *s.JointController {
			f[compliance.FactJointControllers] = true
		}
		categories = append(categories, s.DataCategories...)
		if !s.Essential && (len(s.Cookies) > 0 || s.SetsCookies == nil || *s.SetsCookies) {
			f[compliance.FactSetsNonEssentialCookies] = true
		}
	}
	if f[compliance.FactUsesAnalytics] && !namedAnalytics {
		f[compliance.FactSetsNonEssentialCookies] = true
	}
	// Sensitive personal information (Cal. Civ. Code § 1798.140(ae)(1)(B)):
	// log-in credentials or a card number with its security code, from
	// any source of data categories.
	categories = append(categories, c.Website.DataCategories...)
	if req.CollectsUserData {
		bt, _ := c.BusinessType(req.BusinessType)
		categories = append(categories, bt.DataCategories...)
	}
	if f[compliance.FactCollectsPayments] {
		categories = append(categories, c.Payments.DataCategories...)
	}
	for _, id := range categories {
		if id == "account_credentials" || id == "payment_details" {
			f[compliance.FactCollectsSensitive] = true
		}
	}
	f[compliance.FactAutomatedDecisions] = false
	// Subscriptions that renew automatically until cancelled, paid for.
	f[compliance.FactAutoRenews] = f[compliance.FactCollectsPayments] && req.Subscriptions.AutoRenewing()
	// The COPPA notice: only what the request says (issue 8, part j6).
	f[compliance.FactDirectedToChildren] = req.DirectedToChildren != nil && *req.DirectedToChildren
	return f
}

func usesAdvertising(t *testing.T, req Request) bool {
	c := mustCatalog(t)
	return slices.ContainsFunc(req.ThirdPartyServices, func(id string) bool {
		s, _ := c.Service(id)
		return s.Category == "advertising"
	})
}

// goldenRequests are representative requests whose rendered documents are
// checked in under testdata/ and reviewed in diffs: testdata/<name>.request.json
// gives testdata/<name>.{md,html,txt,flags}.golden. Adding a golden case
// is adding a request file (then -update and review).
var goldenRequests = loadGoldenRequests()

func loadGoldenRequests() map[string]string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.request.json"))
	if err != nil || len(files) == 0 {
		panic(fmt.Sprintf("no golden requests in testdata: %v", err))
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".request.json")] = string(b)
	}
	return out
}

func TestGolden(t *testing.T) {
	for name, body := range goldenRequests {
		req, err := ParseRequest([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, format := range Formats {
			req.Format = format
			res, err := Generate(req)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var flags bytes.Buffer
			fmt.Fprintf(&flags, "status: %s\nriskScore: %d\nriskLevel: %s\ntemplateVersion: %s\n", res.Status, res.RiskScore, res.RiskLevel, res.TemplateVersion)
			for _, td := range res.Todos {
				fmt.Fprintf(&flags, "todo %s [%s]\n", td.Field, td.Citation)
			}
			for _, f := range res.RiskFactors {
				fmt.Fprintf(&flags, "factor %s +%d\n", f.ID, f.Points)
			}
			for _, f := range res.Flags {
				fmt.Fprintf(&flags, "- %s %s [%s] %s", f.Severity, f.Code, f.Law, f.Citation)
				if f.Subject != "" {
					fmt.Fprintf(&flags, " (%s)", f.Subject)
				}
				flags.WriteString("\n")
			}
			evidence, err := EvidenceOf(res.Request)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range evidence {
				fmt.Fprintf(&flags, "evidence %s -> #%s (%s)\n", e.Requirement, e.Anchor, e.Clause)
			}
			ext := map[string]string{"markdown": "md", "html": "html", "text": "txt"}[format]
			golden(t, filepath.Join("testdata", name+"."+ext+".golden"), res.Content)
			if format == "markdown" {
				golden(t, filepath.Join("testdata", name+".flags.golden"), flags.String())
			}
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/policy -run TestGolden -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the generated output; review and rerun with -update.\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}

func TestDeterministic(t *testing.T) {
	for name, body := range goldenRequests {
		req, err := ParseRequest([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range Formats {
			req.Format = format
			a, err1 := Generate(req)
			b, err2 := Generate(req)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if a.Content != b.Content || fmt.Sprint(a.Flags) != fmt.Sprint(b.Flags) || a.RiskScore != b.RiskScore {
				t.Errorf("%s/%s: two generations differ", name, format)
			}
		}
	}
}

func TestEffectiveDate(t *testing.T) {
	req, _ := ParseRequest([]byte(goldenRequests["eu-ecommerce"]))
	// The golden request pins its date (so that a new template version
	// leaves the golden text as it is); the default is the template date.
	req.EffectiveDate = ""
	res, err := Generate(req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(TemplateVersion, templateDate.Format(DateLayout)+".") {
		t.Errorf("TemplateVersion %s does not start with templateDate %s", TemplateVersion, templateDate.Format(DateLayout))
	}
	if !strings.Contains(res.Content, "Last updated: "+templateDate.Format("2 January 2006")+".") || res.TemplateVersion != TemplateVersion {
		t.Errorf("default effective date not the template date")
	}
	// The template version is metadata for the API, not text for consumers.
	if strings.Contains(res.Content, TemplateVersion) || strings.Contains(res.Content, "Template version") {
		t.Errorf("the document prints the template version")
	}
	if res.Request.EffectiveDate != templateDate.Format(DateLayout) {
		t.Errorf("result request effectiveDate = %q, want the template date it used", res.Request.EffectiveDate)
	}
	req.EffectiveDate = "2027-03-05"
	res, err = Generate(req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, "Last updated: 5 March 2027.") || res.Request.EffectiveDate != "2027-03-05" {
		t.Errorf("effective date not used: %v", res.Request.EffectiveDate)
	}
	// And back: a pooled builder formats a date again when it changes.
	req.EffectiveDate = ""
	if res, err = Generate(req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, "Last updated: "+templateDate.Format("2 January 2006")+".") {
		t.Errorf("after a document with its own date, the next one does not carry the template date")
	}
}

// TestEscaping renders hostile user strings in every format and checks
// that none of them becomes markup.
func TestEscaping(t *testing.T) {
	hostile := "Evil <script>alert(1)</script> *bold* _it_ [x](https://evil.example) `code` # h | pipe & amp ![img](y)"
	req := Request{
		Type: "privacy", BusinessName: hostile, WebsiteURL: "https://shop.example/a?b=1&c=<2>", BusinessType: "ecommerce",
		Language: "en", Jurisdiction: "EU", CollectsUserData: true, ThirdPartyServices: []string{"stripe"},
		ContactEmail: "privacy@shop.example", PostalAddress: "1. Line one\n- Line two\n===\n<b>three</b>",
	}
	doc, _, _, err := Compose(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("markdown", func(t *testing.T) {
		out, _ := Render(doc, "markdown", "en")
		// What is left once every backslash escape is removed must hold
		// no markup from the user strings.
		live := regexp.MustCompile(`\\.`).ReplaceAllString(out, "")
		for _, bad := range []string{"<script>", "*bold*", "_it_", "[x](https://evil.example)", "`code`", "| pipe", "& amp", "![img]", "<b>", "\n- Line two", "\n==="} {
			if strings.Contains(live, bad) {
				t.Errorf("markdown contains live %q", bad)
			}
		}
		for _, want := range []string{`Evil \<script\>alert(1)\</script\> \*bold\* \_it\_ \[x\](https://evil.example) \` + "`code\\`" + ` \# h \| pipe \& amp \!\[img\](y)`,
			"1. Line one, - Line two, ===, \\<b\\>three\\</b\\>"} {
			if !strings.Contains(out, want) {
				t.Errorf("markdown lacks escaped %q", want)
			}
		}
		if !strings.Contains(out, `[https://shop.example/a?b=1\&c=\<2\>](<https://shop.example/a?b=1&c=%3C2%3E>)`) {
			t.Errorf("website link not escaped as expected:\n%s", out[:600])
		}
	})
	t.Run("markdown block start", func(t *testing.T) {
		for in, want := range map[string]string{"1. Acme": `1\. Acme`, "- Acme": `\- Acme`, "+ x": `\+ x`, "= x": `\= x`, "2) y": `2\) y`, "Acme": "Acme"} {
			if got := mdBlockStart(mdEscape(in)); got != want {
				t.Errorf("mdBlockStart(%q) = %q, want %q", in, got, want)
			}
		}
	})
	t.Run("html", func(t *testing.T) {
		out, _ := Render(doc, "html", "en")
		for _, bad := range []string{"<script>", "<b>", "c=<2>"} {
			if strings.Contains(out, bad) {
				t.Errorf("html contains live %q", bad)
			}
		}
		if !strings.Contains(out, "Evil &lt;script&gt;alert(1)&lt;/script&gt; *bold* _it_ [x](https://evil.example) `code` # h | pipe &amp; amp") {
			t.Error("html does not show the business name as escaped text")
		}
		if strings.Count(out, "<script") != 0 || strings.Contains(out, `href="javascript`) {
			t.Error("html has script")
		}
	})
	t.Run("text", func(t *testing.T) {
		out, _ := Render(doc, "text", "en")
		if !strings.Contains(out, hostile) {
			t.Error("text does not show the business name verbatim")
		}
		if !strings.Contains(out, "1. Line one, - Line two, ===, <b>three</b>") {
			t.Error("postal address newlines not flattened in text")
		}
	})
	t.Run("unsafe link scheme", func(t *testing.T) {
		d := &Document{Title: []Inline{{Kind: Plain, Text: "T"}}, Blocks: []Block{{Kind: Paragraph, Inlines: []Inline{{Kind: Link, Text: "click", URL: "javascript:alert(1)"}}}}}
		for _, f := range Formats {
			out, _ := Render(d, f, "en")
			if f != "text" && strings.Contains(out, "javascript:") {
				t.Errorf("%s links to javascript: %s", f, out)
			}
		}
	})
	// Generate builds the tree for its format, with the request's words
	// escaped once (builder.literalRun) as the library's text is: the
	// same bytes as the raw tree rendered in that format.
	t.Run("escaped when built", func(t *testing.T) {
		for _, format := range Formats {
			r := req
			r.Format = format
			res, err := Generate(r)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := Render(doc, format, "en"); res.Content != want {
				t.Errorf("%s: Generate differs from the raw tree rendered", format)
			}
		}
	})
}

// TestMissingInputsAreTodos: a missing input is a placeholder and a to-do
// (status needs_input), never a flag or risk points.
func TestMissingInputsAreTodos(t *testing.T) {
	for _, j := range []string{"EU", "UK", "US-CA"} {
		req := Request{Type: "privacy", BusinessName: "NoContact", WebsiteURL: "https://n.example", BusinessType: "saas",
			Language: "en", Jurisdiction: j, CollectsUserData: true, ThirdPartyServices: []string{}, Format: "markdown"}
		res, err := Generate(req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Content, `[contact email: send contactEmail\]`) || !strings.Contains(res.Content, `[the company that hosts our website: send hostingProvider\]`) {
			t.Errorf("%s: placeholders missing", j)
		}
		if res.Status != StatusNeedsInput {
			t.Errorf("%s: status %s", j, res.Status)
		}
		var fields []string
		for _, td := range res.Todos {
			fields = append(fields, td.Field)
			if td.Why == "" || td.Citation == "" {
				t.Errorf("%s: incomplete todo %+v", j, td)
			}
		}
		if !slices.Contains(fields, "contactEmail") || !slices.Contains(fields, "hostingProvider") {
			t.Errorf("%s: todos %v lack the missing fields", j, fields)
		}
		for _, f := range res.Flags {
			if strings.HasPrefix(f.Code, "missing_") {
				t.Errorf("%s: missing input flagged as %s", j, f.Code)
			}
		}
		req.ContactEmail = "a@n.example"
		complete, err := Generate(req)
		if err != nil {
			t.Fatal(err)
		}
		if complete.RiskScore != res.RiskScore {
			t.Errorf("%s: score %d without contact details, %d with: missing inputs must not score", j, res.RiskScore, complete.RiskScore)
		}
	}
}

func TestImpliedFlags(t *testing.T) {
	req := Request{Type: "privacy", BusinessName: "X", WebsiteURL: "https://x.example", BusinessType: "blog", Language: "en",
		Jurisdiction: "EU", ThirdPartyServices: []string{"google-analytics", "stripe"}, ContactEmail: "a@x.example", Format: "markdown"}
	res, err := Generate(req)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, f := range res.Flags {
		codes = append(codes, f.Code)
	}
	for _, want := range []string{"implied_uses_analytics", "implied_collects_payments"} {
		if !slices.Contains(codes, want) {
			t.Errorf("flags %v lack %s", codes, want)
		}
	}
	// Non-essential cookies with no word on a banner: a to-do, not a claim.
	if !slices.ContainsFunc(res.Todos, func(td compliance.Todo) bool { return td.Field == "consentBanner" }) {
		t.Errorf("todos %v lack consentBanner", res.Todos)
	}
	if !strings.Contains(res.Content, "Taking payments and giving refunds") {
		t.Error("payments implied by Stripe are not disclosed")
	}
}

// TestConcurrentGenerate runs generations in parallel: the lazily loaded
// data and the generator table are shared (run with -race).
func TestConcurrentGenerate(t *testing.T) {
	req, err := ParseRequest([]byte(goldenRequests["us-ca-marketplace"]))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Generate(req)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for range 8 {
		go func() {
			res, err := Generate(req)
			if err != nil {
				done <- err.Error()
				return
			}
			done <- res.Content
		}()
	}
	for range 8 {
		if got := <-done; got != want.Content {
			t.Error("a concurrent generation differs")
		}
	}
}

func TestGenerateDefaults(t *testing.T) {
	res, err := Generate(Request{Type: "privacy", BusinessName: "D", WebsiteURL: "https://d.example", BusinessType: "blog", Jurisdiction: "UK"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Request.Format != "markdown" || !strings.HasPrefix(res.Content, "# Privacy Policy\n") {
		t.Errorf("defaults not applied: %q", res.Content[:40])
	}
}

func BenchmarkGenerate(b *testing.B) {
	req, err := ParseRequest([]byte(goldenRequests["eu-ecommerce"]))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Generate(req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseRequest(b *testing.B) {
	body := []byte(goldenRequests["eu-ecommerce"])
	if _, err := ParseRequest(body); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRequest(body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUnknownCookies: a service whose cookie use is not verified
// (setsCookies null) is named as unconfirmed, never said to set no
// cookies; a non-essential one is treated as possibly setting them.
func TestUnknownCookies(t *testing.T) {
	tests := []struct {
		name, jurisdiction string
		services           []string
		nonEssential       bool
		want               string
	}{
		{"non-essential form builder", "EU", []string{"typeform"}, true, "We have not confirmed whether the following services store or read information on your device: Typeform. Because they are not strictly necessary"},
		{"essential payment provider", "EU", []string{"square"}, false, "We have not confirmed whether the following services store or read information on your device: Square. If they do"},
		{"both, California", "US-CA", []string{"braintree", "typeform"}, true, "We have not confirmed whether the following services store or read information on your device: Typeform. If they do"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Type: "privacy", BusinessName: "Unknown Ltd", WebsiteURL: "https://u.example", BusinessType: "blog",
				Language: "en", Jurisdiction: tt.jurisdiction, Format: "markdown", ContactEmail: "a@u.example", ThirdPartyServices: tt.services}
			facts, err := BuildFacts(req)
			if err != nil {
				t.Fatal(err)
			}
			if got := facts.Set[compliance.FactSetsNonEssentialCookies]; got != tt.nonEssential {
				t.Errorf("setsNonEssentialCookies = %v, want %v", got, tt.nonEssential)
			}
			res, err := Generate(req)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Content, tt.want) {
				t.Errorf("document lacks %q", tt.want)
			}
			for _, bad := range []string{"do not set cookies", "does not set cookies", "do not store information on your device"} {
				if strings.Contains(res.Content, bad) {
					t.Errorf("document asserts %q about a service nobody verified", bad)
				}
			}
			if slices.ContainsFunc(res.Flags, func(f compliance.Flag) bool { return f.Code == "cookie_details_missing" }) {
				t.Errorf("cookie_details_missing flagged although every service is named")
			}
		})
	}
}

// TestPaymentProvidersNeverSold: no payment provider is a recipient of a
// sale or sharing, in the facts or in the California tables.
func TestPaymentProvidersNeverSold(t *testing.T) {
	c := mustCatalog(t)
	for _, s := range c.Services {
		if s.Category != "payments" {
			continue
		}
		req := Request{Type: "privacy", BusinessName: "Pay Ltd", WebsiteURL: "https://p.example", BusinessType: "ecommerce",
			Language: "en", Jurisdiction: "US-CA", Format: "markdown", ContactEmail: "a@p.example", CollectsPayments: true,
			ThirdPartyServices: []string{s.ID}}
		facts, err := BuildFacts(req)
		if err != nil {
			t.Fatal(err)
		}
		if facts.Set[compliance.FactSellsOrShares] {
			t.Errorf("%s: sellsOrShares set by a payment provider", s.ID)
		}
		res, err := Generate(req)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Content, "Yes, to payment processors") || !strings.Contains(res.Content, "We have not sold or shared personal data") {
			t.Errorf("%s: the policy presents the payment provider as a recipient of a sale or sharing", s.ID)
		}
	}
}

// TestCCPACategoriesComplete: every category of personal data a California
// document collects appears in its CCPA table under each statutory category
// it falls in, including personal information that fits no listed category
// (message contents are not "audio, electronic, visual" information), and a
// card number with its security code is sensitive personal information
// (Cal. Civ. Code § 1798.140(ae)(1)(B)).
func TestCCPACategoriesComplete(t *testing.T) {
	c := mustCatalog(t)
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	en := lib.Texts["en"]
	for name, req := range matrixRequests(c) {
		// The category table is the privacy policy's (other types have none).
		if req.Type != "privacy" || req.Jurisdiction != "US-CA" || !strings.HasSuffix(name, "complete=true") {
			continue
		}
		doc, facts, _, err := Compose(req)
		if err != nil {
			t.Fatal(err)
		}
		var table Block
		for _, b := range doc.Blocks {
			if b.Section == "california" && b.Kind == Table {
				table = b
				break
			}
		}
		var rows []string
		for _, r := range table.Rows {
			rows = append(rows, inlineText(r[0]))
		}
		for _, cf := range facts.Categories {
			for _, letter := range cf.CCPA {
				if !slices.Contains(rows, en.Labels["ccpa."+letter]) {
					t.Fatalf("%s: category %s (CCPA %s) missing from the table %q", name, cf.ID, letter, rows)
				}
			}
			if cf.ID == "communications" && slices.Contains(cf.CCPA, "H") {
				t.Fatalf("message contents filed under audio, electronic or visual information")
			}
			if cf.ID == "payment_details" && !cf.Sensitive {
				t.Fatalf("card data not sensitive personal information")
			}
		}
	}
}

// TestEscapeMemo: the escape memo (render.go) only saves work. Every
// document renders to the same bytes with it and without it, it holds the
// library's own strings, and a copy of one (same text, other memory) is
// escaped as any other text is.
func TestEscapeMemo(t *testing.T) {
	c := mustCatalog(t)
	reqs := []Request{}
	for _, typ := range []string{"privacy", "cookie", "terms"} {
		for _, j := range []string{"EU", "US", "US-CA,UK"} {
			req := Request{
				Type: typ, BusinessName: "Memo <Test> & *Co*", WebsiteURL: "https://memo.example", BusinessType: "marketplace",
				Language: "en", Jurisdiction: j, CollectsPayments: true, CollectsUserData: true, UsesAnalytics: true,
				ThirdPartyServices: serviceMix(c),
			}
			completeRequest(&req)
			reqs = append(reqs, req)
		}
	}
	for _, req := range reqs {
		for _, format := range []string{"markdown", "html"} {
			req.Format = format
			doc, _, _, err := Compose(req)
			if err != nil {
				t.Fatal(err)
			}
			if doc.escaped == nil {
				t.Fatalf("%s/%s: the document has no escape memo", req.Type, req.Jurisdiction)
			}
			with, err := Render(doc, format, "en")
			if err != nil {
				t.Fatal(err)
			}
			bare := *doc
			bare.escaped, bare.links = nil, nil
			without, _ := Render(&bare, format, "en")
			if with != without {
				t.Errorf("%s/%s/%s: the memo changes the output", req.Type, req.Jurisdiction, format)
			}
		}
	}
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	memo := lib.compiled.escaped["en"]
	heading := lib.Texts["en"].Sections["contact"]
	if len(heading) < memoMinLen {
		t.Fatalf("section heading %q is too short to test with", heading)
	}
	if l := memo.get(heading); l == nil || l.md != mdEscape(heading) || l.html != htmlEscape(heading) {
		t.Errorf("memo.get(%q) = %+v, want its escapes", heading, l)
	}
	if l := memo.get(strings.Clone(heading)); l != nil {
		t.Errorf("memo.get(a copy of %q) found it: a memo keyed by memory must miss", heading)
	}
	if name := cat().Services[0].Name; len(name) >= memoMinLen && memo.get(name) == nil {
		t.Errorf("memo lacks the catalog's service name %q", name)
	}
	// Link addresses: the catalog's, with what safeURL makes of them.
	links := lib.compiled.links["en"]
	u := cat().Services[0].PrivacyPolicyURL
	want, ok := safeURL(u)
	if l := links.get(u); l == nil || l.unsafe == ok || l.md != mdURL.Replace(want) || l.html != htmlEscape(want) {
		t.Errorf("links.get(%q) = %+v, want the forms of %q", u, l, want)
	}
}

// TestLabelCache: the builder's label cache (lookupLabel) answers as the
// language's table does, on a first lookup and a repeated one, for key
// parts that are copies of each other, for a jurisdiction's own wording
// and after the builder changes language.
func TestLabelCache(t *testing.T) {
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	en := lib.Texts["en"]
	var b builder
	b.t = en
	n := 0
	for key, want := range en.Labels {
		k1, k2, ok := strings.Cut(key, ".")
		if !ok {
			continue
		}
		k1 += "."
		for round := range 2 {
			if got := b.label2(k1, k2); got != want {
				t.Fatalf("round %d: label2(%q, %q) = %q, want %q", round, k1, k2, got, want)
			}
			if got := b.label2(strings.Clone(k1), strings.Clone(k2)); got != want {
				t.Fatalf("round %d: label2 of copies of %q, %q = %q, want %q", round, k1, k2, got, want)
			}
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d labels tried", n)
	}
	if _, ok := b.lookupLabel("no.such.", "label", ""); ok {
		t.Error("an unknown label was found")
	}
	// A jurisdiction's own wording: key.<id> where the language has it.
	jn := 0
	for key, want := range en.Labels {
		base, j, ok := cutLast(key, ".")
		if !ok || !strings.HasPrefix(base, "purpose.") || len(j) != 2 {
			continue
		}
		if got, ok := b.lookupLabelFor("", base, "", j); !ok || got != want {
			t.Errorf("lookupLabelFor(%q, %q) = %q, %v, want %q", base, j, got, ok, want)
		}
		jn++
	}
	if jn == 0 {
		t.Error("no jurisdiction's own purpose wording was tried")
	}
	// Another wording: nothing cached for English may answer for it.
	other := &Wording{Language: "xx", Labels: map[string]string{"table.service": "Dienst"}}
	b.t = other
	if got := b.label2("table.", "service"); got != "Dienst" {
		t.Errorf("after a change of language, label2 = %q, want Dienst", got)
	}
	if got := b.label2("table.", "purpose"); got != "" {
		t.Errorf("after a change of language, label2 found %q, a label the language lacks", got)
	}
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// lawsFor is the test's own statement of which laws a document answers to:
// every law of a jurisdiction in ids or of every jurisdiction ("*"), each
// once, in the laws' order. The generator works it out another way (by
// document type first, through each jurisdiction's set: typeLaws).
func lawsFor(laws []compliance.Law, ids []string) []compliance.Law {
	var out []compliance.Law
	for _, l := range laws {
		if slices.Contains(l.Jurisdictions, compliance.AllJurisdictions) ||
			slices.ContainsFunc(ids, func(id string) bool { return slices.Contains(l.Jurisdictions, id) }) {
			out = append(out, l)
		}
	}
	return out
}

// TestEvidenceOf: the evidence composed in pooled working memory is what
// Compose, in fresh memory, records, and stays as it was while later
// documents reuse the pooled memory.
func TestEvidenceOf(t *testing.T) {
	c := mustCatalog(t)
	var reqs []Request
	for _, j := range []string{"EU", "US", "US-CA", "BR,JP,US", "UK"} {
		req := Request{Type: "privacy", BusinessName: "Evidence Ltd", WebsiteURL: "https://evidence.example",
			BusinessType: "ecommerce", Language: "en", Jurisdiction: j, Format: "markdown",
			CollectsPayments: true, CollectsUserData: true, UsesAnalytics: true, ThirdPartyServices: serviceMix(c)}
		completeRequest(&req)
		reqs = append(reqs, req)
	}
	got := make([][]Evidence, len(reqs))
	for i, req := range reqs {
		ev, err := EvidenceOf(req)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = ev
	}
	for i, req := range reqs {
		doc, _, _, err := Compose(req)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Evidence) == 0 || !slices.Equal(got[i], doc.Evidence) {
			t.Errorf("%s: EvidenceOf gave %d entries, Compose %d, or they differ", req.Jurisdiction, len(got[i]), len(doc.Evidence))
		}
	}
}

// TestBuildReportsGaps: requirements that apply but that no included
// clause satisfies are a *GapError naming each, in checklist order,
// whether or not the builder records the evidence (Generate does not).
func TestBuildReportsGaps(t *testing.T) {
	c := mustCatalog(t)
	req := Request{Type: "privacy", BusinessName: "Gap Ltd", WebsiteURL: "https://gap.example",
		BusinessType: "ecommerce", Language: "en", Jurisdiction: "EU", Format: "markdown",
		CollectsPayments: true, CollectsUserData: true, UsesAnalytics: true, ThirdPartyServices: serviceMix(c)}
	completeRequest(&req)
	st := new(state)
	if _, _, _, err := st.compose(req, true); err != nil {
		t.Fatal(err)
	}
	n := len(st.facts.applicable)
	missing := []*compliance.Requirement{st.facts.applicable[n/3], st.facts.applicable[2*n/3]}
	// The same program with no clause satisfying missing.
	p := *st.b.lib.programs[[2]string{req.Type, req.Language}]
	p.sections = slices.Clone(p.sections)
	for _, m := range missing {
		dropped := 0
		for si := range p.sections {
			sec := &p.sections[si]
			sec.clauses = slices.Clone(sec.clauses)
			for ci := range sec.clauses {
				c := &sec.clauses[ci]
				if slices.Contains(c.satisfies, m.Position()) {
					c.satisfies = slices.DeleteFunc(slices.Clone(c.satisfies), func(n int) bool { return n == m.Position() })
					c.satisfied = satisfiedSet(c.satisfies)
					dropped++
				}
			}
		}
		if dropped == 0 {
			t.Fatalf("no clause satisfies %s", m.ID)
		}
	}
	want := []string{missing[0].ID, missing[1].ID}
	for _, evidence := range []bool{false, true} {
		st.b.reset()
		var doc Document
		err := st.b.build(&p, st.facts.applicable, &doc, evidence)
		var gap *GapError
		if !errors.As(err, &gap) || !slices.Equal(gap.Requirements, want) {
			t.Errorf("evidence %v: build gave %v, want gaps for %v", evidence, err, want)
		}
		if !evidence && doc.Evidence != nil {
			t.Errorf("evidence false: %d evidence entries recorded", len(doc.Evidence))
		}
	}
}
