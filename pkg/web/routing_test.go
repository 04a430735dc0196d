package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
)

// markedRoutes are the dashboard's routes, each with a handler that writes
// the route and its path values, so two ways of routing a request can be
// compared by what they answer.
func markedRoutes() []route {
	var out []route
	for _, r := range Routes() {
		r := r
		out = append(out, route{Route: r, handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			fmt.Fprintf(w, "%s %s", r.Method, r.Path)
			for _, name := range []string{"id", "format", "file"} {
				if v := req.PathValue(name); v != "" {
					fmt.Fprintf(w, " %s=%q", name, v)
				}
			}
		})})
	}
	return out
}

// serveVia answers method and path through a fresh router, as API Gateway
// would hand it over with routeKey when routeKey is not empty.
func serveVia(t *testing.T, rt *router, method, path, routeKey string) string {
	t.Helper()
	var req *http.Request
	if routeKey == "" {
		req = httptest.NewRequest(method, "https://dash.example"+path, nil)
	} else {
		ev := events.APIGatewayV2HTTPRequest{RouteKey: routeKey, RawPath: path}
		ev.RequestContext.RouteKey = routeKey
		ev.RequestContext.HTTP.Method = method
		ev.RequestContext.HTTP.Path = path
		ev.RequestContext.DomainName = "dash.example"
		var err error
		if req, err = new(core.RequestAccessorV2).EventToRequestWithContext(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	pattern := ""
	req = req.WithContext(context.WithValue(req.Context(), patternKey{}, &pattern))
	rec := httptest.NewRecorder()
	rt.serve(rec, req, func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no route", http.StatusNotFound) })
	return fmt.Sprintf("%d [%s] %s", rec.Code, pattern, strings.TrimSpace(rec.Body.String()))
}

// TestRouteKeyRoutesAsTheServeMux: a request that arrives with API
// Gateway's route key is answered exactly as the ServeMux answers it
// without one (the same handler, path values, pattern, redirect or 404),
// whether the key fits the path or not; and while every key fits a plain
// path, the ServeMux is never built.
func TestRouteKeyRoutesAsTheServeMux(t *testing.T) {
	paths := []string{
		"/", "/signin", "/signup", "/signout", "/policies", "/policies/new",
		"/policies/pol_01ABC", "/policies/pol_01ABC/download/md", "/policies/pol_01ABC/delete",
		"/settings", "/settings/keys", "/settings/keys/key_01/rotate", "/settings/keys/key_01/revoke",
		"/static/app.css", "/static/img/logo.svg", "/static", "/static/.hidden", "/policies/new/delete",
		// What the ServeMux cleans, redirects, unescapes or refuses.
		"/policies/", "/policies//delete", "/policies/a%2Fb", "/policies/%41", "/policies/./x",
		"/policies/../settings", "/static/", "/static/../web.go", "/static/a//b", "/settings/", "/nope",
		"/policies/pol_01ABC/download/md/extra", "//policies",
	}
	methods := []string{"GET", "POST", "HEAD", "DELETE"}
	keys := []string{"GET /", "GET /policies/{id}", "GET /static/{file+}", "POST /policies/{id}/delete", "$default"}
	for _, r := range Routes() {
		keys = append(keys, r.Method+" "+r.Path)
	}

	ref := newRouter(markedRoutes())
	lambda := newRouter(markedRoutes())
	routed := 0
	for _, method := range methods {
		for _, path := range paths {
			want := serveVia(t, ref, method, path, "")
			// The key API Gateway gives a request it routes: the route
			// the ServeMux matches, in API Gateway's syntax.
			var fit string
			for _, r := range Routes() {
				if strings.Contains(want, "["+r.Method+" "+muxPattern(r.Path)+"]") {
					fit = r.Method + " " + r.Path
				}
			}
			// A redirect (GET /static for GET /static/{file+}) is the
			// ServeMux's to give.
			if fit != "" && strings.HasPrefix(fit, method+" ") && strings.HasPrefix(want, "200 ") && plainPath(path) {
				if got := serveVia(t, lambda, method, path, fit); got != want {
					t.Errorf("%s %s with its route key %q: %s, want %s", method, path, fit, got, want)
				}
				routed++
			}
		}
	}
	if lambda.built.Load() {
		t.Error("the ServeMux was built although every request came with the route key of a plain path")
	}
	if routed < 15 {
		t.Errorf("only %d requests went the route key's way", routed)
	}
	for _, method := range methods {
		for _, path := range paths {
			want := serveVia(t, ref, method, path, "")
			for _, key := range keys {
				if got := serveVia(t, lambda, method, path, key); got != want {
					t.Errorf("%s %s with route key %q: %s, want %s", method, path, key, got, want)
				}
			}
		}
	}
	if !lambda.built.Load() {
		t.Error("the ServeMux was never built, although some keys did not fit their requests")
	}
}

// plainPath reports whether path is one the ServeMux routes as it is: no
// escape, no empty, "." or ".." segment, no trailing slash but the root's.
func plainPath(path string) bool {
	if path == "/" {
		return true
	}
	if strings.Contains(path, "%") || strings.HasSuffix(path, "/") {
		return false
	}
	for _, seg := range strings.Split(path[1:], "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}
