package web

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
)

// router finds a request's route. In Lambda, API Gateway has already
// matched the request to one of the dashboard's routes (template.yaml gives
// the function exactly Routes()) and names it in the event's routeKey, so
// the route is a map lookup. Any other request (policyd, or an event whose
// route key and path do not agree) goes to a ServeMux holding the same
// routes, built on the first such request: registering 18 patterns costs
// about 230,000 instructions (ServeMux records the caller's file and line
// for each), which a Lambda cold start would otherwise pay before its first
// event and never use (DECISIONS.md 40).
type router struct {
	byKey map[string]*route // by API Gateway route key, "GET /policies/{id}"
	mux   func() *http.ServeMux

	built atomic.Bool // the ServeMux has been built (tests)
}

func newRouter(routes []route) *router {
	rt := &router{byKey: make(map[string]*route, len(routes))}
	for i := range routes {
		rt.byKey[routes[i].Method+" "+routes[i].Path] = &routes[i]
	}
	rt.mux = sync.OnceValue(func() *http.ServeMux {
		mux := http.NewServeMux()
		for _, r := range routes {
			mux.Handle(r.pattern(), r.handler)
		}
		rt.built.Store(true)
		return mux
	})
	return rt
}

// pattern is the route's ServeMux pattern: the one the ServeMux reports
// for a request it matches, and what the request log names.
func (r *route) pattern() string { return r.Method + " " + muxPattern(r.Path) }

// serve serves r with its route's handler, storing the route's pattern
// where the request log reads it; a request no route matches gets notFound.
func (rt *router) serve(w http.ResponseWriter, r *http.Request, notFound http.HandlerFunc) {
	var h http.Handler
	var pattern string
	if route := rt.routed(r); route != nil {
		h, pattern = route.handler, route.pattern()
	} else {
		mux := rt.mux()
		_, pattern = mux.Handler(r)
		h = mux // which sets the path values as it serves
	}
	if p, ok := r.Context().Value(patternKey{}).(*string); ok {
		*p = pattern
	}
	if pattern == "" {
		notFound(w, r)
		return
	}
	h.ServeHTTP(w, r)
}

// routed is the route API Gateway matched r to, with r's path values set
// as the ServeMux would set them, or nil when r did not come through API
// Gateway or leaves any doubt: a method or path that does not fit the
// route key, a more specific route that fits the path too (API Gateway, like
// the ServeMux, would have picked that one), or a path the ServeMux would
// clean, redirect or unescape (an empty, "." or ".." segment, or a "%").
// Those go to the ServeMux, which answers them as it always has.
func (rt *router) routed(r *http.Request) *route {
	gw, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	if !ok {
		return nil
	}
	route := rt.byKey[gw.RouteKey]
	if route == nil || r.Method != route.Method {
		return nil
	}
	path := r.URL.EscapedPath()
	if path == "/" || route.Path == "/" {
		if path != route.Path {
			return nil
		}
		return route
	}
	if !strings.HasPrefix(path, "/") || strings.Contains(path, "%") {
		return nil
	}
	segs := strings.Split(path[1:], "/")
	if slices.ContainsFunc(segs, func(s string) bool { return s == "" || s == "." || s == ".." }) {
		return nil
	}
	literals, ok := route.fits(segs)
	if !ok {
		return nil
	}
	for _, other := range rt.byKey {
		if n, ok := other.fits(segs); ok && other != route && other.Method == route.Method && n > literals {
			return nil
		}
	}
	pat := strings.Split(route.Path[1:], "/")
	for i, p := range pat {
		if name, ok := strings.CutPrefix(p, "{"); ok {
			if name, greedy := strings.CutSuffix(name, "+}"); greedy {
				r.SetPathValue(name, strings.Join(segs[i:], "/"))
			} else {
				r.SetPathValue(strings.TrimSuffix(name, "}"), segs[i])
			}
		}
	}
	return route
}

// fits reports whether the path segments segs (of a path other than "/")
// fit the route's path, and how many of its segments are literal.
func (r *route) fits(segs []string) (literals int, ok bool) {
	if r.Path == "/" {
		return 0, false
	}
	pat := strings.Split(r.Path[1:], "/")
	greedy := strings.HasSuffix(r.Path, "+}")
	if len(segs) != len(pat) && (!greedy || len(segs) < len(pat)) {
		return 0, false
	}
	for i, p := range pat {
		if !strings.HasPrefix(p, "{") {
			if segs[i] != p {
				return 0, false
			}
			literals++
		}
	}
	return literals, true
}
