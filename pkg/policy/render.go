package policy

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Render writes doc in format (markdown, html or text): step 5 of the
// pipeline. Every string is escaped here, for the target format only.
func Render(doc *Document, format, language string) (string, error) {
	switch format {
	case "markdown":
		return renderMarkdown(doc), nil
	case "html":
		return renderHTML(doc, language), nil
	case "text":
		return renderText(doc), nil
	}
	return "", fmt.Errorf("policy: unknown format %q", format)
}

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
		for _, in := range ins {
			n += len(in.Text) + len(in.URL) + 2
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
	last := 0
	for i := range len(s) {
		if mdSpecialByte[s[i]] {
			b = append(b, s[last:i]...)
			b = append(b, '\\', s[i])
			last = i + 1
		}
	}
	return append(b, s[last:]...)
}

func appendMDInlines(b []byte, ins []Inline) []byte {
	for _, in := range ins {
		switch in.Kind {
		case Plain:
			b = appendMDEscape(b, in.Text)
		case Link:
			u, ok := safeURL(in.URL)
			if !ok {
				b = appendMDEscape(b, in.Text)
				continue
			}
			b = append(b, '[')
			b = appendMDEscape(b, in.Text)
			b = append(b, "](<"...)
			b = append(b, mdURL.Replace(u)...)
			b = append(b, ">)"...)
		case Missing:
			b = append(b, "**"...)
			b = appendMDEscape(b, in.Text)
			b = append(b, "**"...)
		}
	}
	return b
}

// appendMDBlock appends inlines that start a paragraph or list item, made
// safe at their start as mdBlockStart does.
func appendMDBlock(b []byte, ins []Inline) []byte {
	start := len(b)
	b = appendMDInlines(b, ins)
	if len(b) == start {
		return b
	}
	switch b[start] {
	case '-', '+', '=':
		return slices.Insert(b, start, '\\')
	case ' ', '\t':
		i := start
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		return slices.Delete(b, start, i)
	}
	i := start
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i > start && i < len(b) && (b[i] == '.' || b[i] == ')') {
		return slices.Insert(b, i, '\\')
	}
	return b
}

func renderMarkdown(doc *Document) string {
	b := make([]byte, 0, sizeHint(doc))
	b = append(b, "# "...)
	b = appendMDInlines(b, doc.Title)
	for i := range doc.Blocks {
		blk := &doc.Blocks[i]
		b = append(b, "\n\n"...)
		switch blk.Kind {
		case Heading:
			for range blk.Level {
				b = append(b, '#')
			}
			b = append(b, ' ')
			b = appendMDInlines(b, blk.Inlines)
		case Paragraph:
			if blk.Strong {
				b = append(b, "**"...)
				b = appendMDBlock(b, blk.Inlines)
				b = append(b, "**"...)
			} else {
				b = appendMDBlock(b, blk.Inlines)
			}
		case List:
			for j, it := range blk.Items {
				if j > 0 {
					b = append(b, '\n')
				}
				b = append(b, "- "...)
				b = appendMDBlock(b, it)
			}
		case Table:
			row := func(cells [][]Inline) {
				b = append(b, '|')
				for _, c := range cells {
					b = append(b, ' ')
					b = appendMDInlines(b, c)
					b = append(b, " |"...)
				}
			}
			row(blk.Header)
			b = append(b, "\n|"...)
			for range blk.Header {
				b = append(b, " --- |"...)
			}
			for _, r := range blk.Rows {
				b = append(b, '\n')
				row(r)
			}
		}
	}
	b = append(b, '\n')
	return bytesString(b)
}

// appendHTMLEscape appends s escaped as html.EscapeString escapes it.
func appendHTMLEscape(b []byte, s string) []byte {
	last := 0
	for i := range len(s) {
		var esc string
		switch s[i] {
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '"':
			esc = "&#34;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}

func appendHTMLInlines(b []byte, ins []Inline) []byte {
	for _, in := range ins {
		switch in.Kind {
		case Plain:
			b = appendHTMLEscape(b, in.Text)
		case Link:
			u, ok := safeURL(in.URL)
			if !ok {
				b = appendHTMLEscape(b, in.Text)
				continue
			}
			b = append(b, `<a href="`...)
			b = appendHTMLEscape(b, u)
			b = append(b, `">`...)
			b = appendHTMLEscape(b, in.Text)
			b = append(b, "</a>"...)
		case Missing:
			b = append(b, `<mark class="missing">`...)
			b = appendHTMLEscape(b, in.Text)
			b = append(b, "</mark>"...)
		}
	}
	return b
}

func renderHTML(doc *Document, language string) string {
	b := make([]byte, 0, sizeHint(doc)*5/4)
	b = append(b, `<article class="policy" lang="`...)
	b = appendHTMLEscape(b, language)
	b = append(b, "\">\n<h1>"...)
	b = appendHTMLInlines(b, doc.Title)
	b = append(b, "</h1>\n"...)
	for i := range doc.Blocks {
		blk := &doc.Blocks[i]
		switch blk.Kind {
		case Heading:
			if blk.Level == 2 {
				b = append(b, `<h2 id="`...)
				b = appendHTMLEscape(b, blk.Anchor)
				b = append(b, `">`...)
				b = appendHTMLInlines(b, blk.Inlines)
				b = append(b, "</h2>\n"...)
			} else {
				b = append(b, "<h"...)
				b = strconv.AppendInt(b, int64(blk.Level), 10)
				b = append(b, '>')
				b = appendHTMLInlines(b, blk.Inlines)
				b = append(b, "</h"...)
				b = strconv.AppendInt(b, int64(blk.Level), 10)
				b = append(b, ">\n"...)
			}
		case Paragraph:
			if blk.Strong {
				b = append(b, "<p><strong>"...)
				b = appendHTMLInlines(b, blk.Inlines)
				b = append(b, "</strong></p>\n"...)
			} else {
				b = append(b, "<p>"...)
				b = appendHTMLInlines(b, blk.Inlines)
				b = append(b, "</p>\n"...)
			}
		case List:
			b = append(b, "<ul>\n"...)
			for _, it := range blk.Items {
				b = append(b, "<li>"...)
				b = appendHTMLInlines(b, it)
				b = append(b, "</li>\n"...)
			}
			b = append(b, "</ul>\n"...)
		case Table:
			b = append(b, "<table>\n<thead>\n<tr>"...)
			for _, h := range blk.Header {
				b = append(b, `<th scope="col">`...)
				b = appendHTMLInlines(b, h)
				b = append(b, "</th>"...)
			}
			b = append(b, "</tr>\n</thead>\n<tbody>\n"...)
			for _, r := range blk.Rows {
				b = append(b, "<tr>"...)
				for _, c := range r {
					b = append(b, "<td>"...)
					b = appendHTMLInlines(b, c)
					b = append(b, "</td>"...)
				}
				b = append(b, "</tr>\n"...)
			}
			b = append(b, "</tbody>\n</table>\n"...)
		}
	}
	b = append(b, "</article>\n"...)
	return bytesString(b)
}

func appendTextInlines(b []byte, ins []Inline) []byte {
	for _, in := range ins {
		if in.Kind == Link && in.Text != in.URL && "mailto:"+in.Text != in.URL && !strings.HasPrefix(in.URL, "#") {
			b = append(b, in.Text...)
			b = append(b, " ("...)
			b = append(b, in.URL...)
			b = append(b, ')')
			continue
		}
		b = append(b, in.Text...)
	}
	return b
}

func renderText(doc *Document) string {
	b := make([]byte, 0, sizeHint(doc)*9/8)
	underlined := func(ins []Inline, c byte) {
		start := len(b)
		b = appendTextInlines(b, ins)
		n := utf8.RuneCount(b[start:])
		b = append(b, '\n')
		for range n {
			b = append(b, c)
		}
	}
	underlined(doc.Title, '=')
	for i := range doc.Blocks {
		blk := &doc.Blocks[i]
		b = append(b, "\n\n"...)
		switch blk.Kind {
		case Heading:
			underlined(blk.Inlines, '-')
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
			for j, r := range blk.Rows {
				if j > 0 {
					b = append(b, '\n')
				}
				b = append(b, "  * "...)
				b = appendTextInlines(b, r[0])
				for k := 1; k < len(r); k++ {
					b = append(b, "\n      "...)
					b = appendTextInlines(b, blk.Header[k])
					b = append(b, ": "...)
					b = appendTextInlines(b, r[k])
				}
			}
		}
	}
	b = append(b, '\n')
	return bytesString(b)
}
