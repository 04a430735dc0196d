package policy

import (
	"slices"
	"strings"
	"sync"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// A generator adds the blocks a clause line "@name" stands for: the lists
// and tables whose rows come from the facts. Their words come from the
// language's labels, so they are language-neutral too. Text they compose
// is a run of inlines taken from the labels and the facts, never a string
// built for the document.
type generator func(*builder)

// generators are the generators by the name clause lines use ("@name"),
// static data rather than a map, so that no package init builds them at a
// Lambda cold start; they are looked up when the library is compiled.
var generators = []struct {
	name string
	gen  generator
}{
	{"categories", genCategories},
	{"purposes", genPurposes},
	{"interests", genInterests},
	{"ccpaPurposes", genCCPAPurposes},
	{"plainPurposes", genPlainPurposes},
	{"services", genServices},
	{"transfers", genTransfers},
	{"cookies", genCookies},
	{"retentionPurposes", genRetentionPurposes},
	{"retentionCategories", genRetentionCategories},
	{"ccpaCategories", genCCPACategories},
	{"ccpaSensitive", genCCPASensitive},
	{"ccpaSold", genCCPASold},
	{"ccpaDisclosed", genCCPADisclosed},
	{"cookiePurposes", genCookiePurposes},
	{"ccpaSources", genCCPASources},
	{"cookiesUnknown", genCookiesUnknown},
	// Cookie policy (issue 8, t2): cookie_policy.go.
	{"cookieTable", genCookieTable},
	{"cookiePolicyUnknown", genCookiePolicyUnknown},
	{"summary", genSummary},
	{"representatives", genRepresentatives},
	{"toc", genContents},
	{"usShared", genUSShared},
}

// generatorNamed is the generator called name, or nil.
func generatorNamed(name string) generator {
	for _, g := range generators {
		if g.name == name {
			return g.gen
		}
	}
	return nil
}

// table collects a table's rows in the builder's scratch space; block
// stores them in the arenas. One table is built at a time.
type table struct {
	b      *builder
	header [][]Inline
	head   *headerText // header rendered (headerTexts)
	rows   [][][]Inline
}

// newTable starts a table with header h, its cells compiled with the
// library (headerCells) and rendered (headerTexts). Tables share them:
// nothing changes a tree once it is built. A table with another header
// sets t.header and t.head together; Block.header discards a rendered
// header that is not the block's own.
func (b *builder) newTable(t *table, h *tableHeader) {
	t.b = b
	t.header, t.head = b.words.headers[h.n], b.words.headerTexts[h.n]
	t.rows = b.rowBuf[:0]
}

// tableHeader is a table's columns: the keys of their labels
// (table.<key>). Each language's header cells are compiled with the
// library (catalogWords.headers, by n): every document has tables, and
// each table's header had looked its labels up and made its cells again.
type tableHeader struct {
	n    int // its position in tableHeaders
	keys []string
}

// tableHeaders are the headers of every table, in the order of their
// declarations.
var tableHeaders []*tableHeader

// header declares a table's columns by the keys of their labels.
func header(keys ...string) *tableHeader {
	h := &tableHeader{n: len(tableHeaders), keys: keys}
	tableHeaders = append(tableHeaders, h)
	return h
}

// The tables' headers.
var (
	categoriesHeader          = header("category", "examples", "source")
	purposesHeader            = header("purpose", "personalData", "basis")
	servicesHeader            = header("service", "provider", "purpose", "data", "role", "policy")
	transfersHeader           = header("service", "country", "adequacy", "safeguard")
	cookiesHeader             = header("cookie", "provider", "purpose", "duration", "cookieType")
	cookiePolicyHeader        = header("cookie", "provider", "purpose", "duration", "party", "cookieType")
	retentionPurposesHeader   = header("purpose", "retention")
	retentionCategoriesHeader = header("category", "retention")
	ccpaCategoriesHeader      = header("ccpaCategory", "examples", "source", "purposes", "soldShared")
	ccpaSensitiveHeader       = header("category", "purposes", "soldShared")
	ccpaSoldHeader            = header("ccpaCategory", "thirdParties", "sellPurposes")
	ccpaDisclosedHeader       = header("ccpaCategory", "disclosedTo", "disclosePurposes")
	usSharedHeader            = header("category", "thirdParties")
)

// headerCells are the cells of every table's header in the language t,
// by tableHeader.n.
func headerCells(t *Wording) [][][]Inline {
	out := make([][][]Inline, len(tableHeaders))
	for _, h := range tableHeaders {
		cells := make([][]Inline, len(h.keys))
		for i, k := range h.keys {
			cells[i] = []Inline{{Kind: Plain, Text: t.Labels["table."+k]}}
		}
		out[h.n] = cells
	}
	return out
}

// headerTexts are headers' cells (headerCells) rendered, by
// tableHeader.n.
func headerTexts(cells [][][]Inline) []*headerText {
	out := make([]*headerText, len(cells))
	for i, h := range cells {
		out[i] = renderHeader(h)
	}
	return out
}

// row adds a row.
func (t *table) row(cells ...[]Inline) {
	t.rows = append(t.rows, t.b.cells.copy(cells))
}

// block is the table as a block (nil rows when it has none).
func (t *table) block() Block {
	t.b.rowBuf = t.rows[:0]
	return Block{Kind: Table, Header: t.header, head: t.head, Rows: t.b.rows.copy(t.rows)}
}

// list collects a generated list's items in the builder's scratch space.
type list struct {
	b     *builder
	items [][]Inline
}

func (b *builder) newList(l *list) {
	l.b, l.items = b, b.listBuf[:0]
}

func (l *list) add(item []Inline) { l.items = append(l.items, item) }

// emit adds the list to the document (emit copies the items).
func (l *list) emit() {
	l.b.emit(Block{Kind: List, Items: l.items})
	l.b.listBuf = l.items[:0]
}

// genContents is the table of contents: an empty list that build fills
// with the sections that follow (fillContents).
func genContents(b *builder) { b.emit(Block{Kind: List}) }

// genSummary is the layered notice's first layer: who we are, what we
// collect and why, who gets it, the reader's rights and how to reach us.
func genSummary(b *builder) {
	f, esc := b.f, b.esc
	var cb, pb [32][]Inline
	var rb [32]string
	cats, purposes, recipients := cb[:0], pb[:0], rb[:0]
	for ci := range f.Categories {
		cats = append(cats, b.words.categoriesLower[f.Categories[ci].pos][esc])
	}
	// A purpose whose short name reads as an earlier one's is named once
	// (shortFirst): by catalog position, a bit each.
	seen := &b.summaryPurposes
	seen.reset()
	for i := range f.Purposes {
		if w := &b.words.purposes[f.Purposes[i].pos]; seen.add(w.shortFirst) {
			purposes = append(purposes, w.shortLower[esc])
		}
	}
	for i := range f.Services {
		recipients = append(recipients, f.Services[i].Name)
	}
	recipients = append(recipients, f.Unknown...)
	if !f.hostKnown() {
		recipients = append(recipients, b.label("summary.host"))
	}
	var l list
	b.newList(&l)
	l.add(b.labelInlines("summary.who"))
	l.add(b.labelInlines("summary.what", extra{phCategories, b.joinRuns(cats)}))
	l.add(b.labelInlines("summary.why", extra{phPurposes, b.joinRuns(purposes)}))
	l.add(b.labelInlines("summary.recipients", extra{phRecipients, b.join(recipients)}))
	if f.HasLaw(lawCCPA) {
		if f.Set[compliance.FactSellsOrShares] {
			l.add(b.labelInlines("summary.sold"))
		} else {
			l.add(b.labelInlines("summary.notSold"))
		}
	}
	switch {
	case f.gdprFamily():
		l.add(b.labelInlines("summary.rights.gdpr"))
	case f.HasLaw(lawCCPA):
		l.add(b.labelInlines("summary.rights.ccpa"))
	case f.usStateLaw(): // issue 8: US state privacy laws
		l.add(b.labelInlines("summary.rights.usStates"))
	default:
		// Issue 8, part j1: a law with its own summary of rights
		// ("summary.rights.<law id>") names them; else CalOPPA's choices.
		key := "summary.rights.caloppa"
		for _, law := range f.Laws {
			if b.hasLabel2("summary.rights.", law.ID) {
				key = "summary.rights." + law.ID
				break
			}
		}
		l.add(b.labelInlines(key))
	}
	l.add(b.labelInlines("summary.contact"))
	l.emit()
}

// joinRuns lists items, each given as runs, in prose ("a, b and c";
// none for no items).
func (b *builder) joinRuns(items [][]Inline) []Inline {
	if len(items) == 0 {
		return b.join(nil)
	}
	out := b.ins.alloc(runsLen(items) + len(items) - 1) // and the separators
	k := 0
	for i, it := range items {
		k += move(out[k:], it)
		k = b.putSep(out, k, i, len(items))
	}
	return out
}

// joinCategories lists in prose, as join does, the names of the data
// categories at catalog positions pos, each the compiled run carrying
// its escaped form (catalogWords.categoryRuns).
func (b *builder) joinCategories(pos []int) []Inline {
	if len(pos) == 0 {
		return b.join(nil)
	}
	runs, esc := b.words.categoryRuns, b.esc
	out := b.ins.alloc(2*len(pos) - 1)
	k := 0
	for i, p := range pos {
		out[k] = runs[p][esc]
		k = b.putSep(out, k+1, i, len(pos))
	}
	return out
}

// appendJoinRuns appends items, runs (one or more), listed in prose to
// dst, as joinRuns lists them.
func (b *builder) appendJoinRuns(dst, items []Inline) []Inline {
	k := len(dst)
	dst = slices.Grow(dst, 2*len(items)-1)[:k+2*len(items)-1]
	for i := range items {
		dst[k] = items[i]
		k = b.putSep(dst, k+1, i, len(items))
	}
	return dst
}

// putSep writes at out[k] the separator that follows item i of n listed
// in prose, if any, and returns where the next run goes.
func (b *builder) putSep(out []Inline, k, i, n int) int {
	switch {
	case i < n-2:
		out[k] = b.seps[sepList]
	case i == n-2:
		out[k] = b.seps[sepLast]
	default:
		return k
	}
	return k + 1
}

// joinLower lists items in prose, each with its first letter in lower
// case (the list's "none" stays as the label has it).
func (b *builder) joinLower(items []string) []Inline {
	if len(items) == 0 {
		return b.join(items)
	}
	n := 2*len(items) - 1
	for _, it := range items {
		if _, _, split := splitFirst(it, false); split {
			n++
		}
	}
	out := b.ins.alloc(n)
	k := 0
	for i, it := range items {
		if first, rest, split := splitFirst(it, false); split {
			out[k], out[k+1] = Inline{Kind: Plain, Text: first}, Inline{Kind: Plain, Text: rest}
			k += 2
		} else {
			out[k] = Inline{Kind: Plain, Text: it}
			k++
		}
		k = b.putSep(out, k, i, len(items))
	}
	return out
}

// labelSegsFor is the compiled label key.<jurisdiction> where the
// language has it, else key's.
func (b *builder) labelSegsFor(key, jurisdiction string) []segment {
	var buf [96]byte
	if segs, ok := b.labels[string(append(append(append(buf[:0], key...), '.'), jurisdiction...))]; ok {
		return segs
	}
	return b.labels[key]
}

// sourcesCell names sources (a data category's or a CCPA group's, in
// their order) in prose with a capital first letter. A document has a
// few combinations of its three sources, each made once (the category
// and CCPA tables repeat them row after row).
func (b *builder) sourcesCell(sources []string) []Inline {
	for k := range b.sourceCells {
		if slices.Equal(b.sourceCells[k].sources, sources) {
			return b.sourceCells[k].cell
		}
	}
	var sb [3]string
	names := sb[:0]
	for _, s := range sources {
		names = append(names, b.label2("source.", s))
	}
	cell := b.capFirst(b.join(names))
	b.sourceCells = append(b.sourceCells, sourceCell{sources, cell})
	return cell
}

type sourceCell struct {
	sources []string // the facts' own, unchanged while the document is built
	cell    []Inline
}

// examples is what a data category includes, limited to what the facts
// support: no cookie identifiers without cookies, no emails without an
// email service. Worked out once per category and document.
func (b *builder) examples(id string) []Inline {
	for _, e := range b.exampleCache {
		if e.id == id {
			return e.ins
		}
	}
	ins := b.makeExamples(id)
	b.exampleCache = append(b.exampleCache, cachedExamples{id, ins})
	return ins
}

type cachedExamples struct {
	id  string
	ins []Inline
}

func (b *builder) makeExamples(id string) []Inline {
	f := b.f
	var pb [4]string
	parts := pb[:0]
	switch id {
	case "identifiers":
		parts = append(parts, b.label("example.ipAddress"))
		if f.cookiesKnown() || slices.ContainsFunc(f.Services, func(s ServiceFact) bool { return s.CookiesUnknown() }) {
			parts = append(parts, b.label("example.cookieIds"))
		}
		if f.Request.CollectsUserData || f.hasPurpose("account") || f.hasPurpose("orders") || f.hasPurpose("payments") {
			parts = append(parts, b.label("example.accountIds"))
		}
		return b.labelInlines("category.identifiers.examples", extra{phExamples, b.capFirst(b.join(parts))})
	case "internet_activity":
		parts = append(parts, b.label("example.channel.website"))
		if f.hasServiceCategory("email_marketing") || f.hasServiceCategory("crm") {
			parts = append(parts, b.label("example.channel.emails"))
		}
		if f.hasServiceCategory("advertising") {
			parts = append(parts, b.label("example.channel.ads"))
		}
		return b.labelInlines("category.internet_activity.examples", extra{phChannels, b.join(parts)})
	}
	return b.str(b.label3("category.", id, ".examples"))
}

func (f *Facts) hasPurpose(id string) bool {
	return slices.ContainsFunc(f.Purposes, func(p PurposeFact) bool { return p.ID == id })
}

func (f *Facts) hasServiceCategory(id string) bool {
	return slices.ContainsFunc(f.Services, func(s ServiceFact) bool { return s.Category == id })
}

// categoryName is the name of the data category at position k of the
// facts' categories (compiled with the library: the tables name each
// category many times).
func (b *builder) categoryName(k int) string {
	return b.words.categories[b.f.Categories[k].pos]
}

// categoryCell is categoryName(k) as a cell: the compiled run itself,
// shared.
func (b *builder) categoryCell(k int) []Inline {
	return b.run(&b.words.categoryRuns[b.f.Categories[k].pos])
}

// categoriesIn lists in prose, in the facts' (catalog) order, the names of
// the data categories whose catalog positions are in set (a purpose's
// categorySet: its Categories).
func (b *builder) categoriesIn(set *posSet) []Inline {
	names := b.namePos[:0]
	b.indexPositions()
	for pos := set.next(0); pos >= 0; pos = set.next(pos + 1) {
		if b.indexAt(b.categoryAt, pos) >= 0 {
			names = append(names, pos)
		}
	}
	b.namePos = names[:0]
	return b.joinCategories(names)
}

// indexAt is the index in the facts' categories (at is b.categoryAt)
// or purposes (b.purposeAt) of the one at catalog position pos, or -1.
// Both lists are in catalog order, so a set's positions in ascending
// order give the list's order.
func (b *builder) indexAt(at []int, pos int) int {
	if pos < len(at) {
		return at[pos]
	}
	return -1
}

// indexPositions makes categoryAt and purposeAt, once per document.
func (b *builder) indexPositions() {
	if b.positionsSet {
		return
	}
	b.positionsSet = true
	at := func(at []int, pos, i int) []int {
		for len(at) <= pos {
			at = append(at, -1)
		}
		at[pos] = i
		return at
	}
	for i := range b.f.Categories {
		b.categoryAt = at(b.categoryAt, b.f.Categories[i].pos, i)
	}
	for i := range b.f.Purposes {
		b.purposeAt = at(b.purposeAt, b.f.Purposes[i].pos, i)
	}
}

// receivedBy lists in prose, in catalog order, the names of the data
// categories the service at position i of the facts' services receives
// here (a host only what the website collects). Services that receive
// the same categories share the cell, made once per document: most
// receive the few that every website collects.
func (b *builder) receivedBy(i int) []Inline {
	cats := b.f.Categories
	var received uint64 // by position in cats, when they fit a word
	memo := len(cats) <= 64
	if memo {
		received = b.receivedOf(i)
		for _, c := range b.receivedCells {
			if c.received == received {
				return c.cell
			}
		}
	}
	names := b.namePos[:0]
	for k := range cats {
		if cats[k].recipientSet.has(i) {
			names = append(names, cats[k].pos)
		}
	}
	b.namePos = names[:0]
	cell := b.joinCategories(names)
	if memo {
		b.receivedCells = append(b.receivedCells, receivedCell{received, cell})
	}
	return cell
}

// receivedOf is the categories the service at position i receives, as
// bits by position in the facts' categories (at most 64 of them). It is
// worked out for every service at the first call, once per document, by
// going through each category's recipients rather than asking every
// category about each service (the services table asks for each).
func (b *builder) receivedOf(i int) uint64 {
	if len(b.received) == 0 {
		n := len(b.f.Services)
		b.received = slices.Grow(b.received[:0], n)[:n]
		clear(b.received)
		for k := range b.f.Categories {
			set := &b.f.Categories[k].recipientSet
			for si := set.next(0); si >= 0 && si < n; si = set.next(si + 1) {
				b.received[si] |= 1 << k
			}
		}
	}
	return b.received[i]
}

// receivedCell is a cell of receivedBy: the categories received, as bits
// by position in the facts' categories, named.
type receivedCell struct {
	received uint64
	cell     []Inline
}

func genCategories(b *builder) {
	var t table
	b.newTable(&t, categoriesHeader)
	for ci := range b.f.Categories {
		c := &b.f.Categories[ci]
		t.row(b.categoryCell(ci), b.examples(c.ID), b.sourcesCell(c.Sources))
	}
	b.emit(t.block())
}

func genPurposes(b *builder) {
	var t table
	b.newTable(&t, purposesHeader)
	// Each basis's cell, made once for the table: the purposes share a
	// few bases.
	type basisCell struct {
		basis string
		cell  []Inline
	}
	var cb [8]basisCell
	cells := cb[:0]
	for i := range b.f.Purposes {
		p := &b.f.Purposes[i]
		var cell []Inline
		for k := range cells {
			if cells[k].basis == p.GDPRBasis {
				cell = cells[k].cell
				break
			}
		}
		if cell == nil {
			// A jurisdiction may name its own article (issue 8, j1).
			var buf [64]byte
			cell = b.expand(b.labelSegsFor(string(append(append(buf[:0], "basis."...), p.GDPRBasis...)), b.f.Jurisdiction.ID))
			cells = append(cells, basisCell{p.GDPRBasis, cell})
		}
		name, data := b.purposeCells(i)
		t.row(name, data, cell)
	}
	b.emit(t.block())
}

// purposeCells are the name and data cells of the purpose at position i
// of the facts' purposes, made once per document: a document for several
// laws may show the purposes table twice, in each law's terms only the
// basis differs.
func (b *builder) purposeCells(i int) (name, data []Inline) {
	if len(b.purposeRows) != len(b.f.Purposes) {
		b.purposeRows = append(b.purposeRows[:0], make([][2][]Inline, len(b.f.Purposes))...)
	}
	c := &b.purposeRows[i]
	if c[0] == nil {
		c[0], c[1] = b.purposeCell(i, purposeName), b.categoriesIn(&b.f.Purposes[i].categorySet)
	}
	return c[0], c[1]
}

func genInterests(b *builder) {
	var l list
	b.newList(&l)
	for pi := range b.f.Purposes {
		p := &b.f.Purposes[pi]
		if p.GDPRBasis == "legitimate_interests" {
			lf := b.lowerFirst(b.label3("purpose.", p.ID, ".interest"))
			l.add(b.cat(b.strs(b.label2("purpose.", p.ID), ": "), lf, b.str(".")))
		}
	}
	l.emit()
}

func genCCPAPurposes(b *builder) { genPurposeNames(b, ".ccpa") }

// genPlainPurposes lists the purposes in words that belong to no one law:
// a purpose's ".plain" label where it has one (the CCPA's "cross-context
// behavioural advertising" is a defined term of that Act), else its
// ".ccpa" label.
func genPlainPurposes(b *builder) { genPurposeNames(b, ".plain") }

func genPurposeNames(b *builder, suffix string) {
	var l list
	b.newList(&l)
	var sb [32]string
	seen := sb[:0]
	for pi := range b.f.Purposes {
		p := &b.f.Purposes[pi]
		var s string
		if suffix != purposeLabelSuffix[purposeCCPA] {
			s = b.label3("purpose.", p.ID, suffix)
		}
		if s == "" {
			s = b.purposeLabel(pi, purposeCCPA) // the CCPA tables' too
		}
		if !slices.Contains(seen, s) {
			seen = append(seen, s)
			l.add(b.strs(s, "."))
		}
	}
	l.emit()
}

func genServices(b *builder) {
	var t table
	b.newTable(&t, servicesHeader)
	names := b.serviceNames()
	for i := range b.f.Services {
		s := &b.f.Services[i]
		w := b.words.services[s.Service]
		var purpose []Inline
		if w != nil {
			purpose = b.run(&w.purpose)
		} else { // a service of another catalog
			purpose = b.str(s.Purpose)
		}
		t.row(names[i], b.providerCell(s.Service, w), purpose, b.receivedBy(i),
			b.role(s), b.link(s.PrivacyPolicyURL))
	}
	b.emit(t.block())
}

// providerCell is the services table's cell naming service s's provider,
// with its EU entity where the document's jurisdiction names it, and its
// country: catalog data and the language's words alone, compiled with
// the library (serviceWords.provider: w, nil for a service of another
// catalog than the library's) as one run with its escaped forms, rather
// than composed of up to six runs for every document.
func (b *builder) providerCell(s *catalog.Service, w *serviceWords) []Inline {
	eu := 0
	if b.f.Jurisdiction.EUEntity {
		eu = 1
	}
	if w != nil {
		return b.run(&w.provider[eu])
	}
	var pb [6]string
	return b.strs(providerParts(s, eu == 1, b.country, b.label("country.unknown"), pb[:0])...)
}

// run is r, compiled with the library, as one run in the document's
// format: a cell the renderer copies (appendMDRow), shared by every
// document that shows it.
func (b *builder) run(r *escRuns) []Inline {
	return r[b.esc : b.esc+1 : b.esc+1]
}

// providerParts are the pieces of service s's provider cell (providerCell),
// country naming a country by its code and unknown the word for a provider
// the catalog does not name.
func providerParts(s *catalog.Service, euEntity bool, country func(string) string, unknown string, dst []string) []string {
	if s.Provider == "" {
		dst = append(dst, unknown)
	} else {
		dst = append(dst, s.Provider)
	}
	if s.EUEntity != "" && euEntity && s.EUEntity != s.Provider {
		dst = append(dst, " (", s.EUEntity, ")")
	}
	if s.ProviderCountry != "" {
		dst = append(dst, ", ", country(s.ProviderCountry))
	}
	return dst
}

// serviceWords are a catalog service's cells in a language, each one
// run in every format (escRuns), compiled with the library: the services
// and cookie tables show them in every document that names the service,
// and each cell had been made for the document and its text escaped, or
// looked up in the escape memo, as it was rendered.
type serviceWords struct {
	// provider is the provider cell (providerCell) without and with
	// the EU entity.
	provider [2]escRuns
	purpose  escRuns
	// cookies are the cells of its cookies, by position in Cookies.
	cookies []cookieWords
}

// cookieWords are a cookie's cells in the cookie tables: its duration
// the language's word for an unknown one where the catalog gives none.
type cookieWords struct {
	name, purpose, duration escRuns
}

// compileServices makes the cells (serviceWords) of cat's services in
// the language t.
func compileServices(t *Wording, cat *catalog.Catalog) map[*catalog.Service]*serviceWords {
	country := func(code string) string {
		if n := t.Labels["country."+code]; n != "" {
			return n
		}
		return CountryName(code)
	}
	out := make(map[*catalog.Service]*serviceWords, len(cat.Services))
	for i := range cat.Services {
		s := &cat.Services[i]
		w := &serviceWords{purpose: literalRuns(s.Purpose), cookies: make([]cookieWords, len(s.Cookies))}
		for eu := range w.provider {
			w.provider[eu] = literalRuns(strings.Join(providerParts(s, eu == 1, country, t.Labels["country.unknown"], nil), ""))
		}
		for k := range s.Cookies {
			c := &s.Cookies[k]
			w.cookies[k] = cookieWords{name: literalRuns(c.Name), purpose: literalRuns(c.Purpose), duration: literalRuns(cookieDuration(c, t.Labels["cookie.durationUnknown"]))}
		}
		out[s] = w
	}
	return out
}

// link is a URL as a link, or "Not confirmed" when the catalog has none.
func (b *builder) link(url string) []Inline {
	if url == "" {
		return b.str(b.label("country.unknown"))
	}
	return b.linkTo(url, url)
}

// role describes the provider's GDPR role for each purpose it serves, as
// its terms state it: "Processor", or "Processor (payments); Controller
// (security)". A purpose without a recorded role is not characterised.
func (b *builder) role(s *ServiceFact) []Inline {
	var rb [4]string
	roles := rb[:0]
	withRole := 0
	for _, p := range s.Purposes {
		if r, ok := s.roleFor(p, b.f.gdprFamily()); ok {
			withRole++
			if !slices.Contains(roles, r) {
				roles = append(roles, r)
			}
		}
	}
	switch len(roles) {
	case 0:
		return b.roleCell("unknown")
	case 1:
		if withRole == len(s.Purposes) {
			return b.roleCell(roles[0])
		}
	}
	var pb [8][]Inline
	parts := pb[:0]
	for i, r := range roles {
		if i > 0 {
			parts = append(parts, b.seps[sepSemicolon:sepSemicolon+1])
		}
		var nb [16]string
		names := nb[:0]
		for _, p := range s.Purposes {
			if pr, _ := s.roleFor(p, b.f.gdprFamily()); pr == r {
				names = append(names, b.label3("purpose.", p, ".short"))
			}
		}
		parts = append(parts, b.labelInlines("role.for",
			extra{phRole, b.str(b.label2("role.", r))}, extra{phPurposes, b.joinLower(names)}))
	}
	return b.cat(parts...)
}

// roleCell is the cell naming role r ("role.<r>"), made once per
// document: the services table repeats a few roles row after row.
func (b *builder) roleCell(r string) []Inline {
	for _, c := range b.roleCells {
		if c.role == r {
			return c.cell
		}
	}
	cell := b.literalRun(b.label2("role.", r))
	b.roleCells = append(b.roleCells, roleCell{r, cell})
	return cell
}

type roleCell struct {
	role string
	cell []Inline
}

// roleFor is the provider's role for purpose p. Joint controllership is
// the GDPR's (Art. 26) and its providers' terms state it under that law
// (Meta's Controller Addendum), so outside the GDPR family such a provider
// is described only as a controller: it also decides itself how to use
// the data.
func (s *ServiceFact) roleFor(p string, gdpr bool) (string, bool) {
	r, ok := s.Roles[p]
	if ok && !gdpr && r == "joint_controller" {
		r = "controller"
	}
	return r, ok
}

func (b *builder) country(code string) string {
	i := countryBit(code)
	if i < 0 {
		return b.countryName(code)
	}
	// Remembered by code for the builder's language: the transfer tables
	// name a provider's country in each regime's table, and the catalog's
	// copies of a code are each a key of their own in the label cache.
	if b.countriesOf != b.t {
		b.countriesOf, b.countries = b.t, [26 * 26]string{}
	}
	if b.countries[i] == "" {
		b.countries[i] = b.countryName(code)
	}
	return b.countries[i]
}

// countryName is the country's label, or its English name.
func (b *builder) countryName(code string) string {
	if n := b.label2("country.", code); n != "" {
		return n
	}
	return CountryName(code)
}

// genTransfers is the table of transfers out of each transfer regime's
// region, each under a caption naming the regime when there are several.
func genTransfers(b *builder) {
	regimes := b.f.transferRegimes()
	if len(regimes) == 1 {
		b.emit(b.transferTable(0))
		return
	}
	for i := range regimes {
		b.useJurisdiction(&regimes[i])
		t := b.transferTable(i)
		if len(t.Rows) == 0 {
			continue
		}
		b.emit(Block{Kind: Paragraph, Inlines: b.labelInlines("transfer.regime")})
		b.emit(t)
	}
	b.useJurisdiction(nil)
}

// transferTable lists the services that transfer personal data out of the
// region of regime i (in transferRegimes), with what each transfer rests
// on under that regime's law. The regime's wording is looked up once per
// table, not once per row, and a service's name and country cells once
// per document (transferCells), not once per regime: the tables of a
// document for many jurisdictions have a row per service in each regime's
// table.
func (b *builder) transferTable(i int) Block {
	// A document that shows the tables twice (the general transfers
	// section and Switzerland's) makes each once: a table reads the
	// facts and the words of the regime current when it is made.
	for k := range b.transferTables {
		if tt := &b.transferTables[k]; tt.regime == i && tt.words == b.regime {
			return tt.block
		}
	}
	blk := b.makeTransferTable(i)
	b.transferTables = append(b.transferTables, transferTableMemo{regime: i, words: b.regime, block: blk})
	return blk
}

// transferTableMemo is a transfer table made for regime i in the words of
// a jurisdiction (builder.regime).
type transferTableMemo struct {
	regime int
	words  *catalog.Jurisdiction
	block  Block
}

func (b *builder) makeTransferTable(i int) Block {
	j := &b.f.transferRegimes()[i]
	// The words of the regime current (its law's: the UK's "adequacy
	// regulations"), compiled with the library, with the table's header.
	rw := b.regimeWords()
	w := &rw.transfer
	var t table
	b.newTable(&t, transfersHeader)
	t.header, t.head = rw.transferHeader, rw.transferHead
	var (
		ab [16]string // a row's access countries
		sc safeguardCells
	)
	esc := b.esc
	names, countries := b.transferCells()
	for k := range b.f.Services {
		s := &b.f.Services[k]
		out, basis := b.f.transferOf(i, k)
		if !out {
			continue
		}
		country := countries[k]
		access := ab[:0]
		for _, c := range s.AccessCountries {
			if !slices.Contains(j.Countries, c) && c != s.ProviderCountry {
				access = append(access, b.country(c))
			}
		}
		if len(access) > 0 {
			country = b.labelInlines("transfer.access", extra{phCountry, country}, extra{phAccess, b.join(access)})
		}
		ak, sk := adequacyYes, safeguardOther
		switch basis {
		case basisAdequacy:
			sk = safeguardAdequacy
		case basisDPF:
			ak, sk = adequacyDPF, safeguardDPF
		default:
			ak = adequacyNo
			if s.ProviderCountry == "" {
				ak = adequacyUnknown
			}
		}
		t.row(names[k], country, w.adequacy[ak][esc:esc+1:esc+1], sc.cell(b, w, j, sk, b.f.statedOf(i, k)))
	}
	return t.block()
}

// regimeWords are the compiled words of the jurisdiction whose words
// the builder uses (builder.regime): found by the document's catalog
// positions when the document lists it, as every regime a table is made
// for is, else by its position in the catalog (the words are compiled
// for every catalog jurisdiction, in catalog order), else those of the
// document's own jurisdiction.
func (b *builder) regimeWords() *jurisdictionWords {
	if k := jurisdictionIndex(b.f.Jurisdictions, b.regime.ID); k >= 0 && k < len(b.f.scr.jpos) {
		return &b.words.jurisdictions[b.f.scr.jpos[k]]
	}
	pos := jurisdictions().pos
	p, ok := pos[b.regime.ID]
	if !ok {
		p = pos[b.f.Jurisdiction.ID]
	}
	return &b.words.jurisdictions[p]
}

// transferWords are the words of a transfer table in a jurisdiction's
// wording (jurisdictionWords.transfer): the jurisdiction's own label
// ("adequacy.yes.UK") where it has one. They are compiled with the
// library: a document for many jurisdictions makes a table per regime,
// and each had looked up its eight labels. Each is a run in every
// format, escaped when compiled (escRuns): the adequacy cells are the
// compiled runs themselves, shared by every table.
type transferWords struct {
	// adequacy holds the adequacy column's cells by adequacyYes etc.
	adequacy [numAdequacy]escRuns
	// safeguard holds the safeguards' names by safeguardAdequacy etc.
	safeguard                    [numSafeguards]escRuns
	safeguardAlso, safeguardNone escRuns
}

// The adequacy column's cells (transferWords.adequacy).
const (
	adequacyYes = iota
	adequacyDPF
	adequacyNo
	adequacyUnknown
	numAdequacy
)

// Safeguards a transfer table's cell starts with, by the transfer's basis
// (transferWords.safeguard): the adequacy decision, the DPF, or none but
// the mechanisms stated.
const (
	safeguardAdequacy = iota
	safeguardDPF
	safeguardOther
	numSafeguards
)

// compileTransferWords makes the transfer tables' words and header in
// jurisdiction id's wording in the language t.
func compileTransferWords(t *Wording, id string, headers [][][]Inline) (transferWords, [][]Inline) {
	jlabel := func(key string) string {
		if v, ok := t.Labels[key+"."+id]; ok {
			return v
		}
		return t.Labels[key]
	}
	w := transferWords{
		adequacy: [numAdequacy]escRuns{
			adequacyYes: literalRuns(jlabel("adequacy.yes")), adequacyDPF: literalRuns(jlabel("adequacy.dpf")),
			adequacyNo: literalRuns(jlabel("adequacy.no")), adequacyUnknown: literalRuns(t.Labels["adequacy.unknown"]),
		},
		safeguardAlso: literalRuns(t.Labels["safeguard.also"]), safeguardNone: literalRuns(t.Labels["safeguard.unknown"]),
	}
	w.safeguard[safeguardAdequacy], w.safeguard[safeguardDPF] = literalRuns(jlabel("safeguard.adequacy")), literalRuns(jlabel("safeguard.dpf"))
	w.safeguard[safeguardOther] = literalRuns("")
	// The adequacy column is worded by the jurisdiction's law: the
	// header's own copy, its other cells shared.
	header := slices.Clone(headers[transfersHeader.n])
	header[2] = []Inline{{Kind: Plain, Text: jlabel("table.adequacy")}}
	return w, header
}

// safeguardCells are the safeguard cells of one transfer table, each
// made once: most services of a table rest on the same safeguard and
// state the same mechanisms (a table of 25 rows has a handful of
// distinct cells), and composing one names each mechanism.
type safeguardCells struct {
	n     int
	cells [8]safeguardCell
}

type safeguardCell struct {
	safeguard int      // safeguardAdequacy etc.
	stated    []string // the mechanisms stated (Facts.statedOf)
	cell      []Inline
}

// cell is the safeguard cell for safeguard sk (safeguardAdequacy etc.)
// and the mechanisms stated under regime j, made when first asked for.
func (sc *safeguardCells) cell(b *builder, w *transferWords, j *catalog.Jurisdiction, sk int, stated []string) []Inline {
	for k := range sc.n {
		if c := &sc.cells[k]; c.safeguard == sk && slices.Equal(c.stated, stated) {
			return c.cell
		}
	}
	cell := b.safeguardCell(w, j, sk, stated)
	if sc.n < len(sc.cells) {
		sc.cells[sc.n] = safeguardCell{sk, stated, cell}
		sc.n++
	}
	return cell
}

// safeguardCell says what a transfer out of regime j's region rests on:
// safeguard sk (safeguardOther for none but those stated) and the
// mechanisms stated for it, but for the implied certification, which is
// the DPF basis and never named here. Every run carries its escaped form
// (the words compiled, the mechanisms' names escaped once per document),
// as do the library's: a document for many jurisdictions has a cell in
// each row of each regime's table.
func (b *builder) safeguardCell(w *transferWords, j *catalog.Jurisdiction, sk int, stated []string) []Inline {
	var (
		nb [8]Inline  // the named mechanisms
		cb [24]Inline // the cell, composed here and copied once
	)
	named, firstNamed := nb[:0], -1
	for _, m := range stated {
		if m != j.Certification {
			k := b.mechanism(m)
			if len(named) == 0 {
				firstNamed = k
			}
			named = append(named, b.mechanisms[k].name)
		}
	}
	esc, safeguard := b.esc, &w.safeguard[sk]
	period := b.safe(".")
	cell := cb[:0]
	switch {
	case len(named) > 0 && sk != safeguardOther:
		cell = append(cell, safeguard[esc], b.seps[sepSemicolon], w.safeguardAlso[esc], b.safe(" "))
		cell = append(b.appendJoinRuns(cell, named), period)
	case len(named) > 0:
		// With a capital first letter, as caseFirst writes it.
		if m := &b.mechanisms[firstNamed]; m.split {
			cell, named[0] = append(cell, m.first), m.rest
		}
		cell = append(b.appendJoinRuns(cell, named), period)
	case sk == safeguardOther:
		cell = append(cell, w.safeguardNone[esc], period)
	default:
		cell = append(cell, safeguard[esc], period)
	}
	return b.ins.copy(cell)
}

// transferCells are the name and country cells of the facts' services
// (by position), which read the same in every regime's transfer table:
// made once per document, when the first table asks for them, with the
// countries' names escaped (literalRun, from the escape memo) once rather
// than in each row.
func (b *builder) transferCells() (names, countries [][]Inline) {
	if b.transferCellsDone {
		return b.serviceNames(), b.transferCountries
	}
	b.transferCellsDone = true
	countries = b.transferCountries[:0]
	var unknown []Inline
	for k := range b.f.Services {
		s := &b.f.Services[k]
		if s.ProviderCountry != "" {
			countries = append(countries, b.literalRun(b.country(s.ProviderCountry)))
			continue
		}
		if unknown == nil {
			unknown = b.str(b.label("country.unknown"))
		}
		countries = append(countries, unknown)
	}
	b.transferCountries = countries
	return b.serviceNames(), countries
}

// serviceNames are the cells of the facts' services' names, by position,
// made once per document with their escaped forms (literalRun, from the
// escape memo): the services, transfer and cookie tables name each
// service, the transfer tables once per regime.
func (b *builder) serviceNames() [][]Inline {
	if b.serviceNamesDone {
		return b.serviceNameCells
	}
	b.serviceNamesDone = true
	names := b.serviceNameCells[:0]
	for k := range b.f.Services {
		names = append(names, b.literalRun(b.f.Services[k].Name))
	}
	b.serviceNameCells = names
	return names
}

// plain is s as a run of plain text.
func plain(s string) Inline { return Inline{Kind: Plain, Text: s} }

// appendJoin appends items listed in prose to dst ("a, b and c", with
// seps[last] before the last item; none for no items): joinWith's runs.
func (b *builder) appendJoin(dst []Inline, items []string, last int) []Inline {
	switch len(items) {
	case 0:
		return append(dst, plain(b.none))
	case 1:
		return append(dst, plain(items[0]))
	}
	for i, it := range items {
		dst = append(dst, plain(it))
		switch {
		case i < len(items)-2:
			dst = append(dst, b.seps[sepList])
		case i == len(items)-2:
			dst = append(dst, b.seps[last])
		}
	}
	return dst
}

// mechanism is the index in b.mechanisms of transfer mechanism m's name,
// looked up and escaped once per document: the transfer tables name a
// few mechanisms in many rows.
func (b *builder) mechanism(m string) int {
	for k := range b.mechanisms {
		if sameString(b.mechanisms[k].id, m) {
			return k
		}
	}
	name := b.label2("mechanism.", m)
	n := mechanismName{id: m, name: b.literal(name)}
	if first, rest, split := splitFirst(name, true); split {
		n.first, n.rest, n.split = b.safe(first), b.literal(rest), true
	}
	b.mechanisms = append(b.mechanisms, n)
	return len(b.mechanisms) - 1
}

// mechanismName is a transfer mechanism's name as a run carrying its
// escaped form (literal), and, when split is set, as its first letter
// upper-cased and the rest (splitFirst), for a cell that starts with it.
type mechanismName struct {
	id                string
	name, first, rest Inline
	split             bool
}

// genRepresentatives names the Art. 27 representative in each regime's
// region where the business is not established.
func genRepresentatives(b *builder) {
	regimes := b.f.transferRegimes()
	multi := len(b.byJurisdiction) > 0
	for i := range regimes {
		if !b.f.needsRepresentativeAt(regimes, i) {
			continue
		}
		r := &regimes[i]
		if multi {
			b.useJurisdiction(r)
		}
		b.emit(Block{Kind: Paragraph, Inlines: b.labelInlines("representative.text")})
	}
	if multi {
		b.useJurisdiction(nil)
	}
}

// Transfer bases, strongest first.
const (
	basisAdequacy = iota // an adequacy decision covers the country
	basisDPF             // the provider's Data Privacy Framework certification
	basisContract        // standard clauses, the UK Addendum or IDTA, or BCRs
	basisNone            // no safeguard the catalog knows of
)

// transferBasis is what a service's transfer out of the region of regime
// j rests on, stated being the mechanisms stated for it there
// (Facts.statedOf) and providerOK and accessOK the region's answers of
// adequacy for the service (regionSets.adequacy, worked out with the
// catalog: serviceUse.providerOK, accessOK). A certified U.S. provider is
// covered by the regime's certification mechanism without stating it
// where the regime implies it (the EU-U.S. DPF; the UK Extension must be
// stated). The stated mechanisms are gone through once, for the
// certification and for any other: a document asks for each regime of
// each service.
func transferBasis(j *catalog.Jurisdiction, s *ServiceFact, stated []string, providerOK, accessOK bool) int {
	if providerOK && accessOK {
		return basisAdequacy
	}
	statesCert, statesOther := false, false
	for _, m := range stated {
		if m == j.Certification {
			statesCert = true
		} else {
			statesOther = true
		}
	}
	us := s.ProviderCountry == "US"
	certified := us && s.DataPrivacyFramework != nil && *s.DataPrivacyFramework
	switch {
	case us && j.Certification != "" && (statesCert || certified && j.CertificationImplied) && accessOK:
		return basisDPF
	case statesOther:
		return basisContract
	}
	return basisNone
}

// cookieDuration is what the cookie table says of cookie c's duration:
// the catalog's, or unknown (the language's "cookie.durationUnknown")
// where the catalog gives none.
func cookieDuration(c *catalog.Cookie, unknown string) string {
	if c.Duration == "" {
		return unknown
	}
	return c.Duration
}

// cookieRows adds a row per cookie of the requested services to t, with
// extra cells inserted after the fourth (the cookie policy's party
// column).
func (b *builder) cookieRows(t *table, party []Inline) {
	// The two kinds' cells, made once for the table.
	essential, nonEssential := b.literalRun(b.label("cookie.essential")), b.literalRun(b.label("cookie.nonEssential.US-CA"))
	if b.f.gdprFamily() {
		nonEssential = b.literalRun(b.label("cookie.nonEssential"))
	}
	kind := func(essentialCookie bool) []Inline {
		if essentialCookie {
			return essential
		}
		return nonEssential
	}
	row := func(name, provider, purpose, duration, kind []Inline) {
		if party == nil {
			t.row(name, provider, purpose, duration, kind)
		} else {
			t.row(name, provider, purpose, duration, party, kind)
		}
	}
	durationUnknown := b.label("cookie.durationUnknown")
	names := b.serviceNames()
	for i := range b.f.Services {
		s := &b.f.Services[i]
		unlisted := s.SetsCookiesKnown() && len(s.Cookies) == 0
		if len(s.Cookies) == 0 && !unlisted {
			continue
		}
		name := names[i] // the provider cell of each of its rows
		if w := b.words.services[s.Service]; w != nil {
			for k := range w.cookies {
				c := &w.cookies[k]
				row(b.run(&c.name), name, b.run(&c.purpose), b.run(&c.duration), kind(s.Essential))
			}
		} else { // a service of another catalog
			for k := range s.Cookies {
				c := &s.Cookies[k]
				row(b.str(c.Name), name, b.str(c.Purpose), b.str(cookieDuration(c, durationUnknown)), kind(s.Essential))
			}
		}
		// Known to set cookies, but no source named them: say so rather
		// than leave the service out of the table.
		if unlisted {
			row(b.str(b.label("cookie.unlisted")), name, b.str(b.label("cookie.unlistedPurpose")),
				b.str(durationUnknown), kind(s.Essential))
		}
	}
	if b.f.AnalyticsCookiesAssumed {
		row(b.missing("cookieNames"), b.str(b.label("cookie.analyticsTool")), b.str(b.label("purpose.analytics")),
			b.missing("cookieDuration"), kind(false))
	}
}

func genCookies(b *builder) {
	var t table
	b.newTable(&t, cookiesHeader)
	b.cookieRows(&t, nil)
	if len(t.rows) > 0 {
		b.emit(t.block())
	}
}

// cookiesUnconfirmed names the services whose use of cookies no source
// confirmed, strictly necessary ones apart from the others.
func (f *Facts) cookiesUnconfirmed(essential, other []string) ([]string, []string) {
	for i := range f.Services {
		s := &f.Services[i]
		if !s.CookiesUnknown() {
			continue
		}
		if s.Essential {
			essential = append(essential, s.Name)
		} else {
			other = append(other, s.Name)
		}
	}
	return essential, other
}

// genCookiesUnknown names the services whose use of cookies no source
// confirmed, without saying either that they set cookies or that they
// do not.
func genCookiesUnknown(b *builder) {
	var eb, ob [16]string
	essential, other := b.f.cookiesUnconfirmed(eb[:0], ob[:0])
	if len(essential) > 0 {
		b.emit(Block{Kind: Paragraph, Inlines: b.expand(b.labelSegsFor("cookie.unknown.essential", b.regime.ID), extra{phServices, b.join(essential)})})
	}
	if len(other) > 0 {
		b.emit(Block{Kind: Paragraph, Inlines: b.expand(b.labelSegsFor("cookie.unknown.nonEssential", b.regime.ID), extra{phServices, b.join(other)})})
	}
}

// cookiePurposes are the purposes for which cookies that need consent are set.
var cookiePurposes = []string{"analytics", "advertising", "embedded_content"}

func genCookiePurposes(b *builder) {
	var l list
	b.newList(&l)
	// Only the ePrivacy Directive and PECR make consent the rule for
	// cookies, with strictly necessary ones as the exception; elsewhere
	// the line does not speak of consent.
	if b.f.HasLaw("eprivacy") || b.f.HasLaw("pecr") {
		l.add(b.str(b.label("cookie.purposes.strictlyNecessary")))
	} else {
		l.add(b.str(b.label("cookie.purposes.strictlyNecessary.plain")))
	}
	for i := range b.f.Purposes {
		if p := &b.f.Purposes[i]; slices.Contains(cookiePurposes, p.ID) && b.f.cookiesServe(p) {
			l.add(b.strs(b.label2("purpose.", p.ID), "."))
		}
	}
	l.emit()
}

// cookiesServe reports whether some cookie may be set for purpose p: a
// service used for it that sets cookies or may set them, or analytics
// with no named tool. A purpose served only by cookieless tools (such as
// Plausible) is not a purpose of cookies, and saying so would contradict
// the services table.
func (f *Facts) cookiesServe(p *PurposeFact) bool {
	if p.ID == "analytics" && f.AnalyticsCookiesAssumed {
		return true
	}
	for i := range f.Services {
		s := &f.Services[i]
		if (s.SetsCookiesKnown() || s.CookiesUnknown()) && s.purposeSet.has(p.pos) {
			return true
		}
	}
	return false
}

// gdprFamily reports whether the GDPR or the UK GDPR applies.
func (f *Facts) gdprFamily() bool { return f.gdpr }

func genRetentionPurposes(b *builder) {
	var t table
	b.newTable(&t, retentionPurposesHeader)
	gdpr := b.f.gdprFamily()
	for i := range b.f.Purposes {
		p := &b.f.Purposes[i]
		name := b.purposeCell(i, purposeName)
		if !gdpr {
			// The CCPA category table refers to purposes by these names.
			name = b.purposeCell(i, purposeShort)
		}
		var pb [8][]Inline
		period := pb[:0]
		if r, ok := b.f.Request.Retention[p.ID]; ok {
			period = append(period, b.capFirst(b.str(trimDot(r))), b.str("."))
		} else {
			period = append(period, b.strs(b.jlabel3("purpose.", p.ID, ".retention"), "."))
		}
		// What a provider keeps for the purpose, as it states it.
		for i := range b.f.Services {
			s := &b.f.Services[i]
			if s.Retention != "" && s.purposeSet.has(p.pos) {
				period = append(period, b.str(" "), b.labelInlines("retention.service",
					extra{phService, b.str(s.Name)}, extra{phRetention, b.str(s.Retention)}))
			}
		}
		t.row(name, b.cat(period...))
	}
	b.emit(t.block())
}

// trimDot is s without one final full stop.
func trimDot(s string) string {
	if len(s) > 0 && s[len(s)-1] == '.' {
		return s[:len(s)-1]
	}
	return s
}

// jlabel3 is the label k1+k2+k3 in the current regime's jurisdiction
// ("key.UK") where there is one, else the general label.
func (b *builder) jlabel3(k1, k2, k3 string) string {
	if v, ok := b.lookupLabelFor(k1, k2, k3, b.regime.ID); ok {
		return v
	}
	return b.label3(k1, k2, k3)
}

// genRetentionCategories gives each category its retention: the
// criterion of its purpose, or, for a category used for several purposes,
// the longest of their criteria (listed by genRetentionPurposes).
func genRetentionCategories(b *builder) {
	var t table
	b.newTable(&t, retentionCategoriesHeader)
	longestOf := b.labels["retention.longestOf"]
	b.indexPositions()
	for ci := range b.f.Categories {
		c := &b.f.Categories[ci]
		shorts := b.names[:0]
		only := -1
		// The category's purposes by their catalog positions, which give
		// the facts' order (indexAt), rather than each purpose asked.
		for pos := c.purposeSet.next(0); pos >= 0; pos = c.purposeSet.next(pos + 1) {
			if i := b.indexAt(b.purposeAt, pos); i >= 0 {
				shorts = append(shorts, b.purposeLabel(i, purposeShort))
				only = i
			}
		}
		b.names = shorts[:0]
		var cell []Inline
		switch {
		case len(shorts) > 1:
			cell = b.expand(longestOf, extra{phPurposes, b.join(shorts)})
		case len(shorts) == 1:
			cell = b.strs(b.jlabel3("purpose.", b.f.Purposes[only].ID, ".retention"), ".")
		default:
			cell = b.str("")
		}
		t.row(b.categoryCell(ci), cell)
	}
	b.emit(t.block())
}

// ccpaGroup is one statutory CCPA category and what the facts say about it.
type ccpaGroup struct {
	letter     string
	letterAt   int // letter's position in ccpaLetters
	categories []string
	sources    []string
	purposes   posSet   // catalog positions
	soldTo     []string // service categories of third-party recipients
	soldFor    posSet   // purposes of those recipients
	disclosed  []string // service categories of service-provider recipients
	// discloseFor are the purposes of those recipients.
	discloseFor posSet
	// soldSet and disclosedSet hold the service categories of soldTo
	// and disclosed, by their number in recipientKinds.
	soldSet, disclosedSet posSet
}

var ccpaLetters = []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "other"}

// ccpaLettersOf are the positions in ccpaLetters of each catalog data
// category's CCPA letters (those ccpaLetters holds), by catalog
// position, made on first use.
var ccpaLettersOf = sync.OnceValue(func() [][]int {
	c := cat()
	out := make([][]int, len(c.DataCategories))
	for i := range c.DataCategories {
		for _, letter := range c.DataCategories[i].CCPA {
			if gi := slices.Index(ccpaLetters, letter); gi >= 0 {
				out[i] = append(out[i], gi)
			}
		}
	}
	return out
})

// ccpaRecipients is what one data category's recipients add to each CCPA
// group it falls in: their service categories (by number in
// recipientKinds, each once, in the order of the services) and their
// purposes, those that sell or share apart from the others.
type ccpaRecipients struct {
	sold, disclosed      []int
	soldFor, discloseFor posSet
}

// ccpaGroups are the statutory CCPA categories the facts hold, in the
// order of ccpaLetters, worked out once per document (three generators
// read them). A pooled builder keeps each group's slices for the next
// document.
func (b *builder) ccpaGroups() []ccpaGroup {
	if b.ccpaDone {
		return b.ccpa
	}
	b.ccpaDone = true
	groups := b.ccpa[:0]
	for li, letter := range ccpaLetters {
		if len(groups) < cap(groups) {
			groups = groups[:len(groups)+1]
		} else {
			groups = append(groups, ccpaGroup{})
		}
		g := &groups[len(groups)-1]
		g.letter, g.letterAt = letter, li
		g.categories, g.sources, g.soldTo, g.disclosed = g.categories[:0], g.sources[:0], g.soldTo[:0], g.disclosed[:0]
		g.purposes.reset()
		g.soldFor.reset()
		g.discloseFor.reset()
		g.soldSet.reset()
		g.disclosedSet.reset()
	}
	kinds, names := b.recipientKinds()
	lettersOf := ccpaLettersOf()
	r := &b.ccpaRecipients
	for ci := range b.f.Categories {
		c := &b.f.Categories[ci]
		if c.pos >= len(lettersOf) || len(lettersOf[c.pos]) == 0 {
			continue
		}
		// Its recipients, worked out once for every letter it has.
		r.sold, r.disclosed = r.sold[:0], r.disclosed[:0]
		r.soldFor.reset()
		r.discloseFor.reset()
		for si := c.recipientSet.next(0); si >= 0; si = c.recipientSet.next(si + 1) {
			s := &b.f.Services[si]
			if s.SellsOrShares {
				r.sold = append(r.sold, kinds[si])
				r.soldFor.union(&s.purposeSet)
			} else {
				r.disclosed = append(r.disclosed, kinds[si])
				r.discloseFor.union(&s.purposeSet)
			}
		}
		for _, gi := range lettersOf[c.pos] {
			g := &groups[gi]
			if n := len(g.categories); n > 0 && g.categories[n-1] == c.ID {
				continue // a letter listed twice
			}
			g.categories = append(g.categories, c.ID)
			g.sources = addUnique(g.sources, c.Sources...)
			g.purposes.union(&c.purposeSet)
			for _, k := range r.sold {
				if g.soldSet.add(k) {
					g.soldTo = append(g.soldTo, names[k])
				}
			}
			g.soldFor.union(&r.soldFor)
			for _, k := range r.disclosed {
				if g.disclosedSet.add(k) {
					g.disclosed = append(g.disclosed, names[k])
				}
			}
			g.discloseFor.union(&r.discloseFor)
		}
	}
	// Drop the letters no category falls in, keeping the order; a
	// dropped slot moves back, its storage kept for the next document.
	n := 0
	for i := range groups {
		if len(groups[i].categories) > 0 {
			groups[n], groups[i] = groups[i], groups[n]
			slices.Sort(groups[n].sources)
			n++
		}
	}
	b.ccpa = groups[:n]
	return b.ccpa
}

// recipientKinds numbers the names of the services' categories
// (serviceCategory), each name once: kinds holds each service's number,
// by its position in the facts' services, and names the names. Worked
// out once per document (setVars and ccpaGroups read them).
func (b *builder) recipientKinds() (kinds []int, names []string) {
	if b.kindsDone {
		return b.kindOf, b.kindNames
	}
	b.kindsDone = true
	kinds, names = b.kindOf[:0], b.kindNames[:0]
	for i := range b.f.Services {
		n := b.serviceCategory(i)
		k := slices.IndexFunc(names, func(s string) bool { return sameString(s, n) })
		if k < 0 {
			k = len(names)
			names = append(names, n)
		}
		kinds = append(kinds, k)
	}
	b.kindOf, b.kindNames = kinds, names
	return kinds, names
}

// Indexes of purposeWords.labels, with the key suffix of each.
const (
	purposeName = iota
	purposeShort
	purposeCCPA
)

var purposeLabelSuffix = [3]string{"", ".short", ".ccpa"}

// purposeLabel is label kind (purposeName, purposeShort, purposeCCPA) of
// the purpose at position i of the facts' purposes (compiled with the
// library: the tables repeat them).
func (b *builder) purposeLabel(i, kind int) string {
	return b.words.purposes[b.f.Purposes[i].pos].labels[kind]
}

// purposeCell is purposeLabel(i, kind) as a cell: the compiled run
// itself, shared.
func (b *builder) purposeCell(i, kind int) []Inline {
	return b.run(&b.words.purposes[b.f.Purposes[i].pos].runs[kind])
}

// serviceCategory is the name of the category of the service at position
// i of the facts' services, looked up once per document.
func (b *builder) serviceCategory(i int) string {
	for len(b.serviceCats) <= i {
		b.serviceCats = append(b.serviceCats, "")
	}
	if b.serviceCats[i] == "" {
		b.serviceCats[i] = b.label2("serviceCategory.", b.f.Services[i].Category)
	}
	return b.serviceCats[i]
}

// semicolons lists items separated by "; ".
func (b *builder) semicolons(items []string) []Inline {
	if len(items) == 0 {
		return b.str("")
	}
	out := b.ins.alloc(2*len(items) - 1)
	for i, it := range items {
		out[2*i] = Inline{Kind: Plain, Text: it}
		if i < len(items)-1 {
			out[2*i+1] = b.seps[sepSemicolon]
		}
	}
	return out
}

// ccpaPurposeNames names, in CCPA terms and catalog order, the purposes
// in set.
func (b *builder) ccpaPurposeNames(set *posSet, dst []string) []string {
	b.indexPositions()
	// Purposes that share a CCPA name are named once: by the first
	// catalog position with that name (purposeWords.ccpaFirst), as bits,
	// rather than by comparing each name with those listed.
	var named uint64
	for pos := set.next(0); pos >= 0; pos = set.next(pos + 1) {
		i := b.indexAt(b.purposeAt, pos)
		if i < 0 {
			continue
		}
		w := &b.words.purposes[pos]
		if first := w.ccpaFirst; first < 64 {
			if named&(1<<first) != 0 {
				continue
			}
			named |= 1 << first
			dst = append(dst, w.labels[purposeCCPA])
			continue
		}
		dst = addUnique(dst, w.labels[purposeCCPA])
	}
	return dst
}

func genCCPACategories(b *builder) {
	var t table
	b.newTable(&t, ccpaCategoriesHeader)
	groups := b.ccpaGroups()
	var notSold []Inline // "No", made once for the table
	for gi := range groups {
		g := &groups[gi]
		var eb [16][]Inline
		examples := eb[:0]
		for i, c := range g.categories {
			if i > 0 {
				examples = append(examples, b.seps[sepSemicolon:sepSemicolon+1])
			}
			examples = append(examples, b.examples(c))
		}
		ps := b.ccpaPurposeNames(&g.purposes, b.names[:0])
		b.names = ps[:0]
		var sold []Inline
		if len(g.soldTo) > 0 {
			sold = b.labelInlines("ccpa.soldShared.yes", extra{phRecipients, b.join(g.soldTo)})
		} else {
			if notSold == nil {
				notSold = b.literalRun(b.label("ccpa.soldShared.no"))
			}
			sold = notSold
		}
		t.row(b.run(&b.words.ccpaLetters[g.letterAt]), b.cat(examples...), b.sourcesCell(g.sources), b.semicolons(ps), sold)
	}
	b.emit(t.block())
}

func genCCPASensitive(b *builder) {
	var t table
	b.newTable(&t, ccpaSensitiveHeader)
	for ci := range b.f.Categories {
		c := &b.f.Categories[ci]
		if !c.Sensitive {
			continue
		}
		ps := b.ccpaPurposeNames(&c.purposeSet, b.names[:0])
		b.names = ps[:0]
		name := b.label2("ccpa.sensitive.", c.ID)
		if name == "" {
			name = b.categoryName(ci)
		}
		t.row(b.str(name), b.semicolons(ps), b.str(b.label("ccpa.soldShared.no")))
	}
	b.emit(t.block())
}

func genCCPASold(b *builder) {
	var t table
	b.newTable(&t, ccpaSoldHeader)
	groups := b.ccpaGroups()
	for gi := range groups {
		g := &groups[gi]
		if len(g.soldTo) > 0 {
			ps := b.ccpaPurposeNames(&g.soldFor, b.names[:0])
			b.names = ps[:0]
			t.row(b.run(&b.words.ccpaLetters[g.letterAt]), b.join(g.soldTo), b.semicolons(ps))
		}
	}
	b.emit(t.block())
}

func genCCPADisclosed(b *builder) {
	var t table
	b.newTable(&t, ccpaDisclosedHeader)
	groups := b.ccpaGroups()
	for gi := range groups {
		g := &groups[gi]
		if len(g.disclosed) > 0 {
			ps := b.ccpaPurposeNames(&g.discloseFor, b.names[:0])
			b.names = ps[:0]
			t.row(b.run(&b.words.ccpaLetters[g.letterAt]), b.join(g.disclosed), b.semicolons(ps))
		}
	}
	if len(t.rows) == 0 {
		b.emit(Block{Kind: Paragraph, Inlines: b.str(b.label("ccpa.disclosed.none"))})
		return
	}
	b.emit(Block{Kind: Paragraph, Inlines: b.str(b.label("ccpa.disclosed.intro"))})
	b.emit(t.block())
}

func genCCPASources(b *builder) {
	var ab [3]string
	all := ab[:0]
	for ci := range b.f.Categories {
		c := &b.f.Categories[ci]
		all = addUnique(all, c.Sources...)
	}
	var l list
	b.newList(&l)
	emails := b.f.hasServiceCategory("email_marketing") || b.f.hasServiceCategory("crm")
	for _, s := range []string{"you", "device", "derived"} {
		if slices.Contains(all, s) {
			suffix := ".description"
			if s == "device" && emails {
				suffix = ".description.emails"
			}
			l.add(b.str(b.label3("source.", s, suffix)))
		}
	}
	l.emit()
}

// genUSShared (issue 8, US state privacy laws) lists, in the document's
// own category names, each category of personal data the business shares
// with third parties (services that do not act only for it) and the
// categories of those third parties (e.g. Va. Code § 59.1-578(C)(4)-(5)).
func genUSShared(b *builder) {
	var t table
	b.newTable(&t, usSharedHeader)
	for i := range b.f.Categories {
		c := &b.f.Categories[i]
		var tb [16]string
		to := tb[:0]
		for si := c.soldSet.next(0); si >= 0; si = c.soldSet.next(si + 1) {
			to = addUnique(to, b.serviceCategory(si))
		}
		if len(to) > 0 {
			t.row(b.categoryCell(i), b.join(to))
		}
	}
	b.emit(t.block())
}
