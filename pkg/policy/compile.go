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

// The placeholders of the contract documents (builder.contractVars) and
// of the shipping policy (shippingVars). No label names one but the
// governing law's text, which contractVars expands itself (TestLibrary).
var (
	contractPlaceholders = []int{phGoverningLaw, phGoverningLawText, phMinimumAge, phBillingPeriod,
		phCancellationMethod, phSubscriptionTerms, phRefundWindowDays, phReturnShippingPaidBy}
	shippingPlaceholders = []int{phShippingRegions, phDispatchTime}
)

// namesAny reports whether a line of lines names one of the placeholders phs.
func namesAny(lines []line, phs []int) bool {
	for _, l := range lines {
		for _, s := range l.segs {
			if s.runs == nil && slices.Contains(phs, s.ph) {
				return true
			}
		}
	}
	return false
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

// escRuns are a run of plain text as the document's inline for each
// value of Inline.esc, escaped when the library is compiled
// (literalRuns): a builder takes the one for its document's format.
type escRuns = [3]Inline

// literalRuns is text's escRuns, as literalSegment makes them.
func literalRuns(text string) escRuns { return *literalSegment(text).runs }

// literalSegment is the segment of a literal run.
func literalSegment(text string) segment {
	lit := &literal{md: mdEscape(text), html: htmlEscape(text)}
	return segment{text: text, ph: -1, lit: lit, runs: &[3]Inline{
		escNone:     {Kind: Plain, Text: text},
		escMarkdown: {Kind: Plain, esc: escMarkdown, Text: text, URL: lit.md},
		escHTML:     {Kind: Plain, esc: escHTML, Text: text, URL: lit.html},
	}}
}

// nextPlaceholder finds the first "{name}" (one or more ASCII letters
// between braces) in s at or after i, as the regular expression
// \{([A-Za-z]+)\} would: open and end are the offsets of its braces. It is
// the one reading of placeholders, for the compiler (compileText) and for
// Check; pkg/policy links no regexp package, whose unicode tables would be
// set up at every cold start of every function (docs/DECISIONS.md 46).
func nextPlaceholder(s string, i int) (open, end int, ok bool) {
	for {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			return 0, 0, false
		}
		j += i
		k := j + 1
		for k < len(s) && ('a' <= s[k] && s[k] <= 'z' || 'A' <= s[k] && s[k] <= 'Z') {
			k++
		}
		if k > j+1 && k < len(s) && s[k] == '}' {
			return j, k, true
		}
		i = j + 1
	}
}

// compileText splits s into literal runs and placeholders, as the
// generator has always read "{name}" (nextPlaceholder). A name that is no
// placeholder stays literal text, braces and all.
func compileText(s string) []segment {
	if strings.IndexByte(s, '{') < 0 {
		return []segment{literalSegment(s)}
	}
	var out []segment
	lit := 0 // start of the pending literal run
	for i := 0; ; {
		j, k, found := nextPlaceholder(s, i)
		if !found {
			break
		}
		i = k + 1
		ph, ok := placeholderNumber(s[j+1 : k])
		if !ok {
			continue
		}
		if j > lit {
			out = append(out, literalSegment(s[lit:j]))
		}
		out = append(out, segment{ph: ph})
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
	// block, on a paragraph or prominent line of literal text alone
	// (line.literal), is the paragraph itself for each value of
	// Inline.esc, in its section (compiledSection.setLineBlocks). The
	// builder takes it as it is: nothing changes a tree once it is built.
	block *[3]Block
}

// condition is a compiled "when" list: every group must hold, and a group
// holds when one of its terms does (a term is a condition bit, maybe
// negated). A group of several terms has a bit of its own, set for the
// document when one of them holds (conditionBits.setGroups), so that a
// condition is only bits that must be set or clear, tested a word at a
// time: the first word's (set and clear, in word) with no loop, the
// others' in more (a document tests a few hundred conditions, a quarter
// of them empty, some of a dozen groups, mostly in one word).
type condition struct {
	word       int
	set, clear uint64
	more       []condWord
}

// condWord is the bits of a condition in one word of the set: those that
// must be set and those that must be clear.
type condWord struct {
	word       int
	set, clear uint64
}

// condGroup is a group of several terms and the bit it sets when one
// holds.
type condGroup struct {
	bit   int
	terms []condTerm
}

// condTerm is a term of a group of several.
type condTerm struct {
	word int    // the bit's word in the set
	neg  bool   // the term holds when the bit is clear
	mask uint64 // the bit in its word
}

// holds reports whether c holds for the condition bits set (at least a
// word: conditionBits.reset), the groups' bits set.
func (c *condition) holds(set []uint64) bool {
	if x := set[c.word]; x&c.set != c.set || x&c.clear != 0 {
		return false
	}
	for _, w := range c.more {
		if x := set[w.word]; x&w.set != w.set || x&w.clear != 0 {
			return false
		}
	}
	return true
}

// program is a document type compiled for one language.
type program struct {
	// contractWords and shippingWords say whether the program's lines
	// name a placeholder of contractPlaceholders or shippingPlaceholders:
	// setVars makes those values only for a program that shows them (a
	// privacy policy shows neither).
	contractWords, shippingWords bool
	title                        string
	// titleRuns are the title as a literal run (segment.runs): the
	// document's title, as the section headings are.
	titleRuns *[3]Inline
	sections  []compiledSection
}

type compiledSection struct {
	id      string
	heading string
	anchor  string
	href    string // "#" + anchor, for the table of contents
	// headingRuns are the heading as a literal run (segment.runs),
	// escaped once for the formats that escape: every document that
	// shows the section shares them.
	headingRuns *[3]Inline
	// headBlocks are the section's heading block for each value of
	// Inline.esc (setLineBlocks).
	headBlocks [3]Block
	when       condition
	clauses    []compiledClause
}

type compiledClause struct {
	id    string
	when  condition
	lines []line
	// satisfies are the checklist positions (compiledLibrary.requirements)
	// of the requirements the clause satisfies, in the clause's order.
	satisfies []int
	// satisfied are satisfies as bits of a set by checklist position,
	// one word each (build ORs them in: a clause's requirements are
	// mostly a law's neighbouring items, so fewer words than items).
	satisfied []satisfiedWord
	// laws are the positions (compiledLibrary.laws) of those
	// requirements' laws, each once: a clause satisfies several items of
	// one or two laws, and clauseJurisdiction asks only about the laws.
	laws []int
	// jurisdictional is set when the clause's words can differ from one
	// listed jurisdiction to another (speaksOfJurisdiction): only then
	// does build find the jurisdiction it is about.
	jurisdictional bool
}

// satisfiedWord is a word of a set of checklist positions: mask holds
// the positions word*64 + i for each bit i.
type satisfiedWord struct {
	word int
	mask uint64
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
	// rendered forms, and each section's anchor with its whole heading
	// block rendered (addHeading, sectionHeading): a memo of the same kind.
	links map[string]*escapeMemo
	// conditions numbers every condition name the structures use, and
	// each group of several terms (compileWhen): groups are those.
	conditions map[string]int
	groups     []condGroup
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
// confirmed by its id (the same memory, for the embedded laws: no bytes
// compared), else looked up by id; -1 for a law the library
// does not number.
func (c *compiledLibrary) lawAt(l *compliance.Law) int {
	if p := l.Position(); p >= 0 && p < len(c.laws) && sameString(c.laws[p], l.ID) {
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
	// categoryRuns are the categories' names as runs (literalRuns): the
	// tables list them in many cells.
	categoryRuns []escRuns
	// categoriesLower are the categories' names with a lower-case first
	// letter, as runs (lowerRuns): the summary lists them in prose.
	categoriesLower []lowerRuns
	// headers are the cells of the tables' headers (tableHeader), and
	// ccpaLetters the cells naming the CCPA's categories ("ccpa.<letter>",
	// by position in ccpaLetters): words of the language alone.
	headers     [][][]Inline
	headerTexts []*headerText // headers rendered
	ccpaLetters []escRuns
	// services are the catalog's services' cells, by catalog service
	// (compileServices).
	services map[*catalog.Service]*serviceWords
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
	// transfer are its transfer tables' words, transferHeader their
	// header (compileTransferWords).
	transfer       transferWords
	transferHeader [][]Inline
	transferHead   *headerText
}

// purposeWords are a purpose's labels: "purpose.<id>" with each suffix
// of purposeLabelSuffix, by purposeName etc., and its ".withoutData"
// (what the person cannot have without giving the data) where it has one.
type purposeWords struct {
	labels [3]string
	// runs are labels as runs (literalRuns): the tables' cells.
	runs           [3]escRuns
	withoutData    string
	hasWithoutData bool
	// ccpaFirst is the first catalog position of a purpose with the
	// same CCPA name (its own, for the first): the CCPA tables name a
	// few purposes alike (ccpaPurposeNames).
	ccpaFirst int
	// shortLower is the ".short" label with a lower-case first letter,
	// as runs, and shortFirst the first catalog position of a purpose
	// whose shortLower reads the same (its own, for the first): the
	// summary names each such purpose once (genSummary).
	shortLower lowerRuns
	shortFirst int
}

// lowerRuns are a label with its first letter in lower case (split off
// as splitFirst does), as the document's runs for each value of
// Inline.esc: escaped when the library is compiled, as its literal text
// is (literalSegment), and shared by every document.
type lowerRuns [3][]Inline

func makeLowerRuns(s string) lowerRuns {
	var r lowerRuns
	first, rest, split := splitFirst(s, false)
	if !split {
		whole := literalSegment(s).runs
		for e := range r {
			r[e] = whole[e : e+1 : e+1]
		}
		return r
	}
	f, t := literalSegment(first).runs, literalSegment(rest).runs
	for e := range r {
		r[e] = []Inline{f[e], t[e]}
	}
	return r
}

// compileWords makes the words of cat's entries and of the laws (by
// their ids, in compiledLibrary.laws order) in the language t.
func compileWords(t *Wording, cat *catalog.Catalog, laws []string) *catalogWords {
	w := &catalogWords{
		lawNames:        make([]string, len(laws)),
		jurisdictions:   make([]jurisdictionWords, len(cat.Jurisdictions)),
		purposes:        make([]purposeWords, len(cat.Purposes)),
		categories:      make([]string, len(cat.DataCategories)),
		categoriesLower: make([]lowerRuns, len(cat.DataCategories)),
		categoryRuns:    make([]escRuns, len(cat.DataCategories)),
		headers:         headerCells(t),
		ccpaLetters:     make([]escRuns, len(ccpaLetters)),
	}
	w.headerTexts = headerTexts(w.headers)
	w.services = compileServices(t, cat)
	for i, letter := range ccpaLetters {
		w.ccpaLetters[i] = literalRuns(t.Labels["ccpa."+letter])
	}
	for i := range cat.Jurisdictions {
		j := &cat.Jurisdictions[i]
		jw := &w.jurisdictions[i]
		jw.region = []Inline{{Kind: Plain, Text: t.Labels["region."+j.ID]}}
		jw.transfer, jw.transferHeader = compileTransferWords(t, j.ID, w.headers)
		jw.transferHead = renderHeader(jw.transferHeader)
		if a := j.Authority; a != nil {
			jw.authorityName = []Inline{{Kind: Plain, Text: a.Name}}
			jw.authorityURL = []Inline{{Kind: Link, Text: a.URL, URL: a.URL}}
		}
	}
	for i := range cat.Purposes {
		id, pw := cat.Purposes[i].ID, &w.purposes[i]
		for k, suffix := range purposeLabelSuffix {
			pw.labels[k] = t.Labels["purpose."+id+suffix]
			pw.runs[k] = literalRuns(pw.labels[k])
		}
		pw.withoutData, pw.hasWithoutData = t.Labels["purpose."+id+".withoutData"]
		pw.ccpaFirst = i
		for k := range i {
			if w.purposes[k].labels[purposeCCPA] == pw.labels[purposeCCPA] {
				pw.ccpaFirst = k
				break
			}
		}
		pw.shortLower, pw.shortFirst = makeLowerRuns(pw.labels[purposeShort]), i
		for k := range i {
			if sameLowerFirst(w.purposes[k].labels[purposeShort], pw.labels[purposeShort]) {
				pw.shortFirst = k
				break
			}
		}
	}
	for i := range cat.DataCategories {
		w.categories[i] = t.Labels["category."+cat.DataCategories[i].ID]
		w.categoriesLower[i] = makeLowerRuns(w.categories[i])
		w.categoryRuns[i] = literalRuns(w.categories[i])
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
			p := &program{title: t.Titles[typ], titleRuns: literalSegment(t.Titles[typ]).runs, sections: make([]compiledSection, len(s.Sections))}
			for i, sec := range s.Sections {
				heading := t.Sections[sec.ID]
				anchor := slug(heading)
				cs := compiledSection{id: sec.ID, heading: heading, anchor: anchor, href: "#" + anchor, headingRuns: literalSegment(heading).runs,
					when: c.compileWhen(sec.When), clauses: make([]compiledClause, len(sec.Clauses))}
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
					cc.satisfied = satisfiedSet(cc.satisfies)
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
					p.contractWords = p.contractWords || namesAny(cc.lines, contractPlaceholders)
					p.shippingWords = p.shippingWords || namesAny(cc.lines, shippingPlaceholders)
					cs.clauses[j] = cc
				}
				cs.setLineBlocks()
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

// satisfiedSet is the set of the checklist positions ps, a word each.
func satisfiedSet(ps []int) []satisfiedWord {
	var ws []satisfiedWord
	for _, n := range ps {
		i := slices.IndexFunc(ws, func(w satisfiedWord) bool { return w.word == n>>6 })
		if i < 0 {
			i = len(ws)
			ws = append(ws, satisfiedWord{word: n >> 6})
		}
		ws[i].mask |= 1 << (n & 63)
	}
	return ws
}

// compileWhen compiles a "when" list ("a|!b" is a group of two terms),
// numbering the condition names it meets for the first time.
func (c *compiledLibrary) compileWhen(when []string) condition {
	var cond condition
	for _, w := range when {
		alts := strings.Split(w, "|")
		if len(alts) == 1 {
			name, neg := strings.CutPrefix(w, "!")
			cond.addBit(c.conditionNumber(name), neg)
			continue
		}
		// The group's own bit is named by its text, "|" and all, which
		// no condition's name holds; a group met again has it already.
		bit, ok := c.conditions[w]
		if !ok {
			var g condGroup
			for _, alt := range alts {
				name, neg := strings.CutPrefix(alt, "!")
				t := c.conditionNumber(name)
				g.terms = append(g.terms, condTerm{word: t >> 6, neg: neg, mask: 1 << (t & 63)})
			}
			g.bit = c.conditionNumber(w)
			c.groups = append(c.groups, g)
			bit = g.bit
		}
		cond.addBit(bit, false)
	}
	return cond
}

// conditionNumber is the bit of the condition called name, numbered when
// first met.
func (c *compiledLibrary) conditionNumber(name string) int {
	bit, ok := c.conditions[name]
	if !ok {
		bit = len(c.conditions)
		c.conditions[name] = bit
	}
	return bit
}

// addBit adds a group of one term, bit set (or clear, for neg), to c's
// words: the first word's when it is there or c has none yet, else more.
func (c *condition) addBit(bit int, neg bool) {
	word, mask := bit>>6, uint64(1)<<(bit&63)
	set, clear := &c.set, &c.clear
	if c.set|c.clear != 0 && c.word != word {
		i := slices.IndexFunc(c.more, func(w condWord) bool { return w.word == word })
		if i < 0 {
			i = len(c.more)
			c.more = append(c.more, condWord{word: word})
		}
		set, clear = &c.more[i].set, &c.more[i].clear
	} else {
		c.word = word
	}
	if neg {
		*clear |= mask
	} else {
		*set |= mask
	}
}

// compileLine compiles one line of clause text: "- " lines are list
// items, "!" lines prominent paragraphs, "@name" lines generated blocks,
// anything else a paragraph.
func compileLine(s string) line {
	switch {
	case strings.HasPrefix(s, "@"):
		// segs keeps the name for the error of an unknown generator.
		return line{kind: lineGenerator, gen: generatorNamed(s[1:]), segs: []segment{{text: s, ph: -1}}}
	case strings.HasPrefix(s, "- "):
		return line{kind: lineItem, segs: compileText(s[2:])}
	case strings.HasPrefix(s, "!"):
		return line{kind: lineStrong, segs: compileText(s[1:])}
	}
	return line{kind: lineParagraph, segs: compileText(s)}
}

// literal is l's one run for each value of Inline.esc when l is literal
// text alone, as most clause lines are (segment.runs), else nil.
func (l *line) literal() *escRuns {
	if len(l.segs) == 1 {
		return l.segs[0].runs
	}
	return nil
}

// setLineBlocks makes the paragraph blocks of sec's literal paragraph
// and prominent lines (line.block), and its heading's (headBlocks).
func (sec *compiledSection) setLineBlocks() {
	for e := range sec.headBlocks {
		sec.headBlocks[e] = Block{Kind: Heading, Level: 2, Section: sec.id, Anchor: sec.anchor, Inlines: sec.headingRuns[e : e+1 : e+1]}
	}
	for ci := range sec.clauses {
		for li := range sec.clauses[ci].lines {
			l := &sec.clauses[ci].lines[li]
			runs := l.literal()
			if runs == nil || l.kind == lineItem || l.kind == lineGenerator {
				continue
			}
			l.block = new([3]Block)
			for e := range l.block {
				l.block[e] = Block{Kind: Paragraph, Strong: l.kind == lineStrong, Section: sec.id, Inlines: runs[e : e+1 : e+1]}
			}
		}
	}
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
	n := max((len(lib.conditions)+63)/64, 1) // condition.holds reads a word
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

// setGroups sets the bit of each group of several terms that holds
// (compileWhen), once every fact's bit is set: conditions then test bits
// alone (condition.holds).
func (c *conditionBits) setGroups() {
	for _, g := range c.lib.groups {
		for _, t := range g.terms {
			if (c.bits[t.word]&t.mask != 0) != t.neg {
				c.setBit(g.bit)
				break
			}
		}
	}
}

// setBit records that the condition numbered bit holds (-1: none).
func (c *conditionBits) setBit(bit int) {
	if bit >= 0 {
		c.bits[bit>>6] |= 1 << (bit & 63)
	}
}
