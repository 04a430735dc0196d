package policy

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// unshared is a deep copy of doc in which no two blocks, cells, runs or
// strings share memory: what the renderers write for it is what they
// write when they remember nothing of the tree they have already written.
func unshared(doc *Document) *Document {
	runs := func(ins []Inline) []Inline {
		out := slices.Clone(ins)
		for i := range out {
			out[i].Text, out[i].URL = strings.Clone(out[i].Text), strings.Clone(out[i].URL)
		}
		return out
	}
	cells := func(cs [][]Inline) [][]Inline {
		out := make([][]Inline, len(cs))
		for i, c := range cs {
			out[i] = runs(c)
		}
		return out
	}
	d := *doc
	d.Title = runs(doc.Title)
	d.Blocks = make([]Block, len(doc.Blocks))
	for i, blk := range doc.Blocks {
		blk.Inlines = runs(blk.Inlines)
		blk.Items = cells(blk.Items)
		blk.Header = cells(blk.Header)
		rows := make([][][]Inline, len(blk.Rows))
		for j, r := range blk.Rows {
			rows[j] = cells(r)
		}
		blk.Rows = rows
		d.Blocks[i] = blk
	}
	return &d
}

// TestRenderSharedTree checks that a document whose tables and cells
// share memory, as the builder makes them (the transfer tables of the
// general section and Switzerland's, a service's cells in every regime's
// table), renders as its unshared copy does, in every format.
func TestRenderSharedTree(t *testing.T) {
	c := mustCatalog(t)
	req := Request{
		Type: "privacy", BusinessName: "Shared Ltd", WebsiteURL: "https://shared.example",
		BusinessType: "marketplace", Language: "en", Jurisdiction: "CH,EU,UK,US-CA",
		CollectsPayments: true, CollectsUserData: true, UsesAnalytics: true,
		ThirdPartyServices: serviceMix(c),
	}
	completeRequest(&req)
	for _, format := range Formats {
		req.Format = format
		doc, _, _, err := Compose(req)
		if err != nil {
			t.Fatal(err)
		}
		tables := map[*[][]Inline]bool{}
		repeated := false
		for _, blk := range doc.Blocks {
			if len(blk.Rows) > 0 {
				repeated = repeated || tables[&blk.Rows[0]]
				tables[&blk.Rows[0]] = true
			}
		}
		if !repeated {
			t.Fatalf("%s: no table is shown twice; the test needs a document that does", format)
		}
		// Tables whose header is rendered with the library (headerText).
		if !slices.ContainsFunc(doc.Blocks, func(blk Block) bool { return blk.header() != nil }) {
			t.Fatalf("%s: no table has its header rendered with the library", format)
		}
		// Cells of several runs that rows or tables share (appendCellOnce).
		cells := map[*Inline]bool{}
		shared := false
		for _, blk := range doc.Blocks {
			for _, row := range blk.Rows {
				for _, c := range row {
					if len(c) >= cellMemoMinRuns {
						shared = shared || cells[&c[0]]
						cells[&c[0]] = true
					}
				}
			}
		}
		if !shared {
			t.Fatalf("%s: no cell of %d runs or more is shown twice; the test needs a document that does", format, cellMemoMinRuns)
		}
		got, err := Render(doc, format, "en")
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := Render(unshared(doc), format, "en"); got != want {
			t.Errorf("%s: the shared tree renders differently from its copy", format)
		}
	}
}

// TestRenderSharedPrefix checks that a table, cell or link that starts
// where one written before starts, but is shorter, is written for itself.
func TestRenderSharedPrefix(t *testing.T) {
	// A cell of as many runs as appendCellOnce remembers, and one of
	// more runs that starts with it.
	long := []Inline{{Kind: Plain, Text: "first run"}, {Kind: Plain, Text: ", second <run>"}, {Kind: Plain, Text: " & *third*"}, {Kind: Plain, Text: ", fourth"}}
	cell := long[:cellMemoMinRuns]
	rows := [][][]Inline{{cell, cell[:1]}, {cell[:1], cell}, {long, cell}, {cell, long}}
	const mail = "mailto:privacy@shop.example"
	addr, url := mail[len("mailto:"):], mail
	links := []Inline{
		{Kind: Link, Text: addr, URL: url}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: addr, URL: url}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: addr, URL: url[:len(url)-8]}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: addr, URL: url}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: addr[:7], URL: url}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: addr, URL: "javascript:alert(1)"}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: "#top", URL: "#top"}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: "", URL: ""}, {Kind: Link, Text: "", URL: ""},
		{Kind: Link, Text: addr, URL: url},
	}
	header := [][]Inline{{{Kind: Plain, Text: "A"}}, {{Kind: Plain, Text: "B"}}, {{Kind: Plain, Text: "C"}}}
	doc := &Document{
		Title: []Inline{{Kind: Plain, Text: "T"}},
		Blocks: []Block{
			{Kind: Table, Header: header[:2], Rows: rows},
			{Kind: Table, Header: header[:2], Rows: rows[:1]},
			{Kind: Table, Header: header, Rows: rows},
			{Kind: Table, Header: header[:2], Rows: rows},
			{Kind: Paragraph, Inlines: links},
			{Kind: List, Items: [][]Inline{links[:3], links[2:]}},
		},
	}
	for _, format := range Formats {
		got, _ := Render(doc, format, "en")
		if want, _ := Render(unshared(doc), format, "en"); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", format, got, want)
		}
	}
}

// TestRuneCount checks runeCount against utf8.RuneCount with a
// multi-byte or invalid sequence at every position of ASCII text.
func TestRuneCount(t *testing.T) {
	ascii := strings.Repeat("Your rights", 3)
	for _, odd := range []string{"", "é", "€", "😀", "\xff", "\xe2\x82"} {
		for pos := range len(ascii) + 1 {
			for _, n := range []int{pos, len(ascii)} {
				p := []byte(ascii[:pos] + odd + ascii[pos:n])
				if got, want := runeCount(p), utf8.RuneCount(p); got != want {
					t.Errorf("runeCount(%q) = %d, want %d", p, got, want)
				}
			}
		}
	}
}

// TestRenderPlainRuns checks that every kind of plain run the renderers'
// loops tell apart (a short one with or without a byte to escape, a string
// the escape memo holds, a copy of it, which the memo does not hold, any
// other text) renders as its text escaped, in Markdown and HTML, with the
// library's escape memo and without one.
func TestRenderPlainRuns(t *testing.T) {
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	memo := lib.compiled.escaped["en"]
	heading := lib.Texts["en"].Sections["contact"]
	if memo.get(heading) == nil {
		t.Fatalf("the escape memo lacks the section heading %q", heading)
	}
	texts := []string{"Yes", "S", ".", "", "1234567", heading, strings.Clone(heading), "a text with <specials> & *stars*"}
	for _, c := range mdSpecial + `<>&'"` {
		texts = append(texts, string(c), "ab"+string(c)+"cd", "abcdefg"+string(c))
	}
	var runs []Inline
	var md, html strings.Builder
	for _, s := range texts {
		runs = append(runs, Inline{Kind: Plain, Text: s})
		md.WriteString(mdEscape(s))
		html.WriteString(htmlEscape(s))
	}
	doc := &Document{
		Title:   []Inline{{Kind: Plain, Text: "T"}},
		Blocks:  []Block{{Kind: Heading, Level: 3, Inlines: runs}},
		escaped: memo,
	}
	bare := *doc
	bare.escaped = nil
	for _, d := range []*Document{doc, &bare} {
		if got, _ := Render(d, "markdown", "en"); !strings.Contains(got, "### "+md.String()+"\n") {
			t.Errorf("markdown (memo %t): got\n%s\nwant the heading\n%s", d.escaped != nil, got, md.String())
		}
		if got, _ := Render(d, "html", "en"); !strings.Contains(got, "<h3>"+html.String()+"</h3>") {
			t.Errorf("html (memo %t): got\n%s\nwant the heading\n%s", d.escaped != nil, got, html.String())
		}
	}
}

// TestRenderMemoLinks checks that a link to an address the link memo
// holds renders, from the memo, as it does without one: with the text the
// memo holds the whole link for (the same memory or a copy), with other
// text, and to an address safeURL refuses; and so does a heading whose
// anchor the memo holds, as a section's heading and otherwise.
func TestRenderMemoLinks(t *testing.T) {
	const site, heading, href, bad = "https://shop.example/a_b", "Your *rights*", "#your-rights", "javascript:alert(1)//"
	anchor := href[1:]
	m := memoBuilder{}
	m.addLink(site)
	m.addLinkText(href, heading)
	m.addLink(bad)
	m.addHeading(anchor, heading)
	links := m.freeze()
	if l := links.get(anchor); l == nil || l.wholeMD != `## Your \*rights\*` || l.wholeHTML != "<h2 id=\"your-rights\">Your *rights*</h2>\n" {
		t.Fatalf("links.get(%q) = %+v, want the whole heading", anchor, l)
	}
	headings := []Block{
		{Kind: Heading, Level: 2, Anchor: anchor, Inlines: []Inline{{Kind: Plain, Text: heading}}},
		{Kind: Heading, Level: 2, Anchor: anchor, Inlines: []Inline{{Kind: Plain, Text: "Other"}}},
		{Kind: Heading, Level: 2, Anchor: anchor, Inlines: []Inline{{Kind: Plain, Text: heading}, {Kind: Plain, Text: "!"}}},
		{Kind: Heading, Level: 2, Anchor: anchor, Inlines: []Inline{{Kind: Missing, Text: heading}}},
		{Kind: Heading, Level: 3, Anchor: anchor, Inlines: []Inline{{Kind: Plain, Text: heading}}},
	}
	if l := links.get(href); l == nil || l.wholeMD != `[Your \*rights\*](<#your-rights>)` || l.wholeHTML != `<a href="#your-rights">Your *rights*</a>` {
		t.Fatalf("links.get(%q) = %+v, want the whole contents link", href, l)
	}
	runs := []Inline{
		{Kind: Link, Text: site, URL: site}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: strings.Clone(site), URL: site}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: "the <shop>", URL: site}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: heading, URL: href}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: "Rights", URL: href}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: bad, URL: bad}, {Kind: Plain, Text: ", "},
		{Kind: Link, Text: "a *bad* link", URL: bad},
	}
	doc := &Document{
		Title:  []Inline{{Kind: Plain, Text: "T"}},
		Blocks: append(headings, Block{Kind: Paragraph, Inlines: runs}, Block{Kind: List, Items: [][]Inline{runs[6:7], runs}}),
		links:  links,
	}
	bare := *doc
	bare.links = nil
	for _, format := range Formats {
		got, _ := Render(doc, format, "en")
		if want, _ := Render(&bare, format, "en"); got != want {
			t.Errorf("%s: got\n%s\nwant\n%s", format, got, want)
		}
	}
	if got, _ := Render(doc, "html", "en"); !strings.Contains(got, "</h1>\n<h2 id=\"your-rights\">Your *rights*</h2>\n<h2 id=\"your-rights\">Other</h2>\n") {
		t.Errorf("html: got\n%s", got)
	}
	if got, _ := Render(doc, "markdown", "en"); !strings.Contains(got, `[Your \*rights\*](<#your-rights>), [Rights](<#your-rights>), javascript:alert(1)//, a \*bad\* link`) {
		t.Errorf("markdown: got\n%s", got)
	}
}

// TestFastSafeURL checks fastSafeURL against safeURL: it answers for the
// addresses requests give (a website, an email, a fragment), and wherever
// it answers it answers as safeURL does, with nothing mdURL would replace.
func TestFastSafeURL(t *testing.T) {
	for _, u := range []string{"https://largest.example", "http://shop.example/privacy-policy/", "mailto:privacy+eu@shop.example", "#your-rights"} {
		if _, _, known := fastSafeURL(u); !known {
			t.Errorf("fastSafeURL(%q) does not answer", u)
		}
	}
	inputs := []string{"", "#", "mailto:", "https://", "http://", "https:///path", "https://a//b", "https://a/./../b", "mailto:@",
		"HTTPS://shop.example", "https://shop.example:443/", "https://shop.example/a b", "mailto:a@b?subject=x", "https://sh%6Fp.example",
		"javascript:alert(1)", "https://[::1]/", "https://user@shop.example/", "https://shop.example/#top", "#a.b", "ftp://shop.example"}
	// Every prefix fastSafeURL knows, then strings of one or two bytes of
	// every kind after it.
	var tails []string
	for c := range 128 {
		tails = append(tails, string(rune(c)), "a"+string(rune(c)), string(rune(c))+"a", "a"+string(rune(c))+"b/c")
	}
	tails = append(tails, "é", "a\xff")
	for _, prefix := range []string{"#", "mailto:", "mailto:a@", "https://", "http://", "https://a", "https://a/", "http://a.b/c"} {
		for _, tail := range tails {
			inputs = append(inputs, prefix+tail)
		}
	}
	answered := 0
	for _, u := range inputs {
		out, ok, known := fastSafeURL(u)
		if !known {
			continue
		}
		answered++
		if wantOut, wantOK := safeURL(u); out != wantOut || ok != wantOK {
			t.Errorf("fastSafeURL(%q) = %q, %t; safeURL says %q, %t", u, out, ok, wantOut, wantOK)
		}
		if md := mdURL.Replace(out); md != out {
			t.Errorf("fastSafeURL(%q) = %q, which mdURL makes %q", u, out, md)
		}
	}
	if answered < len(inputs)/4 {
		t.Errorf("fastSafeURL answered %d of %d addresses", answered, len(inputs))
	}
}

// TestRenderLinkAfterBlockFix: a link written in a Markdown block whose
// start appendMDBlock then escapes or trims is copied right the next
// time: the fix-up moves the bytes after it, and the recorded span moves
// with them (renderer.edited).
func TestRenderLinkAfterBlockFix(t *testing.T) {
	const site = "https://shop.example/"
	link := Inline{Kind: Link, Text: site, URL: site}
	want := "[" + site + "](<" + site + ">)"
	for _, start := range []string{"+1 call ", "1. On ", "  Indented ", "- dash ", "Plain "} {
		doc := &Document{Blocks: []Block{
			{Kind: Paragraph, Inlines: []Inline{{Kind: Plain, Text: start}, link}},
			{Kind: Paragraph, Inlines: []Inline{{Kind: Plain, Text: "again "}, link}},
			{Kind: List, Items: [][]Inline{{{Kind: Plain, Text: start}, link, {Kind: Plain, Text: " and "}, link}}},
		}}
		got, err := Render(doc, "markdown", "en")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(got, want); n != 4 {
			t.Errorf("block starting %q: the link written whole %d times, want 4:\n%s", start, n, got)
		}
		if !strings.Contains(got, "again "+want+"\n") {
			t.Errorf("block starting %q: the second paragraph's copy of the link is wrong:\n%s", start, got)
		}
	}
}

// TestRenderEscapedCells checks the tables' cells of one run carrying an
// escaped form (Inline.esc), which the renderers copy without a call: a
// cell built for one format renders in another as its text, escaped for
// that format, and in its own as the form it carries.
func TestRenderEscapedCells(t *testing.T) {
	const text = "a <b> & *c*"
	runs := literalRuns(text)
	for built := range runs {
		cell := runs[built : built+1]
		doc := &Document{Title: []Inline{{Kind: Plain, Text: "T"}}, Blocks: []Block{{Kind: Table,
			Header: [][]Inline{{{Kind: Plain, Text: "H"}}, {{Kind: Plain, Text: "I"}}},
			Rows:   [][][]Inline{{cell, {{Kind: Link, Text: "x", URL: "https://x.example"}}}}}}}
		want := map[string]string{
			"markdown": "| " + mdEscape(text) + " | [x](<https://x.example>) |",
			"html":     "<tr><td>" + htmlEscape(text) + `</td><td><a href="https://x.example">x</a></td></tr>`,
			"text":     "  * " + text + "\n      I: x (https://x.example)",
		}
		for format, w := range want {
			if got, _ := Render(doc, format, "en"); !strings.Contains(got, w) {
				t.Errorf("a cell built for format %d, in %s: got\n%s\nwant it to hold\n%s", built, format, got, w)
			}
		}
	}
}
