// Package web is the dashboard: server-rendered HTML pages and forms for
// every plan (sign-up, sign-in, generate, policies, settings with API keys).
// It calls the same domain code as the API (pkg/policy, pkg/store,
// pkg/auth), never the API over HTTP.
//
// Security (docs/AUTH.md, "Dashboard"): passwords are argon2id hashes;
// sessions are random tokens kept as SHA-256 hashes with an expiry, sent in
// HttpOnly, SameSite=Lax cookies that are Secure except on loopback HTTP;
// every state-changing form carries a CSRF token bound to the browser's
// CSRF cookie and its session, and cross-origin POSTs are refused by
// net/http's CrossOriginProtection as well; sign-in attempts are limited per
// email and per address; pages send a strict Content-Security-Policy and
// load nothing from elsewhere.
package web

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/store"
)

// Deps are what the dashboard needs. Store and Hasher (for issuing API
// keys) are required; the rest have defaults.
type Deps struct {
	Store  store.Store
	Hasher *auth.Hasher
	// Now defaults to time.Now; Logger to slog.Default().
	Now    func() time.Time
	Logger *slog.Logger
	// Limits gives a plan's quota (nil: account.Plan.Limits).
	Limits func(account.Plan) account.Limits
	// SessionTTL is how long a sign-in lasts (0: DefaultSessionTTL).
	SessionTTL time.Duration
}

// DefaultSessionTTL is how long a session lasts after sign-in, however
// active: a working day, so a browser left signed in on a shared machine
// is signed out by the next morning.
const DefaultSessionTTL = 12 * time.Hour

// Sign-in and sign-up throttles (docs/AUTH.md): attempts per minute.
const (
	SignInPerEmail   = 5
	SignInPerAddress = 20
	SignUpPerAddress = 5
)

// escapedFS holds the pages as html/template escaped them (escape.go); the
// sources, templates/*.html, are read by the tests that write and check
// them.
//
//go:embed escaped/*.html
var escapedFS embed.FS

//go:embed static
var staticFS embed.FS

type app struct {
	store      store.Store
	hasher     *auth.Hasher
	now        func() time.Time
	logger     *slog.Logger
	limits     func(account.Plan) account.Limits
	sessionTTL time.Duration
	pages      pageSet
}

// New returns the dashboard's handler, to be mounted at "/" (the API keeps
// "/v1/").
func New(d Deps) (http.Handler, error) {
	a := &app{store: d.Store, hasher: d.Hasher, now: d.Now, logger: d.Logger, limits: d.Limits, sessionTTL: d.SessionTTL}
	if a.now == nil {
		a.now = time.Now
	}
	if a.logger == nil {
		a.logger = slog.Default()
	}
	if a.limits == nil {
		a.limits = account.Plan.Limits
	}
	if a.sessionTTL <= 0 {
		a.sessionTTL = DefaultSessionTTL
	}
	a.pages = newPages()

	routes := newRouter(a.routes())
	notFound := func(w http.ResponseWriter, r *http.Request) {
		a.errorPage(w, r, http.StatusNotFound, "Page not found", "There is no page at this address.")
	}
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		routes.serve(w, r, notFound)
	})
	h = a.withSession(h)
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.errorPage(w, r, http.StatusForbidden, "Request refused", "This form was sent from another site. Open Policygen and send it from there.")
	}))
	h = cop.Handler(h)
	return a.outer(h), nil
}

// Route is one page or form target of the dashboard, its Path in API
// Gateway's syntax: template.yaml gives the dashboard function exactly these
// routes (a test checks), so API paths stay with their own functions.
type Route struct {
	Method, Path string
}

type route struct {
	Route
	handler http.Handler
}

func (a *app) routes() []route {
	static, _ := fs.Sub(staticFS, "static")
	h := func(f http.HandlerFunc) http.Handler { return f }
	return []route{
		{Route{"GET", "/"}, h(a.home)},
		{Route{"GET", "/static/{file+}"}, http.StripPrefix("/static/", staticHandler(http.FileServerFS(static)))},
		{Route{"GET", "/signin"}, h(a.signInPage)},
		{Route{"POST", "/signin"}, h(a.signIn)},
		{Route{"GET", "/signup"}, h(a.signUpPage)},
		{Route{"POST", "/signup"}, h(a.signUp)},
		{Route{"POST", "/signout"}, h(a.signOut)},
		{Route{"GET", "/policies"}, a.signedIn(a.listPolicies)},
		{Route{"GET", "/policies/new"}, a.signedIn(a.newPolicyPage)},
		{Route{"POST", "/policies"}, a.signedIn(a.generate)},
		{Route{"GET", "/policies/{id}"}, a.signedIn(a.viewPolicy)},
		{Route{"GET", "/policies/{id}/download/{format}"}, a.signedIn(a.download)},
		{Route{"GET", "/policies/{id}/delete"}, a.signedIn(a.confirmDelete)},
		{Route{"POST", "/policies/{id}/delete"}, a.signedIn(a.deletePolicy)},
		{Route{"GET", "/settings"}, a.signedIn(a.settings)},
		{Route{"POST", "/settings/keys"}, a.signedIn(a.createKey)},
		{Route{"POST", "/settings/keys/{id}/rotate"}, a.signedIn(a.rotateKey)},
		{Route{"POST", "/settings/keys/{id}/revoke"}, a.signedIn(a.revokeKey)},
	}
}

// Routes lists the dashboard's routes.
func Routes() []Route {
	var out []Route
	for _, r := range (&app{}).routes() {
		out = append(out, r.Route)
	}
	return out
}

// muxPattern turns an API Gateway path into a ServeMux pattern: "/" alone
// is the root ("/{$}"), and a greedy {x+} is {x...}.
func muxPattern(p string) string {
	if p == "/" {
		return "/{$}"
	}
	return strings.ReplaceAll(p, "+}", "...}")
}

// contentSecurityPolicy allows this origin's own styles, scripts, images and
// forms, and nothing else: no inline script or style, no framing.
const contentSecurityPolicy = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

// outer sets the security headers, logs each request and turns a panic into
// a 500 page.
func (a *app) outer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		id := wire.RequestID(r)
		hdr.Set(wire.RequestIDHeader, id)
		hdr.Set("Content-Security-Policy", contentSecurityPolicy)
		hdr.Set("X-Content-Type-Options", "nosniff")
		hdr.Set("X-Frame-Options", "DENY")
		hdr.Set("Referrer-Policy", "same-origin")
		hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
		if secureRequest(r) {
			hdr.Set("Strict-Transport-Security", "max-age=63072000")
		}
		sw := &statusWriter{ResponseWriter: w}
		start := a.now()
		var pattern string
		r = r.WithContext(context.WithValue(r.Context(), patternKey{}, &pattern))
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				a.logger.Error("panic", "requestId", id, "route", pattern, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw.status == 0 {
					a.errorPage(sw, r, http.StatusInternalServerError, "Something went wrong", "The page could not be shown. Try again in a moment.")
				}
			}
			// The route pattern, not the path: ids stay out of the logs.
			if pattern == "" {
				pattern = "unmatched"
			}
			a.logger.Info("request", "method", r.Method, "path", pattern, "status", sw.status, "durationMs", float64(a.now().Sub(start).Microseconds())/1000, "requestId", id)
		}()
		h.ServeHTTP(sw, r)
	})
}

type patternKey struct{}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// staticHandler serves the embedded assets; they change only with the
// binary, so browsers may keep them for a day.
func staticHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		h.ServeHTTP(w, r)
	})
}

// Mount serves api under /v1 (and /v1/...) and the dashboard everywhere
// else: policyd passes the whole API, the dashboard's Lambda function the
// API's fallback, so a request for an API path that reaches it still gets
// the API's problem+json answer.
func Mount(dashboard, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// "OPTIONS *" (no path) is the API's too: it answers it as an
		// unknown route.
		if p := r.URL.Path; p == "/v1" || strings.HasPrefix(p, "/v1/") || !strings.HasPrefix(p, "/") {
			api.ServeHTTP(w, r)
			return
		}
		dashboard.ServeHTTP(w, r)
	})
}
