package policy

import (
	"encoding/binary"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/policygen/policygen/pkg/catalog"
)

// Render writes doc in format (markdown, html or text): step 5 of the
// pipeline. Every string is escaped here, for the target format only.
func Render(doc *Document, format, language string) (string, error) {
	hint := sizeHint(doc)
	switch format {
	case "html":
		hint = hint * 5 / 4
	case "text":
		hint = hint * 9 / 8
	}
	b, err := appendRender(make([]byte, 0, hint), doc, format, language)
	return bytesString(b), err
}

// appendRender appends doc rendered in format to dst.
func appendRender(dst []byte, doc *Document, format, language string) ([]byte, error) {
	var r renderer
	switch format {
	case "markdown":
		return r.markdown(dst, doc), nil
	case "html":
		return r.html(dst, doc, language), nil
	case "text":
		return r.text(dst, doc), nil
	}
	return dst, fmt.Errorf("policy: unknown format %q", format)
}

// renderer remembers the links it has checked (safeURL): a document
// links to the same few addresses many times.
type renderer struct {
	seen  [8]seenURL
	n     int
	memo  *escapeMemo // the document's (Document.escaped)
	links *escapeMemo // the document's (Document.links)
	// tables are the last tables written, where their bytes are in the
	// output: a document that shows a table twice (the transfer tables
	// of a general section and Switzerland's) holds the same block
	// twice, and the second is a copy of the first's bytes.
	tables [8]tableSpan
	nt     int
	// written are links the renderer has written, where their bytes are:
	// a document links the business's own addresses (its email, its
	// website) many times, and each time after the first is a copy.
	written [16]linkSpan
	// cells are table cells of several runs the renderer has written,
	// where their bytes are (appendCellOnce).
	cells [64]cellSpan
}

// setMemos takes doc's memos, with an empty escape memo for a document
// without one, so that the renderers need not test for it.
func (r *renderer) setMemos(doc *Document) {
	r.memo, r.links = doc.escaped, doc.links
	if r.memo == nil {
		r.memo = &noMemo
	}
}

// noMemo is an escape memo that holds nothing.
var noMemo = escapeMemo{slots: make([]memoSlot, 1)}

// linkSpan is a link (its address's and its text's memory) written at
// b[start:end].
type linkSpan struct {
	url, text  *byte
	un, tn     int
	start, end int
}

// writtenLink is link in's slot in written: the link written there when
// it is in, else the slot to record in in.
func (r *renderer) writtenLink(in *Inline) (s *linkSpan, ok bool) {
	p := unsafe.StringData(in.URL)
	h := uint64(uintptr(unsafe.Pointer(p))) * 0x9e3779b97f4a7c15 // Fibonacci hashing
	s = &r.written[h>>60]
	// An empty address is never recorded, so an empty slot never matches.
	ok = s.url == p && s.un == len(in.URL) && s.text == unsafe.StringData(in.Text) && s.tn == len(in.Text) && s.un > 0
	return s, ok
}

// appendLinkOnce appends link in: a copy of its bytes when the renderer
// has written it before, else what write writes, which it records.
func (r *renderer) appendLinkOnce(b []byte, in *Inline, write func(*renderer, []byte, *Inline) []byte) []byte {
	s, ok := r.writtenLink(in)
	if ok {
		return append(b, b[s.start:s.end]...)
	}
	start := len(b)
	b = write(r, b, in)
	if in.URL != "" {
		*s = linkSpan{url: unsafe.StringData(in.URL), text: unsafe.StringData(in.Text), un: len(in.URL), tn: len(in.Text), start: start, end: len(b)}
	}
	return b
}

// tableSpan is a table written at b[start:end], known by its rows and
// header (offsets, not pointers into b, which may grow).
type tableSpan struct {
	rows       *[][]Inline
	header     *[]Inline
	n, h       int // len(rows), len(header)
	start, end int
}

// writtenTable is where blk's table was written before, if it was.
func (r *renderer) writtenTable(blk *Block) (start, end int, ok bool) {
	if len(blk.Rows) == 0 {
		return 0, 0, false
	}
	for i := range min(r.nt, len(r.tables)) {
		t := &r.tables[i]
		if t.rows == &blk.Rows[0] && t.n == len(blk.Rows) && t.h == len(blk.Header) && (t.h == 0 || t.header == &blk.Header[0]) {
			return t.start, t.end, true
		}
	}
	return 0, 0, false
}

// wroteTable records that blk's table is at b[start:end].
func (r *renderer) wroteTable(blk *Block, start, end int) {
	if len(blk.Rows) == 0 {
		return
	}
	t := tableSpan{rows: &blk.Rows[0], n: len(blk.Rows), h: len(blk.Header), start: start, end: end}
	if t.h > 0 {
		t.header = &blk.Header[0]
	}
	r.tables[r.nt%len(r.tables)] = t
	r.nt++
}

// appendTableOnce appends table blk: a copy of its bytes when the
// renderer has written it before (the tree shows some tables twice),
// else what write writes, which it records.
func (r *renderer) appendTableOnce(b []byte, blk *Block, write func(*renderer, []byte, *Block) []byte) []byte {
	if start, end, ok := r.writtenTable(blk); ok {
		return append(b, b[start:end]...)
	}
	start := len(b)
	b = write(r, b, blk)
	r.wroteTable(blk, start, len(b))
	return b
}

// cellSpan is a table cell (its runs' memory and number) written at
// b[start:end].
type cellSpan struct {
	p          *Inline
	n          int
	start, end int
}

// cellMemoMinRuns is the fewest runs a cell has for appendCellOnce to
// remember it: copying a cell of one run saves nothing.
const cellMemoMinRuns = 3

// appendCellOnce appends table cell c: a copy of its bytes when the
// renderer has written the same cell before, else what write writes,
// which it records. The builder shares a cell that several rows or
// tables show alike (a purpose's data, in each law's purposes table; the
// categories most services receive; a table's safeguard; the sources of
// the categories), so most of a cell's runs are rendered once per
// document: nothing changes a tree once it is built, so the same memory
// and length mean the same runs. The memo is direct-mapped: a cell whose
// slot another took is written again, with the same bytes. Markdown and
// HTML use it; the text format, which copies runs without escaping them,
// gained nothing from it (a cell's copy costs about what its runs do).
func (r *renderer) appendCellOnce(b []byte, c []Inline, write func(*renderer, []byte, []Inline) []byte) []byte {
	p := &c[0]
	h := uint64(uintptr(unsafe.Pointer(p))) * 0x9e3779b97f4a7c15 // Fibonacci hashing
	s := &r.cells[h>>58]
	if s.p == p && s.n == len(c) {
		return append(b, b[s.start:s.end]...)
	}
	start := len(b)
	b = write(r, b, c)
	*s = cellSpan{p: p, n: len(c), start: start, end: len(b)}
	return b
}

// escapeMemo holds the escaped forms of text that reaches documents as
// whole plain runs (the clause library's labels and section headings,
// each with the rest after its first byte, which capitalisation splits
// off; the catalog's descriptions of services; the names of countries),
// computed once when the library is compiled: most of a document's text
// is such runs. A memo of the same kind holds link addresses
// (Document.links). It is keyed by the string's memory, not its content:
// the builder passes these strings on as they are, so the renderer finds
// each by its address and length in an open-addressed table, where
// hashing and comparing the text would cost about as much as escaping it.
// Any other run (the business's own text, a copy of a label) is escaped
// as it is rendered; either way the output is the same. The memo keeps
// every string it holds alive, so the same address and length always mean
// the same bytes.
type escapeMemo struct {
	slots []memoSlot // a power of two long, at most half full
}

type memoSlot struct {
	p   *byte // the string's bytes; nil for an empty slot
	n   int
	lit *literal
}

// memoMinLen is the shortest text escapeMemo holds: escaping a shorter
// run costs no more than looking it up.
const memoMinLen = 8

// memoBuilder collects a memo's strings, each copy of a text under its
// own memory; freeze makes the memo.
type memoBuilder map[*byte]*literal

// add remembers s's escaped forms.
func (m memoBuilder) add(s string) {
	if len(s) >= memoMinLen && m[unsafe.StringData(s)] == nil {
		m.addEscaped(s, &literal{md: mdEscape(s), html: htmlEscape(s)})
	}
}

// addEscaped remembers s with its escaped forms already worked out, and
// s without its first byte: capFirst and lowerFirst split a run there and
// pass the rest on as it is.
func (m memoBuilder) addEscaped(s string, lit *literal) {
	if l := m[unsafe.StringData(s)]; l == nil || len(l.text) < len(s) {
		m[unsafe.StringData(s)] = &literal{text: s, md: lit.md, html: lit.html}
	}
	if rest := s[1:]; len(rest) >= memoMinLen && m[unsafe.StringData(rest)] == nil { // splitFirst's rest
		l := &literal{text: rest}
		if c := s[0]; !mdSpecialByte[c] && htmlEscapeIndex[c] == 0 {
			l.md, l.html = lit.md[1:], lit.html[1:] // the first byte was copied as it is
		} else {
			l.md, l.html = mdEscape(rest), htmlEscape(rest)
		}
		m[unsafe.StringData(rest)] = l
	}
}

func (m memoBuilder) freeze() *escapeMemo {
	n := 16
	for n < 2*len(m) {
		n *= 2
	}
	e := &escapeMemo{slots: make([]memoSlot, n)}
	for p, lit := range m {
		i := e.slot(p)
		for e.slots[i].p != nil {
			i = (i + 1) & (n - 1)
		}
		e.slots[i] = memoSlot{p: p, n: len(lit.text), lit: lit}
	}
	return e
}

// slot is where the search for a string at p starts.
func (e *escapeMemo) slot(p *byte) int {
	h := uint64(uintptr(unsafe.Pointer(p))) * 0x9e3779b97f4a7c15 // Fibonacci hashing
	return int(h>>32) & (len(e.slots) - 1)
}

// get returns s's escaped forms, or nil when the memo does not hold s.
func (e *escapeMemo) get(s string) *literal {
	if e == nil || len(s) < memoMinLen {
		return nil
	}
	return e.probe(unsafe.StringData(s), len(s))
}

// probe is get for the string of n bytes at p: small enough to be
// inlined into the renderers' loops over runs, which look up every plain
// run of memoMinLen bytes or more.
func (e *escapeMemo) probe(p *byte, n int) *literal {
	for i := e.slot(p); ; i = (i + 1) & (len(e.slots) - 1) {
		sl := &e.slots[i]
		if sl.p == p && sl.n == n {
			return sl.lit
		}
		if sl.p == nil {
			return nil
		}
	}
}

// addCatalog remembers the catalog's text that documents quote whole:
// what it says of each service and the names of countries.
func (m memoBuilder) addCatalog(c *catalog.Catalog) {
	for i := range c.Services {
		s := &c.Services[i]
		for _, t := range [...]string{s.Name, s.Provider, s.EUEntity, s.Purpose, s.Retention} {
			m.add(t)
		}
		for _, k := range s.Cookies {
			m.add(k.Purpose)
			m.add(k.Duration)
		}
	}
	for _, r := range regions {
		m.add(r.name)
	}
}

// addLink remembers link address u, shown as its own text.
func (m memoBuilder) addLink(u string) {
	m.addLinkText(u, u)
}

// addLinkText remembers link address u with its rendered forms: the
// Markdown link destination and the HTML attribute value of what safeURL
// makes of it, or that safeURL refuses it, and the whole link with text
// as its text in each format, which a document's link with that text
// (the same memory or the same bytes) copies as it is.
func (m memoBuilder) addLinkText(u, text string) {
	if len(u) < memoMinLen || m[unsafe.StringData(u)] != nil {
		return
	}
	out, ok := safeURL(u)
	l := &literal{text: u, unsafe: !ok, shown: text, wholeMD: mdEscape(text), wholeHTML: htmlEscape(text)}
	if ok {
		l.md, l.html = mdURL.Replace(out), htmlEscape(out)
		l.wholeMD = "[" + l.wholeMD + "](<" + l.md + ">)"
		l.wholeHTML = `<a href="` + l.html + `">` + l.wholeHTML + "</a>"
	}
	m[unsafe.StringData(u)] = l
}

// addHeading remembers the heading block of a section whose heading is
// heading and anchor anchor, as the builder makes it (sectionHeading).
func (m memoBuilder) addHeading(anchor, heading string) {
	if len(anchor) < memoMinLen || m[unsafe.StringData(anchor)] != nil {
		return
	}
	m[unsafe.StringData(anchor)] = &literal{text: anchor, shown: heading,
		wholeMD:   "## " + mdEscape(heading),
		wholeHTML: `<h2 id="` + htmlEscape(anchor) + `">` + htmlEscape(heading) + "</h2>\n"}
}

// sectionHeading is the link memo's entry for heading blk when blk is a
// section's heading as the builder makes it (level 2, the section's
// anchor, its heading as one plain run), else nil: the renderers copy
// such a heading whole.
func (r *renderer) sectionHeading(blk *Block) *literal {
	if blk.Level != 2 || len(blk.Inlines) != 1 || blk.Inlines[0].Kind != Plain {
		return nil
	}
	if l := r.links.get(blk.Anchor); l != nil && sameString(blk.Inlines[0].Text, l.shown) {
		return l
	}
	return nil
}

// addCatalogLinks remembers the addresses the catalog holds.
func (m memoBuilder) addCatalogLinks(c *catalog.Catalog) {
	for i := range c.Services {
		s := &c.Services[i]
		m.addLink(s.PrivacyPolicyURL)
		m.addLink(s.OptOutURL)
		m.addLink(s.DPAURL)
	}
	for i := range c.Jurisdictions {
		j := &c.Jurisdictions[i]
		if j.Authority != nil {
			m.addLink(j.Authority.URL)
		}
		for k := range j.Authorities {
			m.addLink(j.Authorities[k].URL)
		}
	}
}

// appendMDText appends s escaped for Markdown: from the memo, when it
// holds s, else scanned.
func (r *renderer) appendMDText(b []byte, s string) []byte {
	if len(s) >= memoMinLen {
		if l := r.memo.probe(unsafe.StringData(s), len(s)); l != nil {
			return append(b, l.md...)
		}
	}
	return appendMDEscape(b, s)
}

// appendHTMLText appends s escaped for HTML, as appendMDText does.
func (r *renderer) appendHTMLText(b []byte, s string) []byte {
	if len(s) >= memoMinLen {
		if l := r.memo.probe(unsafe.StringData(s), len(s)); l != nil {
			return append(b, l.html...)
		}
	}
	return appendHTMLEscape(b, s)
}

// seenURL is a link address a renderer has checked: what safeURL made of
// it (empty when it refused it) and, once asked for, its Markdown form.
type seenURL struct {
	in, out string
	md      string
	mdDone  bool
}

// safeURL is the package's safeURL, remembered for the document.
func (r *renderer) safeURL(u string) (string, bool) {
	if out, ok, known := fastSafeURL(u); known {
		return out, ok
	}
	s := r.check(u)
	return s.out, s.out != ""
}

// check is u's entry in seen, made when u is not there.
func (r *renderer) check(u string) *seenURL {
	for i := range min(r.n, len(r.seen)) {
		if r.seen[i].in == u {
			return &r.seen[i]
		}
	}
	out, _ := safeURL(u)
	s := &r.seen[r.n%len(r.seen)]
	*s = seenURL{in: u, out: out}
	r.n++
	return s
}

// mdDest is the Markdown link destination of u (mdURL applied to what
// safeURL makes of it), remembered for the document; ok is false when
// safeURL refuses u.
func (r *renderer) mdDest(u string) (string, bool) {
	if out, ok, known := fastSafeURL(u); known {
		return out, ok
	}
	s := r.check(u)
	if !s.mdDone {
		s.md, s.mdDone = mdURL.Replace(s.out), true
	}
	return s.md, s.out != ""
}

// fastSafeURL answers safeURL without parsing (known is false when it
// cannot): for a fragment of the table of contents, and for an http or
// https address of a host and a path, or a mailto address, made of
// characters url.Parse and URL.String pass through as they are (the
// business's website and email, as requests give them). mdURL leaves its
// answers as they are too (TestFastSafeURL). The catalog's addresses are
// in the link memo (Document.links).
func fastSafeURL(u string) (out string, ok, known bool) {
	rest, allowed := "", &fragmentByte
	switch {
	case len(u) > 1 && u[0] == '#':
		rest = u[1:]
	case strings.HasPrefix(u, "mailto:"):
		rest, allowed = u[len("mailto:"):], &mailtoByte
	case strings.HasPrefix(u, "https://"):
		rest, allowed = u[len("https://"):], &webByte
	case strings.HasPrefix(u, "http://"):
		rest, allowed = u[len("http://"):], &webByte
	}
	if rest == "" || rest[0] == '/' { // no address, or no host
		return "", false, false
	}
	for i := range len(rest) {
		if !allowed[rest[i]] {
			return "", false, false
		}
	}
	return u, true, true
}

// The bytes fastSafeURL passes in a fragment, an email address, and a
// web address's host and path: unreserved characters (RFC 3986), which
// neither url.Parse nor URL.String changes, "+" and "@" in an email
// address, "/" in a path.
var fragmentByte, mailtoByte, webByte = func() (fragment, mailto, web [256]bool) {
	for c := range 256 {
		unreserved := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
		fragment[c] = unreserved
		mailto[c] = unreserved || c == '.' || c == '+' || c == '@'
		web[c] = unreserved || c == '.' || c == '~' || c == '/'
	}
	return
}()

// mdSpecial are the characters that can start Markdown (CommonMark + GFM)
// inline syntax: emphasis, code, links, raw HTML, entities, tables,
// strikethrough, headings. A backslash makes each literal.
const mdSpecial = "\\`*_[]<>|#~&!{}"

var mdSpecialByte = func() (t [256]bool) {
	for i := range len(mdSpecial) {
		t[mdSpecial[i]] = true
	}
	return t
}()

func mdEscape(s string) string {
	n := 0
	for i := range len(s) {
		if mdSpecialByte[s[i]] {
			n++
		}
	}
	if n == 0 {
		return s
	}
	// All special characters are ASCII, so escaping byte by byte never
	// splits a multi-byte rune.
	b := make([]byte, 0, len(s)+n)
	for i := range len(s) {
		if mdSpecialByte[s[i]] {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// mdURL percent-encodes what the <...> link destination form cannot hold.
var mdURL = strings.NewReplacer("<", "%3C", ">", "%3E", "\n", "", "\r", "", " ", "%20")

// mdBlockStart escapes what would make the start of a paragraph or list
// item a block construct: a list marker ("-", "+", "1." or "1)"), a
// setext underline or an indented code block.
func mdBlockStart(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '-', '+', '=':
		return "\\" + s
	case ' ', '\t':
		return strings.TrimLeft(s, " \t")
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') {
		return s[:i] + "\\" + s[i:]
	}
	return s
}

// safeURL returns u if its scheme is one a document may link to.
func safeURL(u string) (string, bool) {
	p, err := url.Parse(u)
	if err != nil {
		return "", false
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https", "mailto":
		return p.String(), true
	case "":
		// A link within the document (the table of contents).
		if p.Host == "" && p.Path == "" && p.Fragment != "" && u == "#"+p.Fragment {
			return u, true
		}
	}
	return "", false
}

// The renderers append to one byte slice sized from the document, rather
// than building a string per block and joining them: the output is the
// same, written once.

// bytesString returns b as a string without copying it, as
// strings.Builder does: b must not be written to afterwards.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// sizeHint estimates the rendered size of doc: its text plus markup
// (measured on the largest documents: a little above the Markdown output;
// text asks for an eighth more, HTML for a quarter).
func sizeHint(doc *Document) int {
	n := 256
	add := func(ins []Inline) {
		for i := range ins {
			in := &ins[i]
			n += len(in.Text) + 2
			if in.Kind == Link {
				n += len(in.URL)
			}
		}
	}
	add(doc.Title)
	for i := range doc.Blocks {
		blk := &doc.Blocks[i]
		add(blk.Inlines)
		for _, it := range blk.Items {
			add(it)
			n += 4
		}
		for _, h := range blk.Header {
			add(h)
		}
		for _, r := range blk.Rows {
			for _, c := range r {
				add(c)
			}
			n += 6 * len(r)
		}
		n += 8
	}
	return n
}

// appendMDEscape appends s with mdSpecial characters backslash-escaped.
func appendMDEscape(b []byte, s string) []byte {
	// All special characters are ASCII, so escaping byte by byte never
	// splits a multi-byte rune.
	for {
		i := mdSpecialIndex(s)
		if i < 0 {
			return append(b, s...)
		}
		b = append(b, s[:i]...)
		b = append(b, '\\', s[i])
		s = s[i+1:]
	}
}

// mdSpecialIndex is the index of the first mdSpecial character in s, or
// -1: a loop of its own, which appends nothing, keeps its state in
// registers.
func mdSpecialIndex(s string) int {
	for i := range len(s) {
		if mdSpecialByte[s[i]] {
			return i
		}
	}
	return -1
}

// appendMDInlines appends ins in Markdown. A plain run costs its
// dispatch more than its escaping: most are the library's text carrying
// its escaped form (Inline.esc), a string the escape memo holds, or a
// few bytes (a period, a separator, a capital split off) with nothing to
// escape. The loop copies those itself, looking the memo up without a
// call, and calls out only to escape the rest.
func (r *renderer) appendMDInlines(b []byte, ins []Inline) []byte {
	for i := range ins {
		in := &ins[i]
		switch in.Kind {
		case Plain:
			if in.esc == escMarkdown {
				b = append(b, in.URL...)
				continue
			}
			if t := in.Text; len(t) < memoMinLen {
				if mdSpecialIndex(t) < 0 {
					b = append(b, t...)
					continue
				}
			} else if l := r.memo.probe(unsafe.StringData(t), len(t)); l != nil {
				b = append(b, l.md...)
				continue
			}
			b = appendMDEscape(b, in.Text)
		case Link:
			b = r.appendMDLink(b, in)
		case Missing:
			b = append(b, "**"...)
			b = r.appendMDText(b, in.Text)
			b = append(b, "**"...)
		}
	}
	return b
}

// appendMDLink appends link in: out of appendMDInlines's loop, which is
// mostly plain runs. A link to an address the link memo holds is written
// from it (most such links are the whole link it holds, the contents'
// among them); any other is written once and copied after that.
func (r *renderer) appendMDLink(b []byte, in *Inline) []byte {
	l := r.links.get(in.URL)
	if l == nil {
		return r.appendLinkOnce(b, in, (*renderer).writeMDLink)
	}
	if sameString(in.Text, l.shown) {
		return append(b, l.wholeMD...)
	}
	if l.unsafe {
		return r.appendMDText(b, in.Text)
	}
	b = append(b, '[')
	b = r.appendMDText(b, in.Text)
	b = append(b, "](<"...)
	b = append(b, l.md...)
	return append(b, ">)"...)
}

// writeMDLink writes link in, whose address the link memo lacks, in
// Markdown.
func (r *renderer) writeMDLink(b []byte, in *Inline) []byte {
	if u, ok := r.mdDest(in.URL); !ok {
		b = r.appendMDText(b, in.Text)
	} else {
		b = append(b, '[')
		b = r.appendMDText(b, in.Text)
		b = append(b, "](<"...)
		b = append(b, u...)
		b = append(b, ">)"...)
	}
	return b
}

// appendMDBlock appends inlines that start a paragraph or list item, made
// safe at their start as mdBlockStart does.
func (r *renderer) appendMDBlock(b []byte, ins []Inline) []byte {
	start := len(b)
	if len(ins) == 1 && ins[0].esc == escMarkdown {
		// A line of the library's text alone, as most are: no call.
		b = append(b, ins[0].URL...)
	} else {
		b = r.appendMDInlines(b, ins)
	}
	// Every character that needs a fix-up ("-+= \t" and digits) sorts at
	// or before '=': text that starts with a letter is left at once.
	if len(b) == start || b[start] > '=' {
		return b
	}
	switch b[start] {
	case '-', '+', '=':
		r.edited(start, 0, 1)
		return slices.Insert(b, start, '\\')
	case ' ', '\t':
		i := start
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		r.edited(start, i-start, 0)
		return slices.Delete(b, start, i)
	}
	i := start
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i > start && i < len(b) && (b[i] == '.' || b[i] == ')') {
		r.edited(i, 0, 1)
		return slices.Insert(b, i, '\\')
	}
	return b
}

// edited keeps the written links' spans true after appendMDBlock replaced
// the removed bytes at b[at:] with inserted others: a link written after
// the edit point moved with the bytes after it, and one the edit fell in
// is forgotten (written again when it recurs). Without it a later copy of
// a link recorded in the block would be off by the bytes inserted or
// removed.
func (r *renderer) edited(at, removed, inserted int) {
	for k := range r.written {
		s := &r.written[k]
		switch {
		case s.un == 0 || s.end <= at:
		case s.start >= at+removed:
			s.start += inserted - removed
			s.end += inserted - removed
		default:
			*s = linkSpan{}
		}
	}
}

// appendMDHeading appends heading blk (but a section's, which
// sectionHeading finds whole).
func (r *renderer) appendMDHeading(b []byte, blk *Block) []byte {
	for range blk.Level {
		b = append(b, '#')
	}
	b = append(b, ' ')
	return r.appendMDInlines(b, blk.Inlines)
}

func (r *renderer) markdown(b []byte, doc *Document) []byte {
	r.setMemos(doc)
	b = append(b, "# "...)
	b = r.appendMDInlines(b, doc.Title)
	for i := range doc.Blocks {
		blk := &doc.Blocks[i]
		b = append(b, "\n\n"...)
		switch blk.Kind {
		case Heading:
			if l := r.sectionHeading(blk); l != nil {
				b = append(b, l.wholeMD...)
			} else {
				b = r.appendMDHeading(b, blk)
			}
		case Paragraph:
			if blk.Strong {
				b = append(b, "**"...)
				b = r.appendMDBlock(b, blk.Inlines)
				b = append(b, "**"...)
			} else {
				b = r.appendMDBlock(b, blk.Inlines)
			}
		case List:
			for j, it := range blk.Items {
				if j > 0 {
					b = append(b, '\n')
				}
				b = append(b, "- "...)
				b = r.appendMDBlock(b, it)
			}
		case Table:
			b = r.appendTableOnce(b, blk, (*renderer).writeMDTable)
		}
	}
	return append(b, '\n')
}

// appendMDRow appends a table row, "| a | b |": a method rather than a
// closure over b, which would keep b in memory through every append.
func (r *renderer) appendMDRow(b []byte, cells [][]Inline) []byte {
	if len(cells) == 0 {
		return append(b, '|')
	}
	b = append(b, "| "...)
	for j, c := range cells {
		if j > 0 {
			b = append(b, " | "...)
		}
		switch {
		case len(c) == 1 && c[0].esc == escMarkdown:
			// A run carrying its escaped form, as most cells are (a
			// name, a country, a compiled word): no call.
			b = append(b, c[0].URL...)
		case len(c) >= cellMemoMinRuns:
			b = r.appendCellOnce(b, c, (*renderer).appendMDInlines)
		default:
			b = r.appendMDInlines(b, c)
		}
	}
	return append(b, " |"...)
}

// appendHTMLEscape appends s escaped as html.EscapeString escapes it.
// htmlEscape is s escaped as appendHTMLEscape does.
func htmlEscape(s string) string {
	if htmlSpecialIndex(s) >= 0 {
		return string(appendHTMLEscape(make([]byte, 0, len(s)+len(s)/8), s))
	}
	return s
}

func appendHTMLEscape(b []byte, s string) []byte {
	for {
		i := htmlSpecialIndex(s)
		if i < 0 {
			return append(b, s...)
		}
		b = append(b, s[:i]...)
		b = append(b, htmlEscapes[htmlEscapeIndex[s[i]]]...)
		s = s[i+1:]
	}
}

// htmlSpecialIndex is the index of the first byte in s that HTML escapes,
// or -1 (see mdSpecialIndex).
func htmlSpecialIndex(s string) int {
	for i := range len(s) {
		if htmlEscapeIndex[s[i]] != 0 {
			return i
		}
	}
	return -1
}

// htmlEscapes are the entities appendHTMLEscape writes (as html/template
// does), and htmlEscapeIndex maps each byte to its entity's index, 0 for a
// byte written as it is: one table load per byte instead of a switch.
var (
	htmlEscapes     = [...]string{"", "&lt;", "&gt;", "&amp;", "&#39;", "&#34;"}
	htmlEscapeIndex = [256]uint8{'<': 1, '>': 2, '&': 3, '\'': 4, '"': 5}
)

// appendHTMLInlines appends ins in HTML, as appendMDInlines does.
func (r *renderer) appendHTMLInlines(b []byte, ins []Inline) []byte {
	for i := range ins {
		in := &ins[i]
		switch in.Kind {
		case Plain:
			if in.esc == escHTML {
				b = append(b, in.URL...)
				continue
			}
			if t := in.Text; len(t) < memoMinLen {
				if htmlSpecialIndex(t) < 0 {
					b = append(b, t...)
					continue
				}
			} else if l := r.memo.probe(unsafe.StringData(t), len(t)); l != nil {
				b = append(b, l.html...)
				continue
			}
			b = appendHTMLEscape(b, in.Text)
		case Link:
			b = r.appendHTMLLink(b, in)
		case Missing:
			b = append(b, `<mark class="missing">`...)
			b = r.appendHTMLText(b, in.Text)
			b = append(b, "</mark>"...)
		}
	}
	return b
}

// appendHTMLLink appends link in, as appendMDLink does.
func (r *renderer) appendHTMLLink(b []byte, in *Inline) []byte {
	l := r.links.get(in.URL)
	if l == nil {
		return r.appendLinkOnce(b, in, (*renderer).writeHTMLLink)
	}
	if sameString(in.Text, l.shown) {
		return append(b, l.wholeHTML...)
	}
	if l.unsafe {
		return r.appendHTMLText(b, in.Text)
	}
	b = append(b, `<a href="`...)
	b = append(b, l.html...)
	b = append(b, `">`...)
	b = r.appendHTMLText(b, in.Text)
	return append(b, "</a>"...)
}

// writeHTMLLink writes link in, whose address the link memo lacks, in
// HTML.
func (r *renderer) writeHTMLLink(b []byte, in *Inline) []byte {
	if u, ok := r.safeURL(in.URL); !ok {
		b = r.appendHTMLText(b, in.Text)
	} else {
		b = append(b, `<a href="`...)
		b = appendHTMLEscape(b, u)
		b = append(b, `">`...)
		b = r.appendHTMLText(b, in.Text)
		b = append(b, "</a>"...)
	}
	return b
}

func (r *renderer) html(b []byte, doc *Document, language string) []byte {
	r.setMemos(doc)
	b = append(b, `<article class="policy" lang="`...)
	b = appendHTMLEscape(b, language)
	b = append(b, "\">\n<h1>"...)
	b = r.appendHTMLInlines(b, doc.Title)
	b = append(b, "</h1>\n"...)
	for i := range doc.Blocks {
		blk := &doc.Blocks[i]
		switch blk.Kind {
		case Heading:
			if l := r.sectionHeading(blk); l != nil {
				b = append(b, l.wholeHTML...)
			} else if blk.Level == 2 {
				b = append(b, `<h2 id="`...)
				b = appendHTMLEscape(b, blk.Anchor)
				b = append(b, `">`...)
				b = r.appendHTMLInlines(b, blk.Inlines)
				b = append(b, "</h2>\n"...)
			} else {
				b = append(b, "<h"...)
				b = strconv.AppendInt(b, int64(blk.Level), 10)
				b = append(b, '>')
				b = r.appendHTMLInlines(b, blk.Inlines)
				b = append(b, "</h"...)
				b = strconv.AppendInt(b, int64(blk.Level), 10)
				b = append(b, ">\n"...)
			}
		case Paragraph:
			if blk.Strong {
				b = append(b, "<p><strong>"...)
				b = r.appendHTMLInlines(b, blk.Inlines)
				b = append(b, "</strong></p>\n"...)
			} else {
				b = append(b, "<p>"...)
				b = r.appendHTMLInlines(b, blk.Inlines)
				b = append(b, "</p>\n"...)
			}
		case List:
			b = append(b, "<ul>\n"...)
			for _, it := range blk.Items {
				b = append(b, "<li>"...)
				b = r.appendHTMLInlines(b, it)
				b = append(b, "</li>\n"...)
			}
			b = append(b, "</ul>\n"...)
		case Table:
			b = r.appendTableOnce(b, blk, (*renderer).writeHTMLTable)
		}
	}
	return append(b, "</article>\n"...)
}

// isMailto reports whether url is "mailto:" + address.
func isMailto(url, address string) bool {
	rest, ok := strings.CutPrefix(url, "mailto:")
	return ok && rest == address
}

func appendTextInlines(b []byte, ins []Inline) []byte {
	for i := range ins {
		if in := &ins[i]; in.Kind == Link {
			b = appendTextLink(b, in)
		} else {
			b = append(b, in.Text...)
		}
	}
	return b
}

// appendTextLink appends link in: its text, and its address in
// parentheses unless the text is the address (or its email address) or
// the link leads within the document. Out of appendTextInlines's loop,
// which is mostly plain runs.
func appendTextLink(b []byte, in *Inline) []byte {
	b = append(b, in.Text...)
	if in.Text != in.URL && !isMailto(in.URL, in.Text) && !strings.HasPrefix(in.URL, "#") {
		b = append(b, " ("...)
		b = append(b, in.URL...)
		b = append(b, ')')
	}
	return b
}

// appendUnderlined appends a heading and its underline of c, as long as
// the heading in characters: a function, not a closure over the buffer,
// which would keep it in memory through every append of the document.
func appendUnderlined(b []byte, ins []Inline, c byte) []byte {
	start := len(b)
	b = appendTextInlines(b, ins)
	n := runeCount(b[start:])
	b = append(b, '\n')
	return appendRule(b, c, n)
}

// runeCount is utf8.RuneCount(p), eight bytes at a time while they are
// ASCII, as headings mostly are.
func runeCount(p []byte) int {
	n := 0
	for len(p) >= 8 && binary.LittleEndian.Uint64(p)&0x8080808080808080 == 0 {
		n += 8
		p = p[8:]
	}
	return n + utf8.RuneCount(p)
}

func (r *renderer) text(b []byte, doc *Document) []byte {
	b = appendUnderlined(b, doc.Title, '=')
	for i := range doc.Blocks {
		blk := &doc.Blocks[i]
		b = append(b, "\n\n"...)
		switch blk.Kind {
		case Heading:
			b = appendUnderlined(b, blk.Inlines, '-')
		case Paragraph:
			b = appendTextInlines(b, blk.Inlines)
		case List:
			for j, it := range blk.Items {
				if j > 0 {
					b = append(b, '\n')
				}
				b = append(b, "  * "...)
				b = appendTextInlines(b, it)
			}
		case Table:
			b = r.appendTableOnce(b, blk, (*renderer).writeTextTable)
		}
	}
	return append(b, '\n')
}

// Heading underlines, appended in pieces (appendRule).
var (
	ruleEquals = strings.Repeat("=", 64)
	ruleDashes = strings.Repeat("-", 64)
)

// appendRule appends n copies of c, '=' or '-': a heading's underline.
func appendRule(b []byte, c byte, n int) []byte {
	rule := ruleDashes
	if c == '=' {
		rule = ruleEquals
	}
	for n > len(rule) {
		b = append(b, rule...)
		n -= len(rule)
	}
	return append(b, rule[:n]...)
}

// headerText is a table's header rendered when the library is compiled:
// the Markdown header and delimiter rows, and the HTML table up to its
// body. Every table a document shows has one of a few headers, each of
// words of the language alone, and the renderers wrote it cell by cell.
// It is for the header whose first cell is at cells, n cells long.
type headerText struct {
	cells    *[]Inline
	n        int
	md, html string
}

// renderHeader renders header h (its text is escaped as rendering
// escapes any text: without a memo, the same bytes).
func renderHeader(h [][]Inline) *headerText {
	if len(h) == 0 {
		return nil
	}
	r := renderer{memo: &noMemo}
	return &headerText{cells: &h[0], n: len(h),
		md: string(r.writeMDHeader(nil, h)), html: string(r.writeHTMLHeader(nil, h))}
}

// header is blk's rendered header, or nil when blk has none or its
// Header is not the one rendered.
func (blk *Block) header() *headerText {
	if h := blk.head; h != nil && h.n == len(blk.Header) && h.cells == &blk.Header[0] {
		return h
	}
	return nil
}

// writeMDHeader writes a table's header and delimiter rows in Markdown.
func (r *renderer) writeMDHeader(b []byte, header [][]Inline) []byte {
	b = r.appendMDRow(b, header)
	b = append(b, "\n|"...)
	for range header {
		b = append(b, " --- |"...)
	}
	return b
}

// writeMDTable writes table blk in Markdown.
func (r *renderer) writeMDTable(b []byte, blk *Block) []byte {
	if h := blk.header(); h != nil {
		b = append(b, h.md...)
	} else {
		b = r.writeMDHeader(b, blk.Header)
	}
	for _, cells := range blk.Rows {
		b = append(b, '\n')
		b = r.appendMDRow(b, cells)
	}
	return b
}

// writeHTMLHeader writes an HTML table's start, up to its body.
func (r *renderer) writeHTMLHeader(b []byte, header [][]Inline) []byte {
	b = append(b, "<table>\n<thead>\n<tr>"...)
	for _, h := range header {
		b = append(b, `<th scope="col">`...)
		b = r.appendHTMLInlines(b, h)
		b = append(b, "</th>"...)
	}
	return append(b, "</tr>\n</thead>\n<tbody>\n"...)
}

// writeHTMLTable writes table blk in HTML.
func (r *renderer) writeHTMLTable(b []byte, blk *Block) []byte {
	if h := blk.header(); h != nil {
		b = append(b, h.html...)
	} else {
		b = r.writeHTMLHeader(b, blk.Header)
	}
	// "<tr><td>a</td><td>b</td></tr>": one append between cells.
	for _, cells := range blk.Rows {
		if len(cells) == 0 {
			b = append(b, "<tr></tr>\n"...)
			continue
		}
		b = append(b, "<tr><td>"...)
		for j, c := range cells {
			if j > 0 {
				b = append(b, "</td><td>"...)
			}
			switch {
			case len(c) == 1 && c[0].esc == escHTML:
				b = append(b, c[0].URL...) // as appendMDRow does
			case len(c) >= cellMemoMinRuns:
				b = r.appendCellOnce(b, c, (*renderer).appendHTMLInlines)
			default:
				b = r.appendHTMLInlines(b, c)
			}
		}
		b = append(b, "</td></tr>\n"...)
	}
	return append(b, "</tbody>\n</table>\n"...)
}

// writeTextTable writes table blk as text: a record per row.
func (r *renderer) writeTextTable(b []byte, blk *Block) []byte {
	// Every row repeats the column headings: the first writes
	// each with its indent and colon, and the rows after it copy
	// those bytes (labels holds where they are in b).
	var labels [8]struct{ start, end int }
	for j, row := range blk.Rows {
		if j > 0 {
			b = append(b, '\n')
		}
		b = append(b, "  * "...)
		b = appendTextCell(b, row[0])
		for k := 1; k < len(row); k++ {
			if k < len(labels) && labels[k].end != 0 {
				b = append(b, b[labels[k].start:labels[k].end]...)
			} else {
				start := len(b)
				b = append(b, "\n      "...)
				b = appendTextInlines(b, blk.Header[k])
				b = append(b, ": "...)
				if k < len(labels) {
					labels[k].start, labels[k].end = start, len(b)
				}
			}
			b = appendTextCell(b, row[k])
		}
	}
	return b
}

// appendTextCell appends table cell c as text: a cell of one run that
// is no link, as most are, without a call.
func appendTextCell(b []byte, c []Inline) []byte {
	if len(c) == 1 && c[0].Kind != Link {
		return append(b, c[0].Text...)
	}
	return appendTextInlines(b, c)
}
