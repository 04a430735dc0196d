package wire

import (
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/policygen/policygen/pkg/errs"
)

// Route is one operation of the API. Path is in API Gateway form
// (/v1/policies/{id}), which is also the net/http ServeMux pattern syntax.
type Route struct {
	Name   string // operationId in openapi.yaml; selects the handler (pkg/api)
	Method string
	Path   string
}

// routes is the one route table: everything that serves or describes the
// API (pkg/api's handlers, bound by name; the fallback; template.yaml's and
// openapi.yaml's tests) derives from it.
var routes = []Route{
	{"generatePolicy", "POST", "/v1/policies/generate"},
	{"bulkGeneratePolicies", "POST", "/v1/policies/bulk"},
	{"listPolicies", "GET", "/v1/policies"},
	{"getPolicy", "GET", "/v1/policies/{id}"},
	{"deletePolicy", "DELETE", "/v1/policies/{id}"},
	{"getProfile", "GET", "/v1/auth/profile"},
	{"getCatalog", "GET", "/v1/catalog"},
}

// Routes lists every route of the API.
func Routes() []Route { return slices.Clone(routes) }

// RouteNamed is the route called name; it panics for a name no route has
// (a handler bound to an operation that does not exist).
func RouteNamed(name string) Route {
	i := slices.IndexFunc(routes, func(r Route) bool { return r.Name == name })
	if i < 0 {
		panic("wire: no route named " + name)
	}
	return routes[i]
}

// ErrRouteNotFound is the answer to a request no route serves.
var ErrRouteNotFound = errs.E(errs.NotFound, "route_not_found", "no such route")

// Router dispatches the routes it serves and answers the rest: 404, or 405
// with Allow when the path belongs to a known route of another method.
// It matches paths itself, as net/http's ServeMux would (a {name} segment
// is one non-empty segment, its value unescaped; a literal segment matches
// its unescaped text) and sets the request's Pattern and path values as
// ServeMux does, but it answers in problem+json, never redirects, and does
// not route HEAD to GET. A ServeMux would also cost every Lambda function's
// cold start about 0.07 ms to register its one pattern (docs/DECISIONS.md
// 40, where the dashboard's router made the same choice).
type Router struct {
	logger *slog.Logger
	served []servedRoute
	known  []Route // what Allow is computed from
}

// servedRoute is a route the Router serves, with its handler.
type servedRoute struct {
	Route
	h http.Handler
}

// NewRouter returns a Router that serves nothing yet and knows known; it
// logs to logger (slog.Default() when nil).
func NewRouter(logger *slog.Logger, known []Route) *Router {
	return &Router{logger: orDefault(logger), known: known}
}

// Handle serves rt with h.
func (rt *Router) Handle(r Route, h http.Handler) {
	rt.served = append(rt.served, servedRoute{r, h})
}

// NewFallbackHandler answers every request with 404, or 405 and Allow when
// the path belongs to a route of another method. It is meant for API
// Gateway's $default route, which receives what no route matched.
func NewFallbackHandler(logger *slog.Logger) http.Handler {
	return Outer(logger, NewRouter(logger, Routes()))
}

func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	// ServeMux would redirect an unclean path and route HEAD to GET; neither
	// is part of the API, and both would answer without problem+json.
	clean := p != "" && p[0] == '/' && (path.Clean(p) == p || path.Clean(p)+"/" == p)
	// A literal path is never an {id}: ids have their own format (pkg/ids),
	// so /v1/policies/generate under GET is a wrong method, not a policy.
	// The path is split once, for every route it is matched against.
	var (
		segs    []string
		literal bool
		allow   []string
	)
	if clean {
		segs, literal = strings.Split(p, "/"), rt.isLiteral(p)
		allow = rt.allowed(p, segs, literal)
	}
	if clean && r.Method != http.MethodHead && (!literal || slices.Contains(allow, r.Method)) {
		if s := rt.match(r.Method, p, segs, literal); s != nil {
			r.Pattern = s.Method + " " + s.Path
			setPathValues(r, s.Path, segs)
			s.h.ServeHTTP(w, r)
			return
		}
	}
	// A fallback handler may see a request of an allowed method when the
	// route is served elsewhere; for it that route does not exist.
	if len(allow) == 0 || slices.Contains(allow, r.Method) {
		WriteError(rt.logger, w, r, ErrRouteNotFound)
		return
	}
	slices.Sort(allow)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	WriteError(rt.logger, w, r, errs.E(errs.MethodNotAllowed, "method_not_allowed",
		"method %s is not allowed here; allowed: %s", r.Method, strings.Join(allow, ", ")))
}

// match is the served route of method whose path is p, or matches p (split
// into segs) when p is not a known route's literal path.
func (rt *Router) match(method, p string, segs []string, literal bool) *servedRoute {
	for i := range rt.served {
		s := &rt.served[i]
		if s.Method == method && (s.Path == p || !literal && matchPath(s.Path, segs)) {
			return s
		}
	}
	return nil
}

// setPathValues sets r's path value for each {name} segment of pattern, from
// the same segment of the escaped path's segments segs (which match
// pattern), unescaped.
func setPathValues(r *http.Request, pattern string, segs []string) {
	rest := pattern
	for i := 0; ; i++ {
		seg, after, more := strings.Cut(rest, "/")
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			r.SetPathValue(strings.TrimSuffix(name, "}"), pathUnescape(segs[i]))
		}
		if !more {
			return
		}
		rest = after
	}
}

// pathUnescape is seg unescaped, or seg itself when it is not validly
// escaped (as ServeMux does).
func pathUnescape(seg string) string {
	if u, err := url.PathUnescape(seg); err == nil {
		return u
	}
	return seg
}

// isLiteral reports whether p is the exact path of a known route with no
// {name} segment.
func (rt *Router) isLiteral(p string) bool {
	return slices.ContainsFunc(rt.known, func(k Route) bool { return k.Path == p })
}

// allowed lists the methods of the known routes matching p (split into
// segs); when a route's literal path is p (literal), only the literal
// routes count.
func (rt *Router) allowed(p string, segs []string, literal bool) []string {
	var allow []string
	for _, k := range rt.known {
		if (k.Path == p || !literal && matchPath(k.Path, segs)) && !slices.Contains(allow, k.Method) {
			allow = append(allow, k.Method)
		}
	}
	return allow
}

// matchPath reports whether the escaped request path whose segments are
// segs (split at "/") matches pattern, where a {name} segment matches any
// one non-empty segment and a literal segment its unescaped text (as
// ServeMux). The pattern is walked in place, not split.
func matchPath(pattern string, segs []string) bool {
	rest := pattern
	for i, q := range segs {
		seg, after, more := strings.Cut(rest, "/")
		if more != (i < len(segs)-1) {
			return false // a different number of segments
		}
		if strings.HasPrefix(seg, "{") {
			if q == "" {
				return false
			}
		} else if seg != q && seg != pathUnescape(q) {
			return false
		}
		rest = after
	}
	return true
}
