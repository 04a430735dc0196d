package policy

import (
	"fmt"
	"html"
	"net/url"
	"strings"
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

func mdInlines(ins []Inline) string {
	var b strings.Builder
	for _, in := range ins {
		switch in.Kind {
		case Plain:
			b.WriteString(mdEscape(in.Text))
		case Link:
			u, ok := safeURL(in.URL)
			if !ok {
				b.WriteString(mdEscape(in.Text))
				continue
			}
			u = mdURL.Replace(u)
			fmt.Fprintf(&b, "[%s](<%s>)", mdEscape(in.Text), u)
		case Missing:
			fmt.Fprintf(&b, "**%s**", mdEscape(in.Text))
		}
	}
	return b.String()
}

func renderMarkdown(doc *Document) string {
	var parts []string
	parts = append(parts, "# "+mdInlines(doc.Title))
	for _, blk := range doc.Blocks {
		switch blk.Kind {
		case Heading:
			parts = append(parts, strings.Repeat("#", blk.Level)+" "+mdInlines(blk.Inlines))
		case Paragraph:
			p := mdBlockStart(mdInlines(blk.Inlines))
			if blk.Strong {
				p = "**" + p + "**"
			}
			parts = append(parts, p)
		case List:
			items := make([]string, len(blk.Items))
			for i, it := range blk.Items {
				items[i] = "- " + mdBlockStart(mdInlines(it))
			}
			parts = append(parts, strings.Join(items, "\n"))
		case Table:
			var b strings.Builder
			row := func(cells [][]Inline) {
				b.WriteString("|")
				for _, c := range cells {
					b.WriteString(" " + mdInlines(c) + " |")
				}
				b.WriteString("\n")
			}
			row(blk.Header)
			b.WriteString("|" + strings.Repeat(" --- |", len(blk.Header)) + "\n")
			for _, r := range blk.Rows {
				row(r)
			}
			parts = append(parts, strings.TrimSuffix(b.String(), "\n"))
		}
	}
	return strings.Join(parts, "\n\n") + "\n"
}

func htmlInlines(ins []Inline) string {
	var b strings.Builder
	for _, in := range ins {
		switch in.Kind {
		case Plain:
			b.WriteString(html.EscapeString(in.Text))
		case Link:
			u, ok := safeURL(in.URL)
			if !ok {
				b.WriteString(html.EscapeString(in.Text))
				continue
			}
			fmt.Fprintf(&b, `<a href="%s">%s</a>`, html.EscapeString(u), html.EscapeString(in.Text))
		case Missing:
			fmt.Fprintf(&b, `<mark class="missing">%s</mark>`, html.EscapeString(in.Text))
		}
	}
	return b.String()
}

func renderHTML(doc *Document, language string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<article class=\"policy\" lang=\"%s\">\n", html.EscapeString(language))
	fmt.Fprintf(&b, "<h1>%s</h1>\n", htmlInlines(doc.Title))
	for _, blk := range doc.Blocks {
		switch blk.Kind {
		case Heading:
			if blk.Level == 2 {
				fmt.Fprintf(&b, "<h2 id=\"%s\">%s</h2>\n", html.EscapeString(blk.Anchor), htmlInlines(blk.Inlines))
			} else {
				fmt.Fprintf(&b, "<h%d>%s</h%d>\n", blk.Level, htmlInlines(blk.Inlines), blk.Level)
			}
		case Paragraph:
			if blk.Strong {
				fmt.Fprintf(&b, "<p><strong>%s</strong></p>\n", htmlInlines(blk.Inlines))
			} else {
				fmt.Fprintf(&b, "<p>%s</p>\n", htmlInlines(blk.Inlines))
			}
		case List:
			b.WriteString("<ul>\n")
			for _, it := range blk.Items {
				fmt.Fprintf(&b, "<li>%s</li>\n", htmlInlines(it))
			}
			b.WriteString("</ul>\n")
		case Table:
			b.WriteString("<table>\n<thead>\n<tr>")
			for _, h := range blk.Header {
				fmt.Fprintf(&b, "<th scope=\"col\">%s</th>", htmlInlines(h))
			}
			b.WriteString("</tr>\n</thead>\n<tbody>\n")
			for _, r := range blk.Rows {
				b.WriteString("<tr>")
				for _, c := range r {
					fmt.Fprintf(&b, "<td>%s</td>", htmlInlines(c))
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody>\n</table>\n")
		}
	}
	b.WriteString("</article>\n")
	return b.String()
}

func textInlines(ins []Inline) string {
	var b strings.Builder
	for _, in := range ins {
		switch in.Kind {
		case Link:
			if in.Text == in.URL || "mailto:"+in.Text == in.URL || strings.HasPrefix(in.URL, "#") {
				b.WriteString(in.Text)
			} else {
				fmt.Fprintf(&b, "%s (%s)", in.Text, in.URL)
			}
		default:
			b.WriteString(in.Text)
		}
	}
	return b.String()
}

func renderText(doc *Document) string {
	var parts []string
	underline := func(s string, c string) string {
		return s + "\n" + strings.Repeat(c, len([]rune(s)))
	}
	parts = append(parts, underline(textInlines(doc.Title), "="))
	for _, blk := range doc.Blocks {
		switch blk.Kind {
		case Heading:
			parts = append(parts, underline(textInlines(blk.Inlines), "-"))
		case Paragraph:
			parts = append(parts, textInlines(blk.Inlines))
		case List:
			items := make([]string, len(blk.Items))
			for i, it := range blk.Items {
				items[i] = "  * " + textInlines(it)
			}
			parts = append(parts, strings.Join(items, "\n"))
		case Table:
			rows := make([]string, len(blk.Rows))
			for i, r := range blk.Rows {
				lines := []string{"  * " + textInlines(r[0])}
				for j := 1; j < len(r); j++ {
					lines = append(lines, "      "+textInlines(blk.Header[j])+": "+textInlines(r[j]))
				}
				rows[i] = strings.Join(lines, "\n")
			}
			parts = append(parts, strings.Join(rows, "\n"))
		}
	}
	return strings.Join(parts, "\n\n") + "\n"
}
