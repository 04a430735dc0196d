package web

import (
	"fmt"
	"reflect"
	"strings"
)

// The pages are html/template's templates (templates/*.html), escaped when
// they are written rather than when a page is first served: TestEscapedPages
// runs html/template's contextual escaper over each page and writes the
// result, text/template source in which every action ends in the escaper
// its context needs, to escaped/ (`make generate`), and fails when a file
// there is not what the templates give. At run time the dashboard parses
// those files with text/template and the five escapers below, which do
// what html/template's functions of the same names do for the values the
// pages print (TestEscapersMatchHTMLTemplate, and every page the package's
// tests render is rendered by html/template as well and compared). The
// dashboard then links neither html/template nor the regexp package, whose
// initialisation (html/template's two package-level regular expressions,
// the unicode tables regexp/syntax refers to) cost its every cold start
// about 0.4 ms (docs/DECISIONS.md 46).
var escapers = map[string]any{
	"_html_template_htmlescaper":   htmlEscaper,
	"_html_template_attrescaper":   attrEscaper,
	"_html_template_rcdataescaper": rcdataEscaper,
	"_html_template_urlescaper":    urlEscaper,
	"_html_template_urlnormalizer": urlNormalizer,
}

// trustedHTML is markup a page shows as it is, as html/template's HTML
// type is: only the generated document, whose every string pkg/policy's
// HTML renderer escapes. Only htmlEscaper (element content) passes it
// through; in any other context it is escaped as text.
type trustedHTML string

// stringify is html/template's reading of an action's value: a single
// string (or pointer to one) as it is, anything else as fmt.Sprint prints
// it with pointers followed to a Stringer, an error or a value, and untyped
// nils left out. isHTML reports a single trustedHTML.
func stringify(args ...any) (s string, isHTML bool) {
	if len(args) == 1 {
		switch v := indirect(args[0]).(type) {
		case string:
			return v, false
		case trustedHTML:
			return string(v), true
		}
	}
	vals := make([]any, 0, len(args))
	for _, a := range args {
		if a == nil {
			continue
		}
		vals = append(vals, indirectToStringerOrError(a))
	}
	return fmt.Sprint(vals...), false
}

func indirect(a any) any {
	if a == nil || reflect.TypeOf(a).Kind() != reflect.Pointer {
		return a
	}
	v := reflect.ValueOf(a)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v.Interface()
}

var (
	errorType    = reflect.TypeFor[error]()
	stringerType = reflect.TypeFor[fmt.Stringer]()
)

func indirectToStringerOrError(a any) any {
	v := reflect.ValueOf(a)
	for !v.Type().Implements(stringerType) && !v.Type().Implements(errorType) && v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return v.Interface()
}

// htmlEscaper escapes a value for element content.
func htmlEscaper(args ...any) string {
	s, isHTML := stringify(args...)
	if isHTML {
		return s
	}
	return escapeHTMLText(s)
}

// attrEscaper escapes a value for a quoted attribute value.
func attrEscaper(args ...any) string {
	s, _ := stringify(args...)
	return escapeHTMLText(s)
}

// rcdataEscaper escapes a value for the content of a textarea or title.
func rcdataEscaper(args ...any) string {
	s, _ := stringify(args...)
	return escapeHTMLText(s)
}

// escapeHTMLText replaces NUL with U+FFFD and each of " & ' + < > with
// its character reference, as html/template does in text and quoted
// attributes; every other byte, invalid UTF-8 included, is kept.
func escapeHTMLText(s string) string {
	return replaceBytes(s, func(i int) string { return htmlReplacement[s[i]] })
}

var htmlReplacement = [256]string{
	0:    "\uFFFD",
	'"':  "&#34;",
	'&':  "&amp;",
	'\'': "&#39;",
	'+':  "&#43;",
	'<':  "&lt;",
	'>':  "&gt;",
}

// replaceBytes is s with each byte s[i] for which repl(i) is not empty
// replaced by repl(i); s itself when none is.
func replaceBytes(s string, repl func(i int) string) string {
	var b strings.Builder
	written := 0
	for i := 0; i < len(s); i++ {
		r := repl(i)
		if r == "" {
			continue
		}
		if written == 0 {
			b.Grow(len(s) + 16)
		}
		b.WriteString(s[written:i])
		b.WriteString(r)
		written = i + 1
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

// urlEscaper percent-encodes a value for a part of a URL (a path segment or
// a query value): every byte but ASCII letters, digits and - . _ ~.
func urlEscaper(args ...any) string {
	s, _ := stringify(args...)
	return processURL(s, false)
}

// urlNormalizer percent-encodes what may not appear in a URL at all, and
// keeps its reserved characters and valid percent escapes.
func urlNormalizer(args ...any) string {
	s, _ := stringify(args...)
	return processURL(s, true)
}

func processURL(s string, norm bool) string {
	return replaceBytes(s, func(i int) string {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~':
			return ""
		case norm && strings.IndexByte("!#$&*+,/:;=?@[]", c) >= 0:
			return ""
		case norm && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			return ""
		default:
			return fmt.Sprintf("%%%02x", c)
		}
	})
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
