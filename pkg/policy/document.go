package policy

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unsafe"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// Document is the format-neutral tree a policy is rendered from: step 4 of
// the pipeline. Strings in it are raw; renderers escape them. A run of
// plain text may be split over several Plain inlines: renderers write
// them one after the other, as if they were one. A tree built for a
// format may also carry text already escaped for it (Inline.esc, a
// table's rendered header, the headings and links the memos hold), which
// its renderer copies instead of the raw text: a tree is read-only once
// built, and much of it (the title, the headings, table headers and
// catalog words) is shared with every other document.
type Document struct {
	Title  []Inline
	Blocks []Block
	// Evidence says, for each applicable requirement, which section
	// satisfies it, in checklist order.
	Evidence []Evidence

	// escaped is the language's escape memo (escapeMemo): the renderer
	// copies what it holds instead of escaping it again.
	escaped *escapeMemo
	// links is the language's memo of link addresses and section
	// headings (escapeMemo).
	links *escapeMemo
}

// Evidence ties a checklist requirement to the section that satisfies it.
type Evidence struct {
	Requirement string `json:"requirement"`
	Citation    string `json:"citation"`
	Section     string `json:"section"`
	Heading     string `json:"heading"`
	Anchor      string `json:"anchor"`
	Clause      string `json:"clause"`
}

// BlockKind is the kind of a Block.
type BlockKind int

const (
	Heading BlockKind = iota
	Paragraph
	List
	Table
)

// Block is one block-level element.
type Block struct {
	Kind    BlockKind
	Level   int  // Heading: 2 for sections, 3 below
	Strong  bool // Paragraph: a prominent statement
	Section string
	// Anchor is a section heading's fragment id: its text as GitHub and
	// the HTML renderer slug it ("Your rights" -> "your-rights").
	Anchor  string
	Inlines []Inline   // Heading, Paragraph
	Items   [][]Inline // List
	Header  [][]Inline // Table
	Rows    [][][]Inline
	// head is Header rendered with the library (headerText), when the
	// builder made the table with a compiled header.
	head *headerText
}

// InlineKind is the kind of an Inline.
type InlineKind uint8

const (
	Plain InlineKind = iota
	Link
	// Missing marks a fact the request did not give; renderers make it stand out.
	Missing
)

// Inline is a run of text.
type Inline struct {
	Kind InlineKind
	// esc, on a Plain run of the clause library's own text, says that URL
	// holds Text already escaped for that format (escMarkdown, escHTML):
	// the library escapes its text once, when it is compiled.
	esc  uint8
	Text string
	URL  string // Link; see esc
}

// Values of Inline.esc.
const (
	escNone uint8 = iota
	escMarkdown
	escHTML
)

// GapError reports applicable requirements no included clause satisfies.
type GapError struct {
	Requirements []string
}

func (e *GapError) Error() string {
	return "policy: requirements not satisfied by any clause: " + strings.Join(e.Requirements, ", ")
}

// arena hands out slices carved from chunks it keeps: a pooled builder
// reuses them for the next document, so a document's tree costs no
// allocation once the chunks have grown to fit.
type arena[T any] struct {
	chunks [][]T // each at its full length
	next   int   // the first chunk not yet carved from
	// cur is the chunk being carved, off how much of it is carved: an
	// offset rather than the rest as a slice, so that alloc stores one
	// integer, not a slice header with its pointer (and write barrier).
	cur []T
	off int
}

const arenaChunk = 1024

// alloc returns n elements (zeroed or written by a previous document:
// the caller writes every one), capped so that an append copies. It is
// small enough to be inlined; grow moves on to the next chunk.
func (a *arena[T]) alloc(n int) []T {
	if off := a.off; uint(n-1) < uint(len(a.cur)-off) { // 0 < n <= what is left
		a.off = off + n
		return a.cur[off : off+n : off+n]
	}
	return a.grow(n)
}

// grow carves n elements from the first later chunk with room for them,
// or from a new chunk (twice the size of the last).
func (a *arena[T]) grow(n int) []T {
	if n == 0 {
		return nil
	}
	for a.next < len(a.chunks) {
		c := a.chunks[a.next]
		a.next++
		if n <= len(c) {
			a.cur, a.off = c, n
			return c[:n:n]
		}
	}
	size := arenaChunk
	if k := len(a.chunks); k > 0 {
		size = 2 * len(a.chunks[k-1])
	}
	c := make([]T, max(n, size))
	a.chunks = append(a.chunks, c)
	a.next = len(a.chunks)
	a.cur, a.off = c, n
	return c[:n:n]
}

// free is what is left of the chunk being carved, for a caller that
// writes an unknown number of elements into it and then keeps them with
// take (written by a previous document: the caller writes every one).
func (a *arena[T]) free() []T { return a.cur[a.off:] }

// reserve is free with room for n elements at least: what is left of
// the first later chunk with room for them, or of a new chunk, when the
// current one has less (as alloc moves on, without carving them).
func (a *arena[T]) reserve(n int) []T {
	if len(a.cur)-a.off < n {
		a.grow(n)
		a.off -= n
	}
	return a.free()
}

// take keeps the first n elements of free (n <= len(free())), as alloc
// would have returned them.
func (a *arena[T]) take(n int) []T {
	off := a.off
	a.off = off + n
	return a.cur[off : off+n : off+n]
}

// copy returns a copy of s in the arena, made by move (a table row's
// cells and a list's items are short).
func (a *arena[T]) copy(s []T) []T {
	d := a.alloc(len(s))
	move(d, s)
	return d
}

// move copies src to the start of dst and returns len(src). A few
// elements (most copies of runs are one to three) are moved one by one:
// the runtime's copy of elements that hold pointers (typedslicecopy, then
// memmove) costs more than those moves.
func move[T any](dst, src []T) int {
	if len(src) > 8 {
		return copy(dst, src)
	}
	d := dst[:len(src)]
	for i := range d {
		d[i] = src[i]
	}
	return len(d)
}

// reset makes every chunk free again. It does not clear them: alloc's
// callers write every element they are given before anything reads it,
// and clearing memory that holds pointers is costly while the garbage
// collector is marking (every old pointer goes through a write barrier).
// What a chunk still refers to from an earlier document (strings of that
// document) stays reachable until the chunk is carved again, no longer.
func (a *arena[T]) reset() {
	a.next, a.cur, a.off = 0, nil, 0
}

// value is a placeholder's value; ok is false while it has none (the
// placeholder then stays as written).
type value struct {
	ins []Inline
	ok  bool
}

// vars are the values of every placeholder.
type vars [numPlaceholders]value

// extra is a label placeholder's value for one expansion.
type extra struct {
	ph  int
	ins []Inline
}

// builder turns facts into a Document in one language. A pooled builder
// (generate.go) keeps its arenas and scratch space between documents.
type builder struct {
	f      *Facts
	t      *Wording
	labels map[string][]segment
	lib    *compiledLibrary
	date   time.Time
	// words are the document's language's words compiled with the
	// library (compiledLibrary.words).
	words *catalogWords

	cond conditionBits
	// vars are the placeholder values the current clause uses: base, or
	// one listed jurisdiction's (byJurisdiction, set only when the
	// document covers several).
	vars           *vars
	base           vars
	byJurisdiction []vars // by position in f.Jurisdictions (jurisdictionVars)
	// jurisdictionMade says which of byJurisdiction are made; noLaw are
	// the law's words of a jurisdiction without a law of its own with a
	// name (the document's, as setVars first sets them), and
	// missingRepresentative the placeholder of one without a
	// representative, made once.
	jurisdictionMade      []bool
	noLaw                 [2]value
	missingRepresentative []Inline
	// regime is the jurisdiction whose words the current clause uses
	// (jlabel3, regimeWords, region, law, authority): the primary one, or in a
	// document for several transfer regimes the regime a clause or table
	// is about.
	regime *catalog.Jurisdiction

	// esc is the format the document is built for, whose escaped library
	// text its inlines carry (Inline.esc).
	esc uint8
	// memo is the language's escape memo (Document.escaped), which
	// literal takes escaped text from.
	memo *escapeMemo

	ins   arena[Inline]
	cells arena[[]Inline]
	rows  arena[[][]Inline]

	blocks []Block
	// secStart and clauseStart are where the current section's and
	// clause's blocks begin in blocks; openList is the index of the last
	// block when it is a list still taking items (kept in items), or -1.
	secStart, clauseStart, openList int
	items                           [][]Inline
	section                         string // the current section's id
	// heads are the sections given a heading so far, with its block.
	heads []head

	rowBuf  [][][]Inline // the table being built (blocks.go)
	listBuf [][]Inline   // the generated list being built
	// names is scratch space for the names a cell lists (blocks.go): a
	// slice kept from one document to the next, not an array zeroed on
	// the stack at every cell. A function takes it, collects its names,
	// gives it back (names[:0], keeping what it grew to) and then reads
	// its names once more, into runs (join, semicolons): nothing may
	// take names again between the giving back and that read.
	names []string
	// namePos is the same for the catalog positions of the categories a
	// cell names (joinCategories).
	namePos []int

	// satisfied is the set of checklist positions the included clauses
	// satisfy; satisfiedAt, kept only for the evidence, says where each
	// is first satisfied (section<<16 | clause, plus one).
	satisfied        []uint64
	satisfiedAt      []int32
	lawMask          []uint64          // by law position: the listed jurisdictions it covers
	lawIn            []bool            // by law position: the law applies here
	jurisdictionBits map[string]uint64 // the listed jurisdictions' positions as bits, by id (listedBits)
	listedDone       bool              // jurisdictionBits is this document's
	lastLaw          []int             // by listed jurisdiction: its last law with a name (setVars)
	ccpa             []ccpaGroup
	ccpaRecipients   ccpaRecipients // ccpaGroups' scratch space
	kindOf           []int          // recipientKinds'
	kindNames        []string
	kindsDone        bool
	receivedCells    []receivedCell // receivedBy's
	received         []uint64       // receivedOf's, by service position
	roleCells        []roleCell     // roleCell's
	ccpaDone         bool
	serviceCats      []string            // by service position (serviceCategory)
	mechanisms       []mechanismName     // the transfer mechanisms named so far (mechanism)
	sourceCells      []sourceCell        // sourcesCell's
	transferTables   []transferTableMemo // the transfer tables made (transferTable)
	purposeRows      [][2][]Inline       // purposeCells'
	// transferCountries are transferCells', serviceNameCells
	// serviceNames'.
	transferCountries, serviceNameCells [][]Inline
	transferCellsDone, serviceNamesDone bool
	// countries are the names of countries by countryBit, in the
	// language countriesOf (country).
	countries   [26 * 26]string
	countriesOf *Wording
	// categoryAt and purposeAt are the indexes in f.Categories and
	// f.Purposes by catalog position, -1 for none (indexPositions).
	categoryAt, purposeAt []int
	positionsSet          bool
	// summaryPurposes are the purposes genSummary has named, by the
	// catalog position of the first that reads alike (shortFirst).
	summaryPurposes posSet
	// exampleCache holds each data category's examples (blocks.go).
	exampleCache []cachedExamples

	// The list words every join uses, looked up once per document: the
	// separators ("; " too) as runs that carry their escaped form for
	// the document's format (literal), which the renderer copies as it
	// copies the library's literal text.
	none string
	seps [numSeps]Inline
	// lawNames are the "law.<id>" labels of f.Laws, in their order.
	lawNames []string
	// labelCache makes repeated label lookups cheap (lookupLabel).
	labelCache labelCache
	// The last document's date, formatted (formatDate).
	dateOf            time.Time
	dateFmt, dateText string
	dateDone          bool
}

// prepareWords looks up the words the builder uses most, and finds the
// language's words of the catalog (catalogWords).
func (b *builder) prepareWords() {
	b.words = b.lib.words[b.t.Language]
	b.none = b.label("none")
	b.seps = [numSeps]Inline{
		sepList:      b.literal(b.label("listSeparator")),
		sepLast:      b.literal(b.label("listLastSeparator")),
		sepLastOr:    b.literal(b.label("listLastSeparatorOr")),
		sepSemicolon: b.literal("; "),
	}
	b.lawNames = b.lawNames[:0]
	for i := range b.f.Laws { // by index: a Law is a dozen words
		b.lawNames = append(b.lawNames, b.lawName(&b.f.Laws[i]))
	}
}

// lawName is law l's "law.<id>" label: compiled with the library for a
// law it numbers, else looked up.
func (b *builder) lawName(l *compliance.Law) string {
	if p := b.lib.lawAt(l); p >= 0 {
		return b.words.lawNames[p]
	}
	return b.label2("law.", l.ID)
}

// Indexes of builder.seps.
const (
	sepList = iota
	sepLast
	sepLastOr
	sepSemicolon
	numSeps
)

// literal is s as a plain run carrying its escaped form for the
// document's format, as expand makes the clause library's literal text.
// For words the document repeats (the separators): escaping is then
// done once per document, not once per run. A label or catalog text the
// language's escape memo holds (a mechanism's name, a service's) is
// taken from it rather than escaped: a look-up costs less than a scan of
// all but the shortest text.
func (b *builder) literal(s string) Inline {
	in := Inline{Kind: Plain, Text: s}
	if b.esc == escNone {
		return in
	}
	in.esc = b.esc
	l := b.memo.get(s)
	switch {
	case l == nil && b.esc == escMarkdown:
		in.URL = mdEscape(s)
	case l == nil:
		in.URL = htmlEscape(s)
	case b.esc == escMarkdown:
		in.URL = l.md
	default:
		in.URL = l.html
	}
	return in
}

// head is a section heading in blocks.
type head struct {
	block int
	sec   *compiledSection
}

// reset prepares a pooled builder for the next document.
func (b *builder) reset() {
	b.ins.reset()
	b.cells.reset()
	b.rows.reset()
	b.blocks = b.blocks[:0] // appends write whole blocks (see arena.reset)
	b.items = b.items[:0]
	b.heads = b.heads[:0]
	b.vars = nil
	b.byJurisdiction = b.byJurisdiction[:0]
	b.base = vars{}
	b.ccpa = b.ccpa[:0]
	b.ccpaDone = false
	b.kindsDone = false
	b.receivedCells, b.received = b.receivedCells[:0], b.received[:0]
	b.roleCells = b.roleCells[:0]
	b.listedDone = false
	b.serviceCats = b.serviceCats[:0]
	b.mechanisms = b.mechanisms[:0]
	b.sourceCells = b.sourceCells[:0]
	b.transferTables = b.transferTables[:0]
	b.purposeRows = b.purposeRows[:0]
	b.transferCellsDone, b.serviceNamesDone = false, false
	b.exampleCache = b.exampleCache[:0]
	b.categoryAt, b.purposeAt, b.positionsSet = b.categoryAt[:0], b.purposeAt[:0], false
	b.regime = nil
}

func (b *builder) label(key string) string {
	v, _ := b.lookupLabel(key, "", "")
	return v
}

// label2 and label3 look up the label whose key is the parts joined.
func (b *builder) label2(k1, k2 string) string {
	v, _ := b.lookupLabel(k1, k2, "")
	return v
}

func (b *builder) label3(k1, k2, k3 string) string {
	v, _ := b.lookupLabel(k1, k2, k3)
	return v
}

// hasLabel2 reports whether the language has the label k1+k2.
func (b *builder) hasLabel2(k1, k2 string) bool {
	_, ok := b.lookupLabel(k1, k2, "")
	return ok
}

// labelCache remembers a builder's label lookups. A document looks up a
// few hundred labels, most of them several times (a category's or a
// purpose's name in every table that lists it), and the language's table
// holds thousands: hashing the joined key and probing that table was a
// tenth of generation time. An entry is found by where its key parts'
// bytes are (mostly the catalog's ids and the code's constants, which
// stay put) and confirmed by the same: the entry holds those bytes, so
// while it does no other string can be there, and equal parts elsewhere
// are a miss, never a wrong label. Comparing addresses and lengths only,
// never bytes, keeps a probe that finds another key in a place from
// comparing that key's bytes with the one sought (the catalog's ids are
// mostly of a few lengths). A pooled builder keeps the cache from one
// document to the next: labels never change, and each entry records the
// wording it came from. Each place holds two entries, the one last
// filled first: a document's few hundred keys are bound to share places,
// and with one entry a place two of them share is refilled at every
// other lookup.
type labelCache [labelCacheSize / 2][2]labelEntry

// labelCacheSize is a power of two, several times the distinct keys of
// the largest documents (about 750 for 34 jurisdictions): with 1024
// entries, a few dozen of those keys were pushed out by others at every
// document, each then hashed and looked up in the language's table again.
const labelCacheSize = 4096

// labelEntry is 64 bytes, a cache line: the cache is read at random
// places, and at 4096 entries much of it is out of the first-level cache.
type labelEntry struct {
	t              *Wording
	k1, k2, k3, jk *byte  // where the key's parts are
	lens           uint32 // their lengths, a byte each (labelKeyLens)
	ok             bool
	v              string
}

// labelKeyLens packs the key parts' lengths for labelEntry; ok is false
// when one is too long for a byte (such a key is looked up uncached).
func labelKeyLens(k1, k2, k3, j string) (uint32, bool) {
	if len(k1)|len(k2)|len(k3)|len(j) > 0xff {
		return 0, false
	}
	return uint32(len(k1)) | uint32(len(k2))<<8 | uint32(len(k3))<<16 | uint32(len(j))<<24, true
}

// lookupLabel is the language's label k1+k2+k3, through labelCache.
func (b *builder) lookupLabel(k1, k2, k3 string) (string, bool) {
	return b.lookupLabelFor(k1, k2, k3, "")
}

// lookupLabelFor is the label k1+k2+k3, or with j set the label
// k1+k2+k3+"."+j (a jurisdiction's own wording), through labelCache.
func (b *builder) lookupLabelFor(k1, k2, k3, j string) (string, bool) {
	p1, p2, p3, pj := unsafe.StringData(k1), unsafe.StringData(k2), unsafe.StringData(k3), unsafe.StringData(j)
	lens, short := labelKeyLens(k1, k2, k3, j)
	h := uint64(uintptr(unsafe.Pointer(p2)))*0x9e3779b97f4a7c15 ^
		uint64(uintptr(unsafe.Pointer(p1)))*0xc2b2ae3d27d4eb4f ^
		uint64(uintptr(unsafe.Pointer(p3)))*0x165667b19e3779f9 ^
		uint64(uintptr(unsafe.Pointer(pj)))*0x27d4eb2f165667c5
	place := &b.labelCache[(h>>32)&(labelCacheSize/2-1)]
	for i := range place {
		if e := &place[i]; e.k2 == p2 && e.k1 == p1 && e.lens == lens && e.k3 == p3 && e.jk == pj && e.t == b.t && short {
			return e.v, e.ok
		}
	}
	var buf [96]byte
	key := append(append(append(buf[:0], k1...), k2...), k3...)
	if j != "" {
		key = append(append(key, '.'), j...)
	}
	v, ok := b.t.Labels[string(key)]
	if short {
		place[1] = place[0]
		place[0] = labelEntry{t: b.t, k1: p1, k2: p2, k3: p3, jk: pj, lens: lens, ok: ok, v: v}
	}
	return v, ok
}

// formatDate is the document's date in its language's format, formatted
// again only when either differs from the builder's last document's
// (most documents carry the template's date).
func (b *builder) formatDate() string {
	// == rather than Equal: the same instant in another location could
	// format differently.
	if !b.dateDone || b.dateOf != b.date || b.dateFmt != b.t.DateFormat {
		b.dateOf, b.dateFmt, b.dateText, b.dateDone = b.date, b.t.DateFormat, b.date.Format(b.t.DateFormat), true
	}
	return b.dateText
}

// sameString is a == b, answered without comparing bytes when both are
// the same memory (as labelCache's key parts usually are).
func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// safe is s as a plain run that neither format escapes (letters, digits,
// '.', ' ', any byte from 0x80), carrying itself as its escaped form:
// the renderer copies it without a scan or a look-up in the escape memo.
// For the short runs the builder writes many times: a period, a capital
// split off.
func (b *builder) safe(s string) Inline {
	in := Inline{Kind: Plain, Text: s}
	if b.esc != escNone {
		in.esc, in.URL = b.esc, s
	}
	return in
}

// literalRun is s as one run of plain text carrying its escaped form
// for the document's format (literal), escaped once here rather than
// wherever the renderer meets it: for the request's words, which clauses
// repeat (the business's name, address and phone in a dozen places each
// in a document for many jurisdictions), and for the few labels a table
// repeats in many cells (the cookie kinds, the CCPA tables' "No").
func (b *builder) literalRun(s string) []Inline {
	in := b.ins.alloc(1)
	in[0] = b.literal(s)
	return in
}

// userRun is literalRun of a user-supplied string made one line
// (userText).
func (b *builder) userRun(s string) []Inline { return b.literalRun(userText(s)) }

// str is s as one run of plain text.
func (b *builder) str(s string) []Inline {
	in := b.ins.alloc(1)
	in[0] = Inline{Kind: Plain, Text: s}
	return in
}

// missing is the visible placeholder of a request field left out.
func (b *builder) missing(field string) []Inline {
	in := b.ins.alloc(1)
	in[0] = Inline{Kind: Missing, Text: b.label2("missing.", field)}
	return in
}

// link is a link whose text is its address.
func (b *builder) linkTo(text, url string) []Inline {
	in := b.ins.alloc(1)
	in[0] = Inline{Kind: Link, Text: text, URL: url}
	return in
}

// cat is the runs one after the other.
func (b *builder) cat(parts ...[]Inline) []Inline {
	out := b.ins.alloc(runsLen(parts))
	i := 0
	for _, p := range parts {
		i += move(out[i:], p)
	}
	return out
}

// runsLen is how many runs parts hold.
func runsLen(parts [][]Inline) int {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return n
}

// strs is the strings one after the other, as plain text.
func (b *builder) strs(parts ...string) []Inline {
	out := b.ins.alloc(len(parts))
	for i, p := range parts {
		out[i] = Inline{Kind: Plain, Text: p}
	}
	return out
}

// value returns placeholder ph's value: extra's first, then the clause's.
func (b *builder) value(ph int, ex []extra) ([]Inline, bool) {
	for _, e := range ex {
		if e.ph == ph {
			return e.ins, true
		}
	}
	if b.vars != nil {
		if v := &b.vars[ph]; v.ok {
			return v.ins, true
		}
	}
	return nil, false
}

// expand fills a compiled line's placeholders. A placeholder with no
// value stays as written. A line of literal text alone (most clause
// lines and labels) is its compiled run, shared rather than copied:
// nothing changes a tree once it is built.
func (b *builder) expand(segs []segment, ex ...extra) []Inline {
	esc := b.esc
	if len(segs) == 1 && segs[0].runs != nil {
		return segs[0].runs[esc : esc+1 : esc+1]
	}
	// Written straight into what is left of the arena's chunk when the
	// runs fit there, rather than counted first and then written; when
	// they may not, they are counted, and written where that many fit
	// with a run for each segment (the room the loop keeps for those
	// left).
	out := b.ins.free()
	if len(out) < len(segs) {
		out = b.ins.reserve(b.expandedLen(segs, ex) + len(segs))
	}
	for {
		i := 0
		for k := range segs {
			s := &segs[k]
			if s.runs != nil {
				out[i] = s.runs[esc]
				i++
				continue
			}
			v, ok := b.value(s.ph, ex)
			if !ok {
				out[i] = Inline{Kind: Plain, Text: "{" + placeholderNames[s.ph] + "}"}
				i++
				continue
			}
			if len(v) > len(out)-i-(len(segs)-1-k) {
				i = -1 // no room for v and a run of each segment left
				break
			}
			i += move(out[i:], v)
		}
		if i > 0 {
			return b.ins.take(i)
		}
		if i == 0 {
			return nil // as alloc(0)
		}
		out = b.ins.reserve(b.expandedLen(segs, ex) + len(segs))
	}
}

// expandedLen is the number of runs expand makes of segs.
func (b *builder) expandedLen(segs []segment, ex []extra) int {
	n := 0
	for k := range segs {
		if s := &segs[k]; s.runs == nil {
			if v, ok := b.value(s.ph, ex); ok {
				n += len(v)
				continue
			}
		}
		n++
	}
	return n
}

// labelInlines expands a label's placeholders.
func (b *builder) labelInlines(key string, ex ...extra) []Inline {
	segs, ok := b.labels[key]
	if !ok {
		return nil
	}
	return b.expand(segs, ex...)
}

// userText makes a user-supplied string one line: runs of whitespace,
// including newlines in a postal address, become ", " or " " so that no
// format can read structure into them.
func userText(s string) string {
	if oneLine(s) {
		return s
	}
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
	return strings.Join(lines, ", ")
}

// oneLine reports whether userText would return s unchanged: no line
// break, no white space but single spaces between words.
func oneLine(s string) bool {
	prevSpace := true // no leading space
	for i := 0; i < len(s); i++ {
		// Most bytes are printable ASCII past the space: one comparison.
		switch c := s[i]; {
		case c-'!' < 0x7f-'!':
			prevSpace = false
		case c >= 0x80:
			return false // strings.Fields knows more spaces than ASCII
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		case c >= '\t' && c <= '\r': // \t \n \v \f \r
			return false
		default: // another control character, or DEL: not a space
			prevSpace = false
		}
	}
	return !prevSpace || s == ""
}

// setVars makes the placeholder values of program p's document.
func (b *builder) setVars(p *program) {
	f, req := b.f, &b.f.Request
	v := &b.base
	set := func(ph int, ins []Inline) { v[ph] = value{ins: ins, ok: true} }
	set(phBusinessName, b.userRun(req.BusinessName))
	set(phWebsiteURL, b.linkTo(req.WebsiteURL, req.WebsiteURL))
	set(phEffectiveDate, b.literalRun(b.formatDate()))
	set(phTemplateVersion, b.literalRun(TemplateVersion))
	set(phRegion, b.str(b.label2("region.", f.Jurisdiction.ID)))
	set(phDPOContact, b.userRun(req.DPOContact))
	set(phPhone, b.literalRun(req.Phone))
	if req.Phone == "" {
		// Shown only by clauses that must give a number (the COPPA notice,
		// 16 CFR 312.4(d)(1)); the others use phone under hasPhone.
		set(phPhone, b.missing("phone"))
	}
	set(phMinorsStatement, b.missing("minorsStatement"))
	set(phTollFreeNumber, b.missing("tollFreeNumber"))
	set(phRepresentative, b.missing("representative"))
	set(phHostingProvider, b.missing("hostingProvider"))
	set(phConsentMethod, b.missing("consentMethod"))
	// Disclaimer (issue 8, t2): shown only while affiliateLinks is not stated.
	set(phAffiliateStatus, b.missing("affiliateLinks"))
	// Without an opt-out link and signal processing the document says so;
	// not stated, it shows a placeholder (a todo).
	if req.OptOutLink != nil && !*req.OptOutLink {
		set(phOptOutLinkStatus, b.str(b.label("optOut.noLink")))
		set(phOptOutSignalsStatus, b.str(b.label("optOut.noSignals")))
	} else {
		m := b.missing("optOutLink")
		set(phOptOutLinkStatus, m)
		set(phOptOutSignalsStatus, m)
	}
	if req.TollFreeNumber != "" {
		set(phTollFreeNumber, b.literalRun(req.TollFreeNumber))
	}
	if r := f.representative(); r != "" {
		set(phRepresentative, b.userRun(r))
	}
	if m := req.SellsMinorsData; m != nil {
		key := "minors.no"
		if *m {
			key = "minors.yes"
		}
		set(phMinorsStatement, b.str(b.label(key)))
	}
	if req.MemberState != "" {
		if a, ok := f.Jurisdiction.Authorities[req.MemberState]; ok {
			set(phMemberStateName, b.str(b.country(req.MemberState)))
			set(phMemberAuthorityName, b.str(a.Name))
			set(phMemberAuthorityURL, b.linkTo(a.URL, a.URL))
		}
	}
	var jb, eb, cb [16]string
	joint, email, cross := jb[:0], eb[:0], cb[:0]
	for i := range f.Services {
		s := &f.Services[i]
		if s.JointController != nil && *s.JointController {
			joint = append(joint, s.Name)
		}
		if emailTracker(s) {
			email = append(email, s.Name)
		}
		if crossSite(s) {
			cross = append(cross, s.Name)
		}
	}
	set(phJointServices, b.join(joint))
	set(phEmailServices, b.join(email))
	set(phCrossSiteServices, b.capFirst(b.join(cross)))
	set(phUnknownServices, b.join(f.Unknown))
	if req.ContactEmail != "" {
		set(phContactEmail, b.linkTo(req.ContactEmail, "mailto:"+req.ContactEmail))
	} else {
		set(phContactEmail, b.missing("contactEmail"))
	}
	// Issue 8, part j3: a clause that must give the address (APPI Art.
	// 32(1)(i), Thai PDPA s 23(5)) shows a placeholder when it is missing;
	// the other clauses use it only under hasPostalAddress.
	if req.PostalAddress == "" {
		set(phPostalAddress, b.missing("postalAddress"))
	} else {
		set(phPostalAddress, b.userRun(req.PostalAddress))
	}
	// The same for the Indian Grievance Officer (IT (SPDI) Rules 2011,
	// r 5(9)); the other clauses use dpoContact only under hasDPO.
	if req.DPOContact == "" {
		set(phDPOContact, b.missing("dpoContact"))
	}
	if a := f.Jurisdiction.Authority; a != nil {
		set(phAuthorityName, b.str(a.Name))
		set(phAuthorityURL, b.linkTo(a.URL, a.URL))
	}
	// The law's words are those of the last law with a name label.
	for i := len(f.Laws) - 1; i >= 0; i-- {
		if n := b.lawNames[i]; n != "" {
			set(phLawName, b.str(n))
			set(phLawShort, b.str(b.label2("lawShort.", f.Laws[i].ID)))
			break
		}
	}
	var kb [24]string
	_, kinds := b.recipientKinds() // the services' categories, each once
	cats := append(kb[:0], kinds...)
	if len(f.Unknown) > 0 {
		cats = addUnique(cats, b.label("serviceCategory.unknown"))
	}
	set(phRecipientCategories, b.join(cats))
	var sb [16]string
	sold := sb[:0]
	for i := range f.Services {
		if f.Services[i].SellsOrShares {
			sold = append(sold, f.Services[i].Name)
		}
	}
	set(phSoldSharedServices, b.join(sold))
	// The provider of each such service, once; a service whose provider
	// the catalog has not confirmed is named by itself.
	var pb [16]string
	buyers := pb[:0]
	for i := range f.Services {
		if f.Services[i].SellsOrShares {
			n := f.Services[i].Provider
			if n == "" {
				n = f.Services[i].Name
			}
			buyers = addUnique(buyers, n)
		}
	}
	set(phSoldSharedProviders, b.join(buyers))
	var wb [24]string
	without := wb[:0]
	for pi := range f.Purposes {
		if w := &b.words.purposes[f.Purposes[pi].pos]; w.hasWithoutData {
			without = append(without, w.withoutData)
		}
	}
	set(phProvisionExamples, b.joinWith(without, sepLastOr))
	// Issue 8, part j1: the person in charge in Québec (s. 3.1) and the
	// encarregado in Brazil (LGPD Art. 41) must be named; missing, they are
	// placeholders (and todos).
	set(phPrivacyOfficer, b.missing("privacyOfficer"))
	set(phEncarregado, b.missing("encarregado"))
	if req.PrivacyOfficer != "" {
		set(phPrivacyOfficer, b.userRun(req.PrivacyOfficer))
	}
	if req.DPOContact != "" {
		set(phEncarregado, v[phDPOContact].ins) // the same run
	}
	if p.contractWords {
		b.contractVars(v)
	}
	if p.shippingWords {
		b.shippingVars(v) // shipping policy (issue 8, t4)
	}
	b.varsJ2(v) // issue 8, part j2 (j2.go)
	b.regime = &f.Jurisdiction
	b.vars = &b.base
	if len(f.Jurisdictions) < 2 {
		return
	}
	// Each listed jurisdiction's words (jurisdictionVars) are made when a
	// clause or table first speaks of it: a document for many
	// jurisdictions has clauses of its own for fewer than half of them.
	n := len(f.Jurisdictions)
	if cap(b.byJurisdiction) < n {
		b.byJurisdiction, b.jurisdictionMade = make([]vars, n), make([]bool, n)
	}
	b.byJurisdiction, b.jurisdictionMade = b.byJurisdiction[:n], b.jurisdictionMade[:n]
	clear(b.jurisdictionMade)
	b.missingRepresentative = nil
	b.noLaw = [2]value{v[phLawName], v[phLawShort]}
	// Each jurisdiction's last law with a name label, found by going
	// through the laws' lists once (lawListed) rather than searching
	// every law's list for each jurisdiction.
	lastLaw := b.lastLaw[:0]
	for range f.Jurisdictions {
		lastLaw = append(lastLaw, -1)
	}
	b.lastLaw = lastLaw
	listedAt, embedded := f.listedAt(), embeddedLaws()
	for li := range f.Laws {
		if b.lawNames[li] == "" {
			continue
		}
		for m := b.lawListed(&f.Laws[li], listedAt, embedded); m != 0; m &= m - 1 {
			lastLaw[bits.TrailingZeros64(m)] = li
		}
	}
	// Clauses about no one jurisdiction speak of the primary one's law,
	// or, with several transfer regimes, of all of them at once.
	*v = *b.jurisdictionVars(jurisdictionIndex(f.Jurisdictions, f.Jurisdiction.ID))
	if len(f.Regimes) > 1 {
		var rb, nb, sb [8]string
		regions, names, shorts := rb[:0], nb[:0], sb[:0]
		for i := range f.Regimes {
			r := &f.Regimes[i]
			rv := b.jurisdictionVars(jurisdictionIndex(f.Jurisdictions, r.ID))
			regions = append(regions, rv[phRegion].ins[0].Text)
			if n := rv[phLawName]; n.ok {
				names, shorts = append(names, n.ins[0].Text), append(shorts, rv[phLawShort].ins[0].Text)
			}
		}
		v[phRegion] = value{ins: b.join(regions), ok: true}
		v[phLawName] = value{ins: b.join(names), ok: true}
		v[phLawShort] = value{ins: b.join(shorts), ok: true}
	}
}

// jurisdictionVars are the placeholder values of the i-th listed
// jurisdiction's clauses, made when first asked for: the document's,
// with its region, its law (as in a document for it alone: its last law
// with a name label), its authority and its Art. 27 representative.
// Only those differ from the document's (b.base), before and after
// setVars gives the document the primary jurisdiction's words, so they
// are made from either.
func (b *builder) jurisdictionVars(i int) *vars {
	if !b.jurisdictionMade[i] {
		b.makeJurisdictionVars(i)
	}
	return &b.byJurisdiction[i]
}

// makeJurisdictionVars makes jurisdictionVars(i).
func (b *builder) makeJurisdictionVars(i int) {
	rv := &b.byJurisdiction[i]
	b.jurisdictionMade[i] = true
	f := b.f
	r := &f.Jurisdictions[i]
	*rv = b.base
	w := &b.words.jurisdictions[f.scr.jpos[i]]
	rv[phRegion] = value{ins: w.region, ok: true}
	li := b.lastLaw[i]
	if i >= 64 { // beyond listedBits' 64 bits (a Request given straight to Generate)
		for k := range f.Laws {
			if b.lawNames[k] != "" && slices.Contains(f.Laws[k].Jurisdictions, r.ID) {
				li = k
			}
		}
	}
	if li >= 0 {
		rv[phLawName] = value{ins: b.str(b.lawNames[li]), ok: true}
		rv[phLawShort] = value{ins: b.str(b.label2("lawShort.", f.Laws[li].ID)), ok: true}
	} else {
		rv[phLawName], rv[phLawShort] = b.noLaw[0], b.noLaw[1]
	}
	if w.authorityName != nil {
		rv[phAuthorityName] = value{ins: w.authorityName, ok: true}
		rv[phAuthorityURL] = value{ins: w.authorityURL, ok: true}
	}
	if rep := f.representativeFor(r); rep != "" {
		rv[phRepresentative] = value{ins: b.userRun(rep), ok: true}
	} else {
		if b.missingRepresentative == nil { // made once, for every jurisdiction without one
			b.missingRepresentative = b.missing("representative")
		}
		rv[phRepresentative] = value{ins: b.missingRepresentative, ok: true}
	}
}

// jurisdictionIndex is the position of the jurisdiction id in js. The
// ids asked for are mostly js's own (a regime's, the primary
// jurisdiction's: copies of its entries), found by where their bytes are
// before any is compared.
func jurisdictionIndex(js []catalog.Jurisdiction, id string) int {
	for i := range js {
		if unsafe.StringData(js[i].ID) == unsafe.StringData(id) && len(js[i].ID) == len(id) {
			return i
		}
	}
	for i := range js {
		if js[i].ID == id {
			return i
		}
	}
	return -1
}

// contractVars fills the placeholders of the contract documents (terms,
// eula, acceptable-use): the governing law, the minimum age and the
// subscription terms, each a placeholder (and a todo) when not given.
func (b *builder) contractVars(v *vars) {
	req := &b.f.Request
	set := func(ph int, ins []Inline) { v[ph] = value{ins: ins, ok: true} }
	set(phGoverningLaw, b.missing("governingLaw"))
	set(phMinimumAge, b.missing("minimumAge"))
	set(phSubscriptionTerms, b.missing("subscriptions"))
	set(phBillingPeriod, b.missing("billingPeriod"))
	set(phCancellationMethod, b.missing("cancellation"))
	if req.GoverningLaw != "" {
		set(phGoverningLaw, b.str(governingLawName(req.GoverningLaw)))
	}
	// The law chosen, worded by a label: "the law of {governingLaw}", or a
	// label of its own where that reads wrongly (a Canadian province's
	// laws come with the federal laws of Canada that apply there).
	key := "governingLaw.text"
	if req.GoverningLaw != "" && b.hasLabel2("governingLaw.text.", req.GoverningLaw) {
		key = "governingLaw.text." + req.GoverningLaw
	}
	set(phGoverningLawText, b.labelInlines(key, extra{phGoverningLaw, v[phGoverningLaw].ins}))
	if req.MinimumAge > 0 {
		set(phMinimumAge, b.str(smallInt(req.MinimumAge)))
	}
	// Refund policy (issue 8, t3): the voluntary return window.
	set(phRefundWindowDays, b.missing("refundWindowDays"))
	set(phReturnShippingPaidBy, b.missing("returnShippingPaidBy")) // used only while not stated
	if d := req.RefundWindowDays; d != nil {
		set(phRefundWindowDays, b.str(smallInt(*d)))
	}
	if s := req.Subscriptions; s != nil && s.BillingPeriod != "" {
		set(phBillingPeriod, b.str(b.label2("billingPeriod.", s.BillingPeriod)))
	}
	if s := req.Subscriptions; s != nil && s.Cancellation != "" {
		set(phCancellationMethod, b.labelInlines("cancellation."+s.Cancellation,
			extra{phWebsiteURL, v[phWebsiteURL].ins}, extra{phContactEmail, v[phContactEmail].ins}))
	}
}

// smallInt is n in decimal: strconv keeps the strings of 0-99, so the
// ages and day counts requests give rarely allocate.
func smallInt(n int) string { return strconv.Itoa(n) }

// shippingVars fills the shipping policy's placeholders (issue 8, t4):
// where the business ships ("shippingRegions") and when it dispatches
// ("dispatchTime"), each a placeholder (and a todo) when not given.
func (b *builder) shippingVars(v *vars) {
	req := &b.f.Request
	v[phShippingRegions] = value{ins: b.missing("shippingRegions"), ok: true}
	v[phDispatchTime] = value{ins: b.missing("dispatchDays"), ok: true}
	if len(req.ShippingRegions) > 0 {
		var nb [16]string
		names := nb[:0]
		for _, code := range req.ShippingRegions {
			switch code {
			case ShipWorldwide, ShipEU:
				names = append(names, b.label2("shipTo.", code))
			default:
				names = append(names, CountryName(code))
			}
		}
		v[phShippingRegions] = value{ins: b.join(names), ok: true}
	}
	if d := req.DispatchDays; d != nil {
		switch *d {
		case 0:
			v[phDispatchTime] = value{ins: b.str(b.label("dispatch.sameDay")), ok: true}
		case 1:
			v[phDispatchTime] = value{ins: b.str(b.label("dispatch.oneDay")), ok: true}
		default:
			// "within # business days": the number in place of each "#".
			v[phDispatchTime] = value{ins: b.replaceHash(b.label("dispatch.days"), smallInt(*d)), ok: true}
		}
	}
}

// replaceHash is s with every "#" replaced by n, as runs.
func (b *builder) replaceHash(s, n string) []Inline {
	k := strings.Count(s, "#")
	out := b.ins.alloc(2*k + 1)
	for i := range k {
		before, after, _ := strings.Cut(s, "#")
		out[2*i], out[2*i+1] = Inline{Kind: Plain, Text: before}, Inline{Kind: Plain, Text: n}
		s = after
	}
	out[2*k] = Inline{Kind: Plain, Text: s}
	return out
}

// join lists items in prose: "a, b and c".
func (b *builder) join(items []string) []Inline {
	return b.joinWith(items, sepLast)
}

// joinWith lists items in prose with the separator seps[last] before
// the last item ("a, b or c").
func (b *builder) joinWith(items []string, last int) []Inline {
	// appendJoin writes 2n-1 runs (one for none): exactly what is carved.
	return b.appendJoin(b.ins.alloc(max(2*len(items)-1, 1))[:0], items, last)
}

// upperASCII and lowerASCII are the one-letter strings capFirst and
// lowerFirst put in front of the rest of a word.
const (
	upperASCII = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerASCII = "abcdefghijklmnopqrstuvwxyz"
)

// capFirst upper-cases the first letter of the first run of ins, as
// strings.ToUpper does to the first byte.
func (b *builder) capFirst(ins []Inline) []Inline { return b.caseFirst(ins, true) }

// lowerFirst lower-cases the first byte of s, in runs.
func (b *builder) lowerFirst(s string) []Inline {
	return b.caseFirst(b.str(s), false)
}

func (b *builder) caseFirst(ins []Inline, upper bool) []Inline {
	if len(ins) == 0 || ins[0].Kind != Plain {
		return ins
	}
	first, rest, split := splitFirst(ins[0].Text, upper)
	if !split {
		return ins
	}
	out := b.ins.alloc(len(ins) + 1)
	out[0] = b.safe(first) // a letter, or bytes from 0x80
	out[1] = Inline{Kind: Plain, Text: rest}
	copy(out[2:], ins[1:])
	return out
}

// splitFirst splits s into its first byte, upper- or lower-cased as
// strings.ToUpper or ToLower does it, and the rest; split is false when
// the case change leaves s as it is.
func splitFirst(s string, upper bool) (first, rest string, split bool) {
	if s == "" {
		return "", "", false
	}
	switch c := s[0]; {
	case upper && 'a' <= c && c <= 'z':
		return upperASCII[c-'a' : c-'a'+1], s[1:], true
	case !upper && 'A' <= c && c <= 'Z':
		return lowerASCII[c-'A' : c-'A'+1], s[1:], true
	case c < 0x80:
		return "", "", false
	case upper:
		return strings.ToUpper(s[:1]), s[1:], true
	}
	return strings.ToLower(s[:1]), s[1:], true
}

// lowerFirstString is lowerFirst as a string, for comparisons.
func lowerFirstString(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// sameLowerFirst reports whether a and b are equal once their first byte
// is lower-cased (lowerFirstString), without building either when both
// start with ASCII.
func sameLowerFirst(a, b string) bool {
	if a == "" || b == "" || a[0] >= 0x80 || b[0] >= 0x80 {
		return lowerFirstString(a) == lowerFirstString(b)
	}
	lower := func(c byte) byte {
		if 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	return len(a) == len(b) && lower(a[0]) == lower(b[0]) && a[1:] == b[1:]
}

// useJurisdiction makes r's words current (the document's own when r is
// nil or not listed).
func (b *builder) useJurisdiction(r *catalog.Jurisdiction) {
	i := -1
	if r != nil {
		i = jurisdictionIndex(b.f.Jurisdictions, r.ID)
	}
	b.useJurisdictionAt(i)
}

// useJurisdictionAt makes the words of the i-th listed jurisdiction
// current, or the document's own for i < 0.
func (b *builder) useJurisdictionAt(i int) {
	if i >= 0 && i < len(b.byJurisdiction) {
		b.regime, b.vars = &b.f.Jurisdictions[i], b.jurisdictionVars(i)
		return
	}
	b.regime, b.vars = &b.f.Jurisdiction, &b.base
}

// speaksOfJurisdiction reports whether clause lines can read differently
// in a listed jurisdiction's words: a generator's (its tables and labels
// follow b.regime) or one naming a placeholder jurisdictionVars gives
// each jurisdiction its own value of. The other lines read the same with
// any jurisdiction's vars, so build leaves the current ones for them
// rather than finding which jurisdiction the clause is about (a document
// for 34 jurisdictions has over a thousand clauses, most of them such).
func speaksOfJurisdiction(lines []line) bool {
	for _, l := range lines {
		if l.kind == lineGenerator {
			return true
		}
		for _, s := range l.segs { // a literal run's ph is -1
			switch s.ph {
			case phRegion, phLawName, phLawShort, phAuthorityName, phAuthorityURL, phRepresentative:
				return true
			}
		}
	}
	return false
}

// clauseJurisdiction is the position of the one listed jurisdiction whose
// laws a clause satisfies (the UK complaint clause satisfies UK GDPR only;
// Brazil's clauses the LGPD), or -1 for a clause about several
// jurisdictions or none, which speaks with the document's own words.
func (b *builder) clauseJurisdiction(c *compiledClause) int {
	var found uint64
	started := false
	for _, law := range c.laws {
		if !b.lawIn[law] {
			continue
		}
		if !started {
			found, started = b.lawMask[law], true
			continue
		}
		found &= b.lawMask[law]
	}
	if found == 0 || found&(found-1) != 0 {
		return -1
	}
	return bits.TrailingZeros64(found)
}

// build selects the clauses whose conditions hold and assembles the tree,
// checking that some included section satisfies each requirement. With
// evidence set it records which one in doc.Evidence; Generate leaves it
// unset, because nothing reads a generated document's evidence (the API
// asks EvidenceOf when a client does) and, for a document of many
// jurisdictions, several hundred entries of six strings each are more
// than half of what it would allocate beyond its text.
func (b *builder) build(p *program, applicable []*compliance.Requirement, doc *Document, evidence bool) error {
	b.prepareWords()
	b.setVars(p)
	b.f.conditionBits(&b.cond, b.lib)
	b.cond.setGroups()
	b.prepareLaws(evidence)
	cond := b.cond.bits
	multi := len(b.byJurisdiction) > 0
	esc := b.esc
	doc.Title = p.titleRuns[esc : esc+1 : esc+1]
	b.openList = -1
	for si := range p.sections {
		sec := &p.sections[si]
		if !sec.when.holds(cond) {
			continue
		}
		// The heading's place, written once the section shows a block.
		at := len(b.blocks)
		b.section = sec.id
		b.newBlock()
		b.secStart = len(b.blocks)
		for ci := range sec.clauses {
			c := &sec.clauses[ci]
			if !c.when.holds(cond) {
				continue
			}
			if multi && c.jurisdictional {
				b.useJurisdictionAt(b.clauseJurisdiction(c))
			}
			b.clauseStart = len(b.blocks)
			for li := range c.lines {
				b.line(&c.lines[li])
			}
			for _, w := range c.satisfied {
				b.satisfied[w.word] |= w.mask
			}
			if evidence {
				for _, r := range c.satisfies {
					if b.satisfiedAt[r] == 0 {
						b.satisfiedAt[r] = int32(si<<16|ci) + 1
					}
				}
			}
		}
		b.closeList()
		if len(b.blocks) == b.secStart {
			b.blocks = b.blocks[:at]
			continue
		}
		b.blocks[at] = sec.headBlocks[esc]
		b.heads = append(b.heads, head{block: at, sec: sec})
	}
	if multi {
		b.useJurisdictionAt(-1)
	}
	doc.Blocks = b.blocks
	b.fillContents(doc)
	if gaps := b.unsatisfied(applicable); gaps != nil {
		return &GapError{Requirements: gaps}
	}
	if evidence {
		doc.Evidence = make([]Evidence, 0, len(applicable))
		for _, r := range applicable {
			at := b.satisfiedAt[r.Position()] - 1
			sec := &p.sections[at>>16]
			doc.Evidence = append(doc.Evidence, Evidence{Requirement: r.ID, Citation: r.Citation, Section: sec.id,
				Heading: sec.heading, Anchor: sec.anchor, Clause: sec.clauses[at&0xffff].id})
		}
	}
	return nil
}

// unsatisfied is the ids of the applicable requirements no included
// clause satisfies, nil for none. Each is found by its position, the
// library's number for it (compile), in a loop of its own: in build's, a
// document's few hundred items each cost several times as much.
func (b *builder) unsatisfied(applicable []*compliance.Requirement) []string {
	var gaps []string
	for _, r := range applicable {
		if n := r.Position(); b.satisfied[n>>6]&(1<<(n&63)) == 0 {
			gaps = append(gaps, r.ID)
		}
	}
	return gaps
}

// prepareLaws clears the record of satisfied requirements (with where
// each is satisfied when the evidence is asked for) and, in a document
// for several jurisdictions, notes which laws apply and which of
// the jurisdictions each covers (clauseJurisdiction).
func (b *builder) prepareLaws(evidence bool) {
	n, nl := len(b.lib.requirementLaw), len(b.lib.laws)
	if w := (n + 63) / 64; cap(b.satisfied) < w {
		b.satisfied = make([]uint64, w)
	} else {
		b.satisfied = b.satisfied[:w]
		clear(b.satisfied)
	}
	if evidence {
		if cap(b.satisfiedAt) < n {
			b.satisfiedAt = make([]int32, n)
		}
		b.satisfiedAt = b.satisfiedAt[:n]
		clear(b.satisfiedAt)
	}
	if len(b.f.Jurisdictions) < 2 {
		return // clauseJurisdiction, their only reader, is for several
	}
	if cap(b.lawIn) < nl {
		b.lawIn, b.lawMask = make([]bool, nl), make([]uint64, nl)
	}
	b.lawIn, b.lawMask = b.lawIn[:nl], b.lawMask[:nl]
	clear(b.lawIn)
	clear(b.lawMask)
	// Each law by position (lawAt) and the listed jurisdictions it covers
	// by their catalog positions (embeddedLawOf, listedAt): a law names one
	// or two, a federal law its country's; by id where either is unknown.
	listedAt, embedded := b.f.listedAt(), embeddedLaws()
	for k := range b.f.Laws {
		l := &b.f.Laws[k]
		i := b.lib.lawAt(l)
		if i < 0 {
			continue
		}
		b.lawIn[i] = true
		b.lawMask[i] |= b.lawListed(l, listedAt, embedded)
	}
}

// lawListed is the listed jurisdictions (the first 64) that law l
// covers, as bits of their positions in the document's list: by the
// catalog positions of an embedded law's jurisdictions (embeddedLawOf,
// listedAt, nil for a list built in code) where both are known, by id
// (listedBits) otherwise. A document for 34 jurisdictions asks for its
// fifty-odd laws twice (setVars, prepareLaws), which by id made a map of
// the list and looked each law's ids up in it.
func (b *builder) lawListed(l *compliance.Law, listedAt []uint64, embedded []embeddedLaw) uint64 {
	var m uint64
	if e, ok := embeddedLawOf(embedded, l); ok && listedAt != nil {
		for _, p := range e.jpos {
			m |= listedAt[p]
		}
		return m
	}
	listed := b.listedBits()
	for _, id := range l.Jurisdictions {
		m |= listed[id]
	}
	return m
}

// listedBits maps each listed jurisdiction (the first 64) to its
// positions in the document's list, as bits, made once per document,
// for lawListed's fallback: a law that is not one of the embedded laws
// (laws made in tests), or a list whose catalog positions are unknown.
// An embedded law's jurisdictions go by catalog position. Bits, not one
// position, so that a list that names a jurisdiction twice gets both.
func (b *builder) listedBits() map[string]uint64 {
	if b.listedDone {
		return b.jurisdictionBits
	}
	b.listedDone = true
	if b.jurisdictionBits == nil {
		b.jurisdictionBits = map[string]uint64{}
	}
	clear(b.jurisdictionBits)
	for j := range min(len(b.f.Jurisdictions), 64) {
		b.jurisdictionBits[b.f.Jurisdictions[j].ID] |= 1 << j
	}
	return b.jurisdictionBits
}

// line adds one compiled clause line to the document.
func (b *builder) line(l *line) {
	switch l.kind {
	case lineGenerator:
		l.gen(b)
	case lineItem:
		item := b.expand(l.segs)
		if b.openList >= 0 {
			b.items = append(b.items, item)
			return
		}
		b.blocks = append(b.blocks, Block{Kind: List, Section: b.section})
		b.openList = len(b.blocks) - 1
		b.items = append(b.items, item)
	default:
		if l.block == nil {
			b.paragraph(b.expand(l.segs), l.kind == lineStrong)
			return
		}
		if b.openList >= 0 {
			b.closeList()
		}
		*b.newBlock() = l.block[b.esc]
	}
}

// newBlock adds a block to blocks and returns it, to be written whole
// (what a pooled builder's blocks held there is not read): a block is
// copied into place, not first onto the stack as append copies it.
func (b *builder) newBlock() *Block {
	n := len(b.blocks)
	if n == cap(b.blocks) {
		b.blocks = slices.Grow(b.blocks, 1)
	}
	b.blocks = b.blocks[:n+1]
	return &b.blocks[n]
}

// paragraph adds a paragraph to the current section: emit for the
// clause lines' most common block, without passing a whole Block.
func (b *builder) paragraph(ins []Inline, strong bool) {
	if b.openList >= 0 {
		b.closeList()
	}
	b.blocks = append(b.blocks, Block{Kind: Paragraph, Strong: strong, Section: b.section, Inlines: ins})
}

// emit adds a block to the current section. A list block continues the
// list before it when it is the first block of its clause (a clause that
// only adds list items continues the list of the clause before it); list
// items that follow it in the clause join it.
func (b *builder) emit(blk Block) {
	blk.Section = b.section
	if blk.Kind == List {
		if b.openList >= 0 && len(b.blocks) == b.clauseStart {
			b.items = append(b.items, blk.Items...)
			return
		}
		b.closeList()
		items := blk.Items
		blk.Items = nil
		b.blocks = append(b.blocks, blk)
		b.openList = len(b.blocks) - 1
		b.items = append(b.items, items...)
		return
	}
	b.closeList()
	b.blocks = append(b.blocks, blk)
}

// closeList stores the open list's items.
func (b *builder) closeList() {
	if b.openList < 0 {
		return
	}
	b.blocks[b.openList].Items = b.cells.copy(b.items)
	b.items = b.items[:0]
	b.openList = -1
}

// contentsSection holds the table of contents; summarySection the summary.
const (
	contentsSection = "contents"
	summarySection  = "summary"
)

// fillContents fills the table of contents (the list genContents left
// empty) with a link to every section after it.
func (b *builder) fillContents(doc *Document) {
	toc := -1
	for i := range doc.Blocks { // by index: a Block is 19 words
		if blk := &doc.Blocks[i]; blk.Kind == List && blk.Section == contentsSection {
			toc = i
			break
		}
	}
	if toc < 0 {
		return
	}
	n := 0
	for _, h := range b.heads {
		if h.block > toc {
			n++
		}
	}
	items := b.cells.alloc(n)
	links := b.ins.alloc(n)
	i := 0
	for _, h := range b.heads {
		if h.block > toc {
			links[i] = Inline{Kind: Link, Text: h.sec.heading, URL: h.sec.href}
			items[i] = links[i : i+1 : i+1]
			i++
		}
	}
	doc.Blocks[toc].Items = items
}

// slug is a heading's fragment id as GitHub makes it: lower case, letters,
// digits, hyphens and underscores kept, spaces as hyphens.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
