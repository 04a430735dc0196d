package policy

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// The clause library is compiled once, when it is loaded: clause lines and
// labels into runs of literal text and placeholder numbers, conditions
// into bit tests, headings into their anchors, and each clause's
// requirements into checklist positions. Generation then reads no clause
// text twice, builds no map and parses nothing (issue 9: a document in
// about 100 µs). The compiled form is derived data only: the JSON files
// stay the library, and Library.Check validates them as written.

// Placeholders clause text and labels may use, by number. Clause text uses
// the document's values (builder.setVars); the label placeholders at the
// end are filled in by the generator that expands the label.
const (
	phBusinessName = iota
	phWebsiteURL
	phContactEmail
	phPostalAddress
	phEffectiveDate
	phTemplateVersion
	phAuthorityName
	phAuthorityURL
	phRegion
	phLawName
	phLawShort
	phDPOContact
	phRecipientCategories
	phMinorsStatement
	phSoldSharedServices
	phProvisionExamples
	phPhone
	phTollFreeNumber
	phRepresentative
	phHostingProvider
	phUnknownServices
	phJointServices
	phConsentMethod
	phEmailServices
	phMemberStateName
	phMemberAuthorityName
	phMemberAuthorityURL
	phCrossSiteServices
	phOptOutLinkStatus
	phOptOutSignalsStatus
	// Contract documents (terms, eula, acceptable-use).
	phGoverningLaw
	phGoverningLawText // "the law of ...": label governingLaw.text[.<code>]
	phMinimumAge
	phBillingPeriod
	phCancellationMethod
	phSubscriptionTerms
	// Disclaimer (issue 8, t2).
	phAffiliateStatus
	// Refund policy (issue 8, t3): the voluntary return window in days.
	phRefundWindowDays
	phReturnShippingPaidBy
	// Issue 8, part j1: Quebec's person in charge and Brazil's
	// encarregado (dpoContact, a placeholder when missing).
	phPrivacyOfficer
	phEncarregado
	// Issue 8, part j2: the address New Zealand and South Africa require
	// and Singapore's data protection officer (j2.go).
	phRequiredAddress
	phDataProtectionOfficer
	// Shipping policy (issue 8, t4): where the business ships and when it
	// dispatches (shippingVars).
	phShippingRegions
	phDispatchTime
	// Issue 8, part j5b: the legal entities behind the services that
	// receive data as third parties (Rhode Island names every buyer).
	phSoldSharedProviders

	// Label placeholders, filled in by the generator that uses the label.
	phURL
	phRecipients
	phServices
	phChannels
	phExamples
	phService
	phProvider
	phPurposes
	phCountry
	phAccess
	phRole
	phCategories
	phRetention

	numPlaceholders
)

// placeholderNames are the placeholders' names as clause text writes them
// ({businessName}).
var placeholderNames = [numPlaceholders]string{
	phBusinessName: "businessName", phWebsiteURL: "websiteUrl", phContactEmail: "contactEmail",
	phPostalAddress: "postalAddress", phEffectiveDate: "effectiveDate", phTemplateVersion: "templateVersion",
	phAuthorityName: "authorityName", phAuthorityURL: "authorityUrl", phRegion: "region", phLawName: "lawName",
	phLawShort: "lawShort", phDPOContact: "dpoContact", phRecipientCategories: "recipientCategories",
	phMinorsStatement: "minorsStatement", phSoldSharedServices: "soldSharedServices",
	phProvisionExamples: "provisionExamples", phPhone: "phone", phTollFreeNumber: "tollFreeNumber",
	phRepresentative: "representative", phHostingProvider: "hostingProvider", phUnknownServices: "unknownServices",
	phJointServices: "jointServices", phConsentMethod: "consentMethod", phEmailServices: "emailServices",
	phMemberStateName: "memberStateName", phMemberAuthorityName: "memberAuthorityName",
	phMemberAuthorityURL: "memberAuthorityUrl", phCrossSiteServices: "crossSiteServices",
	phOptOutLinkStatus: "optOutLinkStatus", phOptOutSignalsStatus: "optOutSignalsStatus",
	phGoverningLaw: "governingLaw", phGoverningLawText: "governingLawText", phMinimumAge: "minimumAge", phBillingPeriod: "billingPeriod",
	phCancellationMethod: "cancellationMethod", phSubscriptionTerms: "subscriptionTerms",
	phAffiliateStatus: "affiliateStatus", phRefundWindowDays: "refundWindowDays",
	phReturnShippingPaidBy: "returnShippingPaidBy", phPrivacyOfficer: "privacyOfficer", phEncarregado: "encarregado",
	phRequiredAddress: "requiredAddress", phDataProtectionOfficer: "dataProtectionOfficer",
	phShippingRegions: "shippingRegions", phDispatchTime: "dispatchTime", phSoldSharedProviders: "soldSharedProviders",
	phURL: "url", phRecipients: "recipients", phServices: "services", phChannels: "channels",
	phExamples: "examples", phService: "service", phProvider: "provider", phPurposes: "purposes",
	phCountry: "country", phAccess: "access", phRole: "role", phCategories: "categories", phRetention: "retention",
}

// placeholderNumber returns the number of the placeholder called name.
func placeholderNumber(name string) (int, bool) {
	for i, n := range placeholderNames {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

// segment is a run of a compiled line: literal text, or a placeholder
// (ph >= 0) whose value replaces it.
type segment struct {
	text string
	ph   int
	lit  *literal // a literal run's escaped forms (nil for a placeholder)
	// runs are a literal run as the document's inline for each value of
	// Inline.esc (nil for a placeholder): expand copies the one for the
	// document's format, or shares it when it is the whole line.
	runs *[3]Inline
}

// literal is a literal run escaped once, when the library is compiled, for
// the formats that escape: rendering copies these instead of scanning the
// library's text byte by byte for every document.
type literal struct {
	md, html string
	text     string // in escapeMemo, the string it escapes (kept alive)
	// unsafe, in a memo of link addresses, says safeURL refuses text
	// (md and html are then empty).
	unsafe bool
	// shown, in a memo of link addresses, is the text the address is
	// shown with (the address itself; a section's heading for the
	// contents' fragments), and wholeMD and wholeHTML the whole link with
	// that text in each format (the text alone when unsafe is set). The
	// memo also holds each section's anchor, with the section's heading
	// as shown and the heading block, as each format writes it, whole.
	shown, wholeMD, wholeHTML string
}

// literalSegment is the segment of a literal run.
func literalSegment(text string) segment {
	lit := &literal{md: mdEscape(text), html: htmlEscape(text)}
	return segment{text: text, ph: -1, lit: lit, runs: &[3]Inline{
		escNone:     {Kind: Plain, Text: text},
		escMarkdown: {Kind: Plain, esc: escMarkdown, Text: text, URL: lit.md},
		escHTML:     {Kind: Plain, esc: escHTML, Text: text, URL: lit.html},
	}}
}

// compileText splits s into literal runs and placeholders, as the
// generator has always read "{name}" (ASCII letters between braces). A
// name that is no placeholder stays literal text, braces and all.
func compileText(s string) []segment {
	if strings.IndexByte(s, '{') < 0 {
		return []segment{literalSegment(s)}
	}
	var out []segment
	lit := 0 // start of the pending literal run
	i := 0
	for {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			break
		}
		j += i
		k := j + 1
		for k < len(s) && ('a' <= s[k] && s[k] <= 'z' || 'A' <= s[k] && s[k] <= 'Z') {
			k++
		}
		if k == j+1 || k == len(s) || s[k] != '}' {
			i = j + 1
			continue
		}
		ph, ok := placeholderNumber(s[j+1 : k])
		if !ok {
			i = k + 1
			continue
		}
		if j > lit {
			out = append(out, literalSegment(s[lit:j]))
		}
		out = append(out, segment{ph: ph})
		i = k + 1
		lit = i
	}
	if lit < len(s) {
		out = append(out, literalSegment(s[lit:]))
	}
	return out
}

// Kinds of compiled clause lines.
const (
	lineParagraph = iota
	lineStrong    // "!": a prominent paragraph
	lineItem      // "- ": a list item
	lineGenerator // "@name": generated blocks
)

// line is one compiled clause line.
type line struct {
	kind int
	segs []segment
	gen  generator
}

// condition is a compiled "when" list: every group must hold, and a group
// holds when one of its terms does (a term is a condition bit, maybe
// negated). The groups' terms are in one list, each group's last marked:
// a document tests a few hundred conditions, mostly of one or two terms,
// and one loop over the terms costs less than a loop over the groups
// and one over each group's terms.
type condition []condTerm

type condTerm struct {
	word int32  // the bit's word in the set
	neg  bool   // the term holds when the bit is clear
	last bool   // the last term of its group
	mask uint64 // the bit in its word
}

// holds reports whether c holds for the condition bits set.
func (c condition) holds(set []uint64) bool {
	ok := false
	for _, t := range c {
		ok = ok || (set[t.word]&t.mask != 0) != t.neg
		if t.last {
			if !ok {
				return false
			}
			ok = false
		}
	}
	return true
}

// program is a document type compiled for one language.
type program struct {
	title    string
	sections []compiledSection
}

type compiledSection struct {
	id      string
	heading string
	anchor  string
	href    string // "#" + anchor, for the table of contents
	when    condition
	clauses []compiledClause
}

type compiledClause struct {
	id    string
	when  condition
	lines []line
	// satisfies are the checklist positions (compiledLibrary.requirements)
	// of the requirements the clause satisfies, in the clause's order.
	satisfies []int
	// laws are the positions (compiledLibrary.laws) of those
	// requirements' laws, each once: a clause satisfies several items of
	// one or two laws, and clauseJurisdiction asks only about the laws.
	laws []int
	// jurisdictional is set when the clause's words can differ from one
	// listed jurisdiction to another (speaksOfJurisdiction): only then
	// does build find the jurisdiction it is about.
	jurisdictional bool
}

// compiledLibrary is everything generation reads, derived from the
// Library and the checklists when they are loaded.
type compiledLibrary struct {
	programs map[[2]string]*program // by type and language
	labels   map[string]map[string][]segment
	// escaped holds, by language, the escaped forms of text that reaches
	// documents as whole plain runs (escapeMemo).
	escaped map[string]*escapeMemo
	// links holds, by language, link addresses the documents use as they
	// are (the contents' fragments, the catalog's addresses) with their
	// rendered forms: a memo of the same kind.
	links map[string]*escapeMemo
	// conditions numbers every condition name the structures use.
	conditions map[string]int
	// requirements numbers every checklist requirement; requirementLaw
	// is each one's law, by position in laws.
	requirements   map[string]int
	requirementLaw []int
	laws           []string       // law ids, in compliance.Laws order
	lawIndex       map[string]int // position in laws by id
	// lawCondition is, by position in laws, the bit of the condition
	// "law:<id>", and jurisdictionCondition, by the catalog position of a
	// jurisdiction, that of "jurisdiction:<id>" (-1: no structure uses
	// it): conditionBits sets a document's sixty laws and thirty-four
	// jurisdictions by position, without making and looking up the names.
	lawCondition, jurisdictionCondition []int
	// words holds, by language, the words documents take from the labels
	// for the catalog's jurisdictions, purposes and data categories and
	// for the tables' headers.
	words map[string]*catalogWords
}

// lawAt is the position in laws of law l: its position among the
// embedded laws when the library numbered those (DefaultLibrary's),
// confirmed by its id, else looked up by id; -1 for a law the library
// does not number.
func (c *compiledLibrary) lawAt(l *compliance.Law) int {
	if p := l.Position(); p >= 0 && p < len(c.laws) && c.laws[p] == l.ID {
		return p
	}
	if i, ok := c.lawIndex[l.ID]; ok {
		return i
	}
	return -1
}

// catalogWords are the words a document takes from its language's
// labels by a position worked out when the library is compiled: the
// catalog's entries' by their catalog positions, the tables' headers by
// their number (tableHeader). A document names each of its purposes and
// categories in several tables, and a document for several
// jurisdictions speaks of each in its own words (builder.setVars).
type catalogWords struct {
	jurisdictions []jurisdictionWords
	purposes      []purposeWords
	categories    []string // "category.<id>"
	// headers are the cells of the tables' headers (tableHeader), and
	// ccpaLetters the cells naming the CCPA's categories ("ccpa.<letter>",
	// by position in ccpaLetters): words of the language alone.
	headers     [][][]Inline
	ccpaLetters [][]Inline
	// lawNames are the laws' "law.<id>" labels, by position in
	// compiledLibrary.laws: a document for many jurisdictions names
	// some sixty laws (builder.lawName).
	lawNames []string
}

// jurisdictionWords are a catalog jurisdiction's words, as the runs of
// its placeholders: its region's name (label "region.<id>") and its
// authority's name and address (nil without one). Documents share them:
// nothing changes a tree once it is built.
type jurisdictionWords struct {
	region, authorityName, authorityURL []Inline
}

// purposeWords are a purpose's labels: "purpose.<id>" with each suffix
// of purposeLabelSuffix, by purposeName etc., and its ".withoutData"
// (what the person cannot have without giving the data) where it has one.
type purposeWords struct {
	labels         [3]string
	withoutData    string
	hasWithoutData bool
	// ccpaFirst is the first catalog position of a purpose with the
	// same CCPA name (its own, for the first): the CCPA tables name a
	// few purposes alike (ccpaPurposeNames).
	ccpaFirst int
}

// compileWords makes the words of cat's entries and of the laws (by
// their ids, in compiledLibrary.laws order) in the language t.
func compileWords(t *Wording, cat *catalog.Catalog, laws []string) *catalogWords {
	w := &catalogWords{
		lawNames:      make([]string, len(laws)),
		jurisdictions: make([]jurisdictionWords, len(cat.Jurisdictions)),
		purposes:      make([]purposeWords, len(cat.Purposes)),
		categories:    make([]string, len(cat.DataCategories)),
		headers:       headerCells(t),
		ccpaLetters:   make([][]Inline, len(ccpaLetters)),
	}
	for i, letter := range ccpaLetters {
		w.ccpaLetters[i] = []Inline{{Kind: Plain, Text: t.Labels["ccpa."+letter]}}
	}
	for i := range cat.Jurisdictions {
		j := &cat.Jurisdictions[i]
		jw := &w.jurisdictions[i]
		jw.region = []Inline{{Kind: Plain, Text: t.Labels["region."+j.ID]}}
		if a := j.Authority; a != nil {
			jw.authorityName = []Inline{{Kind: Plain, Text: a.Name}}
			jw.authorityURL = []Inline{{Kind: Link, Text: a.URL, URL: a.URL}}
		}
	}
	for i := range cat.Purposes {
		id, pw := cat.Purposes[i].ID, &w.purposes[i]
		for k, suffix := range purposeLabelSuffix {
			pw.labels[k] = t.Labels["purpose."+id+suffix]
		}
		pw.withoutData, pw.hasWithoutData = t.Labels["purpose."+id+".withoutData"]
		pw.ccpaFirst = i
		for k := range i {
			if w.purposes[k].labels[purposeCCPA] == pw.labels[purposeCCPA] {
				pw.ccpaFirst = k
				break
			}
		}
	}
	for i := range cat.DataCategories {
		w.categories[i] = t.Labels["category."+cat.DataCategories[i].ID]
	}
	for i, id := range laws {
		w.lawNames[i] = t.Labels["law."+id]
	}
	return w
}

// compile derives the compiled library from l and the checklists, with
// the escape memos of cat's text (escapeMemo).
func (l *Library) compile(laws []compliance.Law, cat *catalog.Catalog) (*compiledLibrary, error) {
	c := &compiledLibrary{
		programs:     map[[2]string]*program{},
		labels:       map[string]map[string][]segment{},
		escaped:      map[string]*escapeMemo{},
		links:        map[string]*escapeMemo{},
		conditions:   map[string]int{},
		requirements: map[string]int{},
		lawIndex:     map[string]int{},
		words:        map[string]*catalogWords{},
	}
	for li, law := range laws {
		c.laws = append(c.laws, law.ID)
		c.lawIndex[law.ID] = li
		for _, r := range law.Requirements {
			// build finds an applicable item's number as its position.
			if r.Position() != len(c.requirementLaw) {
				return nil, fmt.Errorf("policy: requirement %s is at position %d of the checklists, numbered %d", r.ID, r.Position(), len(c.requirementLaw))
			}
			c.requirements[r.ID] = len(c.requirementLaw)
			c.requirementLaw = append(c.requirementLaw, li)
		}
	}
	for lang, t := range l.Texts {
		labels := make(map[string][]segment, len(t.Labels))
		memo := memoBuilder{}
		for k, v := range t.Labels {
			segs := compileText(v)
			labels[k] = segs
			if len(segs) == 1 && segs[0].lit != nil && segs[0].text == v && len(v) >= memoMinLen {
				memo.addEscaped(v, segs[0].lit)
			}
		}
		c.labels[lang] = labels
		c.words[lang] = compileWords(t, cat, c.laws)
		for _, v := range t.Sections { // headings, and their entries in the contents
			memo.add(v)
		}
		memo.addCatalog(cat)
		c.escaped[lang] = memo.freeze()
		links := memoBuilder{}
		links.addCatalogLinks(cat)
		for typ, s := range l.Structures {
			p := &program{title: t.Titles[typ], sections: make([]compiledSection, len(s.Sections))}
			for i, sec := range s.Sections {
				heading := t.Sections[sec.ID]
				anchor := slug(heading)
				cs := compiledSection{id: sec.ID, heading: heading, anchor: anchor, href: "#" + anchor, when: c.compileWhen(sec.When),
					clauses: make([]compiledClause, len(sec.Clauses))}
				for j, cl := range sec.Clauses {
					cc := compiledClause{id: cl.ID, when: c.compileWhen(cl.When)}
					for _, r := range cl.Satisfies {
						if n, ok := c.requirements[r]; ok {
							cc.satisfies = append(cc.satisfies, n)
							if law := c.requirementLaw[n]; !slices.Contains(cc.laws, law) {
								cc.laws = append(cc.laws, law)
							}
						}
					}
					text, ok := t.Clauses[cl.ID]
					if !ok {
						return nil, fmt.Errorf("policy: language %s has no text for clause %s", lang, cl.ID)
					}
					for _, ln := range text {
						cc.lines = append(cc.lines, compileLine(ln))
					}
					for _, ln := range cc.lines {
						if ln.kind == lineGenerator && ln.gen == nil {
							return nil, fmt.Errorf("policy: clause %s: unknown generator %s", cl.ID, ln.segs[0].text)
						}
					}
					cc.jurisdictional = speaksOfJurisdiction(cc.lines)
					cs.clauses[j] = cc
				}
				p.sections[i] = cs
				links.addLinkText(cs.href, heading)
				links.addHeading(cs.anchor, heading)
			}
			c.programs[[2]string{typ, lang}] = p
		}
		c.links[lang] = links.freeze()
	}
	// After the structures, which number the conditions.
	conditionBit := func(name string) int {
		if bit, ok := c.conditions[name]; ok {
			return bit
		}
		return -1
	}
	for _, id := range c.laws {
		c.lawCondition = append(c.lawCondition, conditionBit("law:"+id))
	}
	for i := range cat.Jurisdictions {
		c.jurisdictionCondition = append(c.jurisdictionCondition, conditionBit("jurisdiction:"+cat.Jurisdictions[i].ID))
	}
	return c, nil
}

// compileWhen compiles a "when" list ("a|!b" is a group of two terms),
// numbering the condition names it meets for the first time.
func (c *compiledLibrary) compileWhen(when []string) condition {
	var cond condition
	for _, w := range when {
		for alt := range strings.SplitSeq(w, "|") {
			name, neg := strings.CutPrefix(alt, "!")
			bit, ok := c.conditions[name]
			if !ok {
				bit = len(c.conditions)
				c.conditions[name] = bit
			}
			cond = append(cond, condTerm{word: int32(bit >> 6), neg: neg, mask: 1 << (bit & 63)})
		}
		cond[len(cond)-1].last = true
	}
	return cond
}

// compileLine compiles one line of clause text: "- " lines are list
// items, "!" lines prominent paragraphs, "@name" lines generated blocks,
// anything else a paragraph.
func compileLine(s string) line {
	switch {
	case strings.HasPrefix(s, "@"):
		// segs keeps the name for the error of an unknown generator.
		return line{kind: lineGenerator, gen: generators[s[1:]], segs: []segment{{text: s, ph: -1}}}
	case strings.HasPrefix(s, "- "):
		return line{kind: lineItem, segs: compileText(s[2:])}
	case strings.HasPrefix(s, "!"):
		return line{kind: lineStrong, segs: compileText(s[1:])}
	}
	return line{kind: lineParagraph, segs: compileText(s)}
}

// conditionBits is the set of conditions that hold, as compiled bits.
type conditionBits struct {
	lib  *compiledLibrary // whose conditions (compiledLibrary.conditions)
	bits []uint64
	// cache remembers the bit of each name set so far, as labelCache
	// does labels: found by where the name's parts are (the code's
	// constants and the catalog's ids, which stay put) and confirmed by
	// comparing them. A document sets about two hundred names, many of
	// them more than once (a service category per service); a pooled
	// builder keeps the cache for the next document.
	cache [condCacheSize]condEntry
}

const condCacheSize = 512 // a power of two

type condEntry struct {
	prefix, id string
	bit        int // -1: no structure uses the name
	full       bool
}

func (c *conditionBits) reset(lib *compiledLibrary) {
	if c.lib != lib {
		c.lib = lib
		c.cache = [condCacheSize]condEntry{}
	}
	n := (len(lib.conditions) + 63) / 64
	if cap(c.bits) < n {
		c.bits = make([]uint64, n)
	}
	c.bits = c.bits[:n]
	clear(c.bits)
}

// set records that the condition called name holds when v is true; a
// name no structure uses is not recorded.
func (c *conditionBits) set(name string, v bool) {
	if v {
		c.setPrefixed("", name)
	}
}

// setPrefixed is set for prefix + id ("law:" + "gdpr"), without building
// the name on the heap.
func (c *conditionBits) setPrefixed(prefix, id string) {
	h := uint64(uintptr(unsafe.Pointer(unsafe.StringData(prefix))))*0x9e3779b97f4a7c15 ^
		uint64(uintptr(unsafe.Pointer(unsafe.StringData(id))))*0xc2b2ae3d27d4eb4f
	e := &c.cache[(h>>32)&(condCacheSize-1)]
	if !e.full || !sameString(e.id, id) || !sameString(e.prefix, prefix) {
		var buf [64]byte
		key := append(append(buf[:0], prefix...), id...)
		bit, ok := c.lib.conditions[string(key)]
		if !ok {
			bit = -1
		}
		*e = condEntry{prefix: prefix, id: id, bit: bit, full: true}
	}
	c.setBit(e.bit)
}

// setBit records that the condition numbered bit holds (-1: none).
func (c *conditionBits) setBit(bit int) {
	if bit >= 0 {
		c.bits[bit>>6] |= 1 << (bit & 63)
	}
}
