package web

import (
	"bytes"
	"embed"
	"errors"
	"flag"
	"fmt"
	htmltemplate "html/template"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/template"
	"text/template/parse"
	"time"
	"unsafe"
)

var update = flag.Bool("update", false, "rewrite escaped/*.html from templates/*.html")

// templateFS holds the pages' sources, which only the tests read.
//
//go:embed templates/*.html
var templateFS embed.FS

// sourcePage parses page name's sources with html/template.
func sourcePage(name string) (*htmltemplate.Template, error) {
	return htmltemplate.New("layout.html").Funcs(htmltemplate.FuncMap(funcs)).ParseFS(templateFS, "templates/layout.html", "templates/"+name)
}

// escape runs html/template's escaper over t from its template root and
// returns the escaped templates root reaches, each as text/template source,
// by name.
func escape(t *htmltemplate.Template, root string) (map[string]string, error) {
	// html/template escapes a set on its first execution, before it
	// executes anything; the execution itself, with no data, may fail.
	if err := t.ExecuteTemplate(io.Discard, root, nil); err != nil {
		var escErr *htmltemplate.Error
		if errors.As(err, &escErr) {
			return nil, err
		}
	}
	// A template called where the text is not element content (a tag's
	// attributes, say) is escaped as a copy for that context, added to the
	// underlying text/template set only, which html/template does not
	// export.
	text := escapedSet(t)
	if text == nil {
		return nil, errors.New("html/template no longer keeps its text/template set in the field text: escape_test.go needs another way to read the escaped templates")
	}
	defs := map[string]string{}
	var walk func(string) error
	walk = func(name string) error {
		if _, done := defs[name]; done {
			return nil
		}
		d := text.Lookup(name)
		if d == nil || d.Tree == nil {
			return fmt.Errorf("no escaped template %s", name)
		}
		defs[name] = d.Tree.Root.String()
		var err error
		calls(d.Tree.Root, func(n string) {
			if err == nil {
				err = walk(n)
			}
		})
		return err
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return defs, nil
}

// source is defs as one text/template file after header: a define per
// template, sorted by name.
func source(header string, defs map[string]string) string {
	var b strings.Builder
	b.WriteString(header)
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		fmt.Fprintf(&b, "{{define %q}}%s{{end}}\n", name, defs[name])
	}
	return b.String()
}

// escapedSet is the text/template set under t.
func escapedSet(t *htmltemplate.Template) *template.Template {
	f := reflect.ValueOf(t).Elem().FieldByName("text")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*template.Template]() {
		return nil
	}
	return (*template.Template)(unsafe.Pointer(f.Pointer()))
}

// calls reports the name of every template n calls.
func calls(n parse.Node, call func(string)) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n != nil {
			for _, c := range n.Nodes {
				calls(c, call)
			}
		}
	case *parse.IfNode:
		calls(n.List, call)
		calls(n.ElseList, call)
	case *parse.RangeNode:
		calls(n.List, call)
		calls(n.ElseList, call)
	case *parse.WithNode:
		calls(n.List, call)
		calls(n.ElseList, call)
	case *parse.TemplateNode:
		call(n.Name)
	}
}

var escaperName = regexp.MustCompile(`_html_template_[a-z]+`)

// escapedPages is the files of escaped/: layout.html, the escaped layout
// every page shares (it calls the page's "content" where the text is
// element content, so it escapes alike with every page), and, by page
// name, the escaped templates of each page.
func escapedPages() (layout string, pages map[string]string, err error) {
	pages = make(map[string]string, len(pageNames))
	var shared string // the escaped layout.html
	for _, name := range pageNames {
		t, err := sourcePage(name)
		if err != nil {
			return "", nil, err
		}
		defs, err := escape(t, "layout.html")
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := checkEscaped(defs); err != nil {
			return "", nil, fmt.Errorf("%s: %w", name, err)
		}
		l := defs["layout.html"]
		delete(defs, "layout.html")
		switch {
		case shared == "":
			shared = l
			layout = source("{{/* Written by TestEscapedPages (make generate) from templates/layout.html; do not edit. */}}\n", map[string]string{"layout.html": l})
		case l != shared:
			return "", nil, fmt.Errorf("templates/layout.html escapes differently with templates/%s than with templates/%s: escaped/ keeps one layout for every page", name, pageNames[0])
		}
		pages[name] = source("{{/* Written by TestEscapedPages (make generate) from templates/"+name+"; do not edit. */}}\n", defs)
	}
	return layout, pages, nil
}

// checkEscaped checks that the escaped templates defs use only the
// escapers escape.go has and that text/template reads their source back as
// the very same templates (a text node holding "{{" would not be).
func checkEscaped(defs map[string]string) error {
	src := source("", defs)
	for _, e := range escaperName.FindAllString(src, -1) {
		if escapers[e] == nil {
			return fmt.Errorf("the escaped templates call %s, which pkg/web/escape.go does not implement", e)
		}
	}
	back, err := template.New("").Funcs(funcs).Funcs(escapers).Parse(src)
	if err != nil {
		return err
	}
	for name, want := range defs {
		d := back.Lookup(name)
		if d == nil || d.Tree == nil {
			return fmt.Errorf("template %s does not read back", name)
		}
		if got := d.Tree.Root.String(); got != want {
			return fmt.Errorf("template %s does not read back as written:\n%s\nwant\n%s", name, got, want)
		}
	}
	if n := len(back.Templates()) - 1; n != len(defs) {
		return fmt.Errorf("the source reads back as %d templates, want %d", n, len(defs))
	}
	return nil
}

// TestEscapedPages checks that escaped/ holds the layout and every page as
// html/template escapes their sources now; -update (make generate) writes
// them.
func TestEscapedPages(t *testing.T) {
	layout, pages, err := escapedPages()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"escaped/layout.html": layout}
	for name, src := range pages {
		want["escaped/"+name] = src
	}
	files, err := fs.Glob(escapedFS, "escaped/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := want[f]; !ok {
			t.Errorf("%s is neither the layout nor a page (pageNames): delete it", f)
		}
	}
	for _, path := range slices.Sorted(maps.Keys(want)) {
		if *update {
			if err := os.WriteFile(path, []byte(want[path]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != want[path] {
			t.Errorf("%s is not what templates/ escapes to: run make generate (go generate ./pkg/web) and review the diff", path)
		}
	}
}

// TestPagesParse parses every page's escaped templates: New does not (a
// page is parsed on its first use), so a broken template would otherwise
// show only when its page is served.
func TestPagesParse(t *testing.T) {
	for _, name := range pageNames {
		if _, err := parsePage(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The package's tests render every page twice, with the escaped templates
// and with html/template from the sources, and fail on any difference.
func init() { newPages = crossCheckedPages }

var crossChecked sync.Map // page name → true once rendered alike

func crossCheckedPages() pageSet {
	pages := newPageSet()
	out := make(pageSet, len(pages))
	for name, render := range pages {
		ref := sync.OnceValues(func() (*htmltemplate.Template, error) { return sourcePage(name) })
		out[name] = func(w io.Writer, p page) error {
			var got, want bytes.Buffer
			if err := render(&got, p); err != nil {
				return err
			}
			t, err := ref()
			if err == nil {
				err = t.Execute(&want, htmlTemplateData(p))
			}
			if err != nil {
				return fmt.Errorf("html/template: %w", err)
			}
			if got.String() != want.String() {
				return fmt.Errorf("page %s: the escaped templates render\n%s\nhtml/template renders\n%s", name, got.String(), want.String())
			}
			crossChecked.Store(name, true)
			_, err = w.Write(got.Bytes())
			return err
		}
	}
	return out
}

// htmlTemplateData is p with the trusted document as html/template's HTML.
func htmlTemplateData(p page) page {
	if d, ok := p.Data.(policyData); ok {
		if doc, ok := d.Document.(trustedHTML); ok {
			d.Document = htmltemplate.HTML(doc)
			p.Data = d
		}
	}
	return p
}

// TestMain fails a whole run of the package's tests in which some page was
// never rendered, and so never compared with html/template's rendering.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" {
		for _, name := range pageNames {
			if _, ok := crossChecked.Load(name); !ok {
				fmt.Fprintf(os.Stderr, "page %s was never rendered by the tests, so never compared with html/template\n", name)
				code = 1
			}
		}
	}
	os.Exit(code)
}

type stringer struct{ s string }

func (s *stringer) String() string { return "stringer:" + s.s }

// TestEscapersMatchHTMLTemplate puts values in each context the pages
// print in, escapes the template as the pages are escaped and compares
// what the escapers print with what html/template prints.
func TestEscapersMatchHTMLTemplate(t *testing.T) {
	contexts := map[string]string{ // source → the escaper html/template must choose
		`<p>{{.}}</p>`:                     "_html_template_htmlescaper",
		`<p title="{{.}}">x</p>`:           "_html_template_attrescaper",
		`<textarea>{{.}}</textarea>`:       "_html_template_rcdataescaper",
		`<a href="/x?q={{.}}">x</a>`:       "_html_template_urlescaper",
		`<a href="/x/{{.}}/y">x</a>`:       "_html_template_urlnormalizer",
		`<input value="a {{.}} b">`:        "_html_template_attrescaper",
		`<title>{{.}} · Policygen</title>`: "_html_template_rcdataescaper",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var values []any
	for c := range 256 {
		values = append(values, string(rune(c)), string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"%4"+string([]byte{byte(c)}))
	}
	values = append(values, "", "<script>alert('x')</script>", `"quoted" & 'single'`, "%41%zz%4", "%", "%4", "100%", "a+b=c&d",
		"é ü 漢 \u2028 \ufdd0 \ufffe", "\xff\xfe\xc3", "/policies/p_01?x=1#frag", "javascript:alert(1)", "  spaced  ",
		42, -1.5, true, false, nil, []string{"a", "<b>"}, map[string]int{"k": 1}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		&stringer{"<s>"}, errors.New("err <e>"), new(string), ptr(ptr(7)), (*stringer)(nil), struct{ A string }{"<a>"})
	alphabet := []byte("aZ09-._~!#$&*+,/:;=?@[]%<>\"' \x00\n\té\xff")
	for range 3000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		values = append(values, string(b))
	}
	for src, escaper := range contexts {
		ht := htmltemplate.Must(htmltemplate.New("t").Parse(src))
		defs, err := escape(ht, "t")
		if err != nil {
			t.Fatal(err)
		}
		escaped := source("", defs)
		if !strings.Contains(escaped, escaper) {
			t.Fatalf("%s: html/template escaped it as %s, the test expects %s", src, escaped, escaper)
		}
		if err := checkEscaped(defs); err != nil {
			t.Fatal(err)
		}
		tt := template.Must(template.New("t").Funcs(escapers).Parse(escaped))
		for _, v := range values {
			var want, got bytes.Buffer
			if err := ht.Execute(&want, v); err != nil {
				t.Fatalf("%s with %#v: html/template: %v", src, v, err)
			}
			if err := tt.ExecuteTemplate(&got, "t", v); err != nil {
				t.Fatalf("%s with %#v: %v", src, v, err)
			}
			if got.String() != want.String() {
				t.Errorf("%s with %#v: got %q, html/template %q", src, v, got.String(), want.String())
			}
		}
	}
	// The document: passed through in element content, as html/template
	// passes its HTML; escaped as text anywhere else.
	doc := "<h1>Privacy &amp; you</h1>"
	if got := htmlEscaper(trustedHTML(doc)); got != doc {
		t.Errorf("htmlEscaper(trustedHTML) = %q, want it unchanged", got)
	}
	for name, f := range map[string]func(...any) string{"attrEscaper": attrEscaper, "rcdataEscaper": rcdataEscaper, "urlEscaper": urlEscaper, "urlNormalizer": urlNormalizer} {
		if got := f(trustedHTML(doc)); strings.Contains(got, "<") {
			t.Errorf("%s(trustedHTML) = %q: markup must not pass outside element content", name, got)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// BenchmarkFirstRender is a page's first render on a cold start: parsing
// its templates and executing them once (with a signed-out visitor's
// data), as the dashboard does now (escaped) and as html/template did
// before (decision 46: parse, escape, execute).
func BenchmarkFirstRender(b *testing.B) {
	for _, name := range []string{"signin.html", "generate.html"} {
		b.Run("escaped/"+name, func(b *testing.B) {
			for b.Loop() {
				t, err := parsePage(name)
				if err != nil {
					b.Fatal(err)
				}
				if err := t.ExecuteTemplate(io.Discard, "layout.html", page{Title: "Sign in"}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("html-template/"+name, func(b *testing.B) {
			for b.Loop() {
				t, err := sourcePage(name)
				if err != nil {
					b.Fatal(err)
				}
				if err := t.Execute(io.Discard, page{Title: "Sign in"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
