package web

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
)

// page is what every template gets: the layout's needs plus the page's own
// Data.
type page struct {
	Title    string
	CSRF     string
	Session  *account.Session
	Notice   string // a one-line confirmation shown above the content
	Data     any
	Template string
}

var pageNames = []string{
	"signin.html", "signup.html", "error.html",
	"policies.html", "generate.html", "policy.html", "delete.html",
	"settings.html", "keyissued.html",
}

var funcs = template.FuncMap{
	"date": func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
	"datetime": func(t time.Time) string {
		return t.UTC().Format("2 Jan 2006 15:04 UTC")
	},
	"timeAttr":      func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"join":          strings.Join,
	"field":         field,
	"required":      func(f fieldView) fieldView { f.Required = true; return f },
	"title":         titleCase,
	"list":          func(s ...string) []string { return s },
	"jurisdictions": jurisdictionViews,
	"has": func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	},
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pageSet renders each page, parsing its escaped templates (escape.go) on
// the page's first use: a cold start (the dashboard's Lambda function)
// parses only the page it serves instead of every page. TestPagesParse
// parses them all.
type pageSet map[string]func(w io.Writer, p page) error

// newPages makes the page set of a new dashboard; the package's tests
// replace it with one that renders every page with html/template as well
// and compares (escape_test.go).
var newPages = newPageSet

//go:generate go test -run TestEscapedPages -update .

func newPageSet() pageSet {
	out := make(pageSet, len(pageNames))
	for _, name := range pageNames {
		parse := sync.OnceValues(func() (*template.Template, error) { return parsePage(name) })
		out[name] = func(w io.Writer, p page) error {
			t, err := parse()
			if err != nil {
				return err
			}
			return t.ExecuteTemplate(w, "layout.html", p)
		}
	}
	return out
}

// parsePage parses the escaped layout and page name's escaped templates
// into one set.
func parsePage(name string) (*template.Template, error) {
	t := template.New(name).Funcs(funcs).Funcs(escapers)
	for _, file := range []string{"escaped/layout.html", "escaped/" + name} {
		src, err := escapedFS.ReadFile(file)
		if err == nil {
			_, err = t.Parse(string(src))
		}
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", name, err)
		}
	}
	return t, nil
}

// render writes a whole page. It renders into a buffer first, so a template
// failure is a clean 500 rather than half a page.
func (a *app) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	v := visitOf(r)
	p.CSRF = csrfToken(v)
	p.Session = v.session
	p.Template = name
	var buf bytes.Buffer
	if err := a.pages[name](&buf, p); err != nil {
		a.logger.Error("template", "page", name, "error", err.Error())
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

type errorData struct{ Message string }

func (a *app) errorPage(w http.ResponseWriter, r *http.Request, status int, title, message string) {
	a.render(w, r, status, "error.html", page{Title: title, Data: errorData{Message: message}})
}

// failure answers a store or internal error: 503 when the store is not
// answering (the user may retry), 500 for anything else, logged either way.
func (a *app) failure(w http.ResponseWriter, r *http.Request, err error) {
	if errs.Is(err, errs.Unavailable) {
		a.logger.Warn("store unavailable", "error", err.Error())
		w.Header().Set("Retry-After", "2")
		a.errorPage(w, r, http.StatusServiceUnavailable, "Try again in a moment", "Policygen could not reach its data store. Nothing was changed; try again in a few seconds.")
		return
	}
	a.logger.Error("internal error", "error", err.Error())
	a.errorPage(w, r, http.StatusInternalServerError, "Something went wrong", "The page could not be shown. Try again in a moment.")
}

func (a *app) home(w http.ResponseWriter, r *http.Request) {
	if visitOf(r).session != nil {
		http.Redirect(w, r, "/policies", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}
