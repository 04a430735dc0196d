package api

import (
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/policygen/policygen/pkg/errs"
)

// NewServer returns the handler for the whole API: every route, plus
// problem+json answers for unknown routes (404) and wrong methods (405).
func NewServer(d Deps) http.Handler {
	s := newServer(d)
	return s.outer(s.router(routes, Routes()))
}

// NewRouteHandler returns the handler for the one route called name (see
// Routes), with the same middleware as NewServer. Any other path answers
// 404 and any other method 405, so the handler also works when mounted
// where it receives every request.
func NewRouteHandler(name string, d Deps) (http.Handler, error) {
	for _, rt := range routes {
		if rt.Name == name {
			// Every route is known, so a request API Gateway sends here
			// that belongs to another route (GET /v1/policies/generate
			// reaches the GET /v1/policies/{id} function) gets the same
			// 405 or 404 as from NewServer.
			s := newServer(d)
			return s.outer(s.router([]route{rt}, Routes())), nil
		}
	}
	return nil, fmt.Errorf("api: no route named %q", name)
}

// NewFallbackHandler answers every request with 404, or 405 and Allow when
// the path belongs to a route of another method. It is meant for API
// Gateway's $default route, which receives what no route matched. It needs
// neither Store nor Auth.
func NewFallbackHandler(d Deps) http.Handler {
	s := newServer(d)
	return s.outer(s.router(nil, Routes()))
}

var errRouteNotFound = errs.E(errs.NotFound, "route_not_found", "no such route")

// router dispatches matched routes through a ServeMux and answers the rest.
// ServeMux's own 404 and 405 answers are plain text, so they are never used:
// unmatched requests are detected first with mux.Handler.
type router struct {
	s     *server
	mux   *http.ServeMux
	known []Route // what Allow is computed from
}

func (s *server) router(served []route, known []Route) *router {
	rt := &router{s: s, mux: http.NewServeMux(), known: known}
	for _, r := range served {
		rt.mux.Handle(r.Method+" "+r.Path, s.routeHandler(r))
	}
	return rt
}

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	// ServeMux would redirect an unclean path and route HEAD to GET; neither
	// is part of the API, and both would answer without problem+json.
	clean := p != "" && p[0] == '/' && (path.Clean(p) == p || path.Clean(p)+"/" == p)
	var allow []string
	if clean {
		allow = rt.allowed(p)
	}
	// A literal path is never an {id}: ids have their own format (pkg/ids),
	// so /v1/policies/generate under GET is a wrong method, not a policy.
	literal := clean && rt.isLiteral(p)
	if clean && r.Method != http.MethodHead && (!literal || slices.Contains(allow, r.Method)) {
		if _, pattern := rt.mux.Handler(r); pattern != "" {
			rt.mux.ServeHTTP(w, r)
			return
		}
	}
	// A fallback handler may see a request of an allowed method when the
	// route is served elsewhere; for it that route does not exist.
	if len(allow) == 0 || slices.Contains(allow, r.Method) {
		rt.s.writeError(w, r, errRouteNotFound)
		return
	}
	slices.Sort(allow)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	rt.s.writeError(w, r, errs.E(errs.MethodNotAllowed, "method_not_allowed",
		"method %s is not allowed here; allowed: %s", r.Method, strings.Join(allow, ", ")))
}

// isLiteral reports whether p is the exact path of a known route with no
// {name} segment.
func (rt *router) isLiteral(p string) bool {
	return slices.ContainsFunc(rt.known, func(k Route) bool { return k.Path == p })
}

// allowed lists the methods of the known routes matching p; when a route's
// literal path is p, only the literal routes count.
func (rt *router) allowed(p string) []string {
	literal := rt.isLiteral(p)
	var allow []string
	for _, k := range rt.known {
		if (k.Path == p || !literal && matchPath(k.Path, p)) && !slices.Contains(allow, k.Method) {
			allow = append(allow, k.Method)
		}
	}
	return allow
}

// matchPath reports whether the escaped request path p matches pattern,
// where a {name} segment matches any one non-empty segment (as ServeMux).
func matchPath(pattern, p string) bool {
	ps, qs := strings.Split(pattern, "/"), strings.Split(p, "/")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if strings.HasPrefix(ps[i], "{") {
			if qs[i] == "" {
				return false
			}
			continue
		}
		if ps[i] != qs[i] {
			return false
		}
	}
	return true
}
