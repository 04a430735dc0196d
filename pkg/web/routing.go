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
	byKey map[string]*keyed // by API Gateway route key, "GET /policies/{id}"
	all   []*keyed
	mux   func() *http.ServeMux

	built atomic.Bool // the ServeMux has been built (tests)
}

// keyed is a route as the route key finds it, with what matching it against
// a path needs worked out once.
type keyed struct {
	*route
	pattern  string   // the ServeMux pattern: what the ServeMux reports for the route, and the request log names
	segs     []string // the path's segments after the leading "/" (none for the root)
	greedy   bool     // the last segment is a greedy wildcard, {name+}
	literals int      // how many segments are literal
}

func newRouter(routes []route) *router {
	rt := &router{byKey: make(map[string]*keyed, len(routes))}
	for i := range routes {
		r := &routes[i]
		k := &keyed{route: r, pattern: r.Method + " " + muxPattern(r.Path), greedy: strings.HasSuffix(r.Path, "+}")}
		if r.Path != "/" {
			k.segs = strings.Split(r.Path[1:], "/")
		}
		for _, seg := range k.segs {
			if !strings.HasPrefix(seg, "{") {
				k.literals++
			}
		}
		rt.byKey[r.Method+" "+r.Path] = k
		rt.all = append(rt.all, k)
	}
	rt.mux = sync.OnceValue(func() *http.ServeMux {
		mux := http.NewServeMux()
		for _, k := range rt.all {
			mux.Handle(k.pattern, k.handler)
		}
		rt.built.Store(true)
		return mux
	})
	return rt
}

// serve serves r with its route's handler, storing the route's pattern
// where the request log reads it; a request no route matches gets notFound.
func (rt *router) serve(w http.ResponseWriter, r *http.Request, notFound http.HandlerFunc) {
	var h http.Handler
	var pattern string
	if k := rt.routed(r); k != nil {
		h, pattern = k.handler, k.pattern
		r.Pattern = pattern // as the ServeMux sets it
	} else {
		mux := rt.mux()
		_, pattern = mux.Handler(r)
		h = mux // which sets the path values and the pattern as it serves
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
func (rt *router) routed(r *http.Request) *keyed {
	gw, ok := core.GetAPIGatewayV2ContextFromContext(r.Context())
	if !ok {
		return nil
	}
	k := rt.byKey[gw.RouteKey]
	if k == nil || r.Method != k.Method {
		return nil
	}
	path := r.URL.EscapedPath()
	if path == "/" || k.Path == "/" {
		if path != k.Path {
			return nil
		}
		return k
	}
	if !strings.HasPrefix(path, "/") || strings.Contains(path, "%") {
		return nil
	}
	segs := strings.Split(path[1:], "/")
	if slices.ContainsFunc(segs, func(s string) bool { return s == "" || s == "." || s == ".." }) {
		return nil
	}
	if !k.fits(segs) {
		return nil
	}
	for _, other := range rt.all {
		if other != k && other.Method == k.Method && other.literals > k.literals && other.fits(segs) {
			return nil
		}
	}
	for i, seg := range k.segs {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			if name, greedy := strings.CutSuffix(name, "+}"); greedy {
				r.SetPathValue(name, strings.Join(segs[i:], "/"))
			} else {
				r.SetPathValue(strings.TrimSuffix(name, "}"), segs[i])
			}
		}
	}
	return k
}

// fits reports whether the path segments segs (of a path other than "/")
// fit the route's path.
func (k *keyed) fits(segs []string) bool {
	if len(k.segs) == 0 || len(segs) != len(k.segs) && (!k.greedy || len(segs) < len(k.segs)) {
		return false
	}
	for i, seg := range k.segs {
		if !strings.HasPrefix(seg, "{") && segs[i] != seg {
			return false
		}
	}
	return true
}
