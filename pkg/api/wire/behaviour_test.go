package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/policygen/policygen/pkg/errs"
)

// logLines is a logger that keeps what it logs, one JSON object per line.
type logLines struct{ buf bytes.Buffer }

func (l *logLines) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(&l.buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (l *logLines) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// only returns the one record with message msg.
func (l *logLines) only(t *testing.T, msg string) map[string]any {
	t.Helper()
	var found []map[string]any
	for _, m := range l.records(t) {
		if m["msg"] == msg {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %q records in %s", len(found), msg, l.buf.String())
	}
	return found[0]
}

func decodeProblem(t *testing.T, rec *httptest.ResponseRecorder) Problem {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, body %s", ct, rec.Body)
	}
	var p Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("problem body %s: %v", rec.Body, err)
	}
	if p.Status != rec.Code {
		t.Errorf("problem status %d, response %d", p.Status, rec.Code)
	}
	return p
}

// servedRouter serves the getPolicy and generatePolicy routes, each with a
// handler that names itself and the path value, and knows every route.
func servedRouter(logger *slog.Logger) *Router {
	rt := NewRouter(logger, Routes())
	for _, name := range []string{"getPolicy", "generatePolicy"} {
		rt.Handle(RouteNamed(name), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(name + " " + r.PathValue("id")))
		}))
	}
	return rt
}

// TestRouter: served routes reach their handler; every other request gets
// problem+json, 404 or 405 with Allow, never ServeMux's plain-text
// answers or redirects.
func TestRouter(t *testing.T) {
	rt := servedRouter(nil)
	fb := NewFallbackHandler(slog.New(slog.DiscardHandler))
	for _, c := range []struct {
		method, target string
		h              http.Handler
		status         int
		body, allow    string // body: the handler's answer (2xx)
	}{
		{"GET", "/v1/policies/pol_123", rt, 200, "getPolicy pol_123", ""},
		{"POST", "/v1/policies/generate", rt, 200, "generatePolicy ", ""},
		// A path value is unescaped, and a literal segment matches its
		// unescaped text, as in ServeMux.
		{"GET", "/v1/policies/pol%5F1", rt, 200, "getPolicy pol_1", ""},
		{"GET", "/v1/polic%69es/pol_1", rt, 200, "getPolicy pol_1", ""},
		// Known route, not served here: 404 for the fallback too.
		{"DELETE", "/v1/policies/pol_123", rt, 404, "", ""},
		{"GET", "/v1/policies", rt, 404, "", ""},
		// A literal path is not an {id}.
		{"GET", "/v1/policies/generate", rt, 405, "", "POST"},
		{"PUT", "/v1/policies/pol_1", rt, 405, "", "DELETE, GET"},
		{"HEAD", "/v1/policies/pol_1", rt, 405, "", "DELETE, GET"},
		{"PATCH", "/v1/policies", rt, 405, "", "GET"},
		{"GET", "/v1/auth/profile", fb, 404, "", ""},
		{"POST", "/v1/auth/profile", fb, 405, "", "GET"},
		{"GET", "/v1/policies/bulk", fb, 405, "", "POST"},
		// Unclean or unknown paths: 404, no redirect.
		{"GET", "/v1//policies/pol_1", rt, 404, "", ""},
		{"GET", "/v1/policies/pol_1/", rt, 404, "", ""},
		{"GET", "/v1/x/../policies/pol_1", rt, 404, "", ""},
		{"GET", "/v1/policies/./pol_1", rt, 404, "", ""},
		{"POST", "/v1/policies/generate/", rt, 404, "", ""},
		{"GET", "/v1/policies/pol_1/x", rt, 404, "", ""},
		{"GET", "/v2/policies/pol_1", rt, 404, "", ""},
		{"GET", "/", rt, 404, "", ""},
		{"GET", "/v1/catalogue", fb, 404, "", ""},
	} {
		rec := httptest.NewRecorder()
		c.h.ServeHTTP(rec, httptest.NewRequest(c.method, c.target, nil))
		name := c.method + " " + c.target
		if rec.Code != c.status {
			t.Errorf("%s: status %d, want %d (%s)", name, rec.Code, c.status, rec.Body)
			continue
		}
		if got := rec.Header().Get("Allow"); got != c.allow {
			t.Errorf("%s: Allow %q, want %q", name, got, c.allow)
		}
		if c.status < 300 {
			if rec.Body.String() != c.body {
				t.Errorf("%s: body %q, want %q", name, rec.Body, c.body)
			}
			continue
		}
		p := decodeProblem(t, rec)
		want := map[int]string{404: "route_not_found", 405: "method_not_allowed"}[c.status]
		if p.Code != want || p.Type != ProblemTypeBase+want || p.Title != http.StatusText(c.status) {
			t.Errorf("%s: problem %+v, want code %s", name, p, want)
		}
		if c.status == 405 && !strings.Contains(p.Detail, c.method) || !strings.Contains(p.Detail, c.allow) {
			t.Errorf("%s: detail %q names neither the method nor what is allowed", name, p.Detail)
		}
	}
}

// TestRouterPattern: the handler sees the request's Pattern and path value
// as ServeMux would have set them.
func TestRouterPattern(t *testing.T) {
	rt := NewRouter(nil, Routes())
	var pattern, id string
	rt.Handle(RouteNamed("deletePolicy"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pattern, id = r.Pattern, r.PathValue("id")
	}))
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, httptest.NewRequest("DELETE", "/v1/policies/pol_9", nil))
	if rec.Code != 200 || pattern != "DELETE /v1/policies/{id}" || id != "pol_9" {
		t.Errorf("status %d, Pattern %q, id %q; want 200, %q, %q", rec.Code, pattern, id, "DELETE /v1/policies/{id}", "pol_9")
	}
}

// TestPathUnescape: a segment that is not validly escaped is kept as it
// is, as ServeMux keeps it (no request URL can carry one, but a path value
// never depends on that).
func TestPathUnescape(t *testing.T) {
	for in, want := range map[string]string{"pol_1": "pol_1", "pol%5F1": "pol_1", "a%2Fb": "a/b", "pol%zz": "pol%zz", "%": "%"} {
		if got := pathUnescape(in); got != want {
			t.Errorf("pathUnescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatchPath(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"/v1/policies/{id}", "/v1/policies/pol_1", true},
		{"/v1/policies/{id}", "/v1/policies/", false},
		{"/v1/policies/{id}", "/v1/policies", false},
		{"/v1/policies/{id}", "/v1/policies/a/b", false},
		{"/v1/policies/{id}", "/v1/polices/pol_1", false},
		{"/v1/policies", "/v1/policies", true},
		{"/v1/policies", "/v1/policy", false},
		{"/v1/policies", "/v1/polic%69es", true},
		{"/v1/policies", "/v1/policies%2F", false},
	} {
		if got := matchPath(c.pattern, strings.Split(c.path, "/")); got != c.want {
			t.Errorf("matchPath(%q, %q) = %v", c.pattern, c.path, got)
		}
	}
}

func TestRouteTable(t *testing.T) {
	r := RouteNamed("deletePolicy")
	if r.Method != "DELETE" || r.Path != "/v1/policies/{id}" {
		t.Errorf("RouteNamed(deletePolicy) = %+v", r)
	}
	func() {
		defer func() {
			if v := recover(); v == nil || !strings.Contains(v.(string), "nosuch") {
				t.Errorf("RouteNamed(nosuch) recovered %v, want a panic naming it", v)
			}
		}()
		RouteNamed("nosuch")
	}()
	rs := Routes()
	rs[0].Path = "/changed"
	if Routes()[0].Path == "/changed" {
		t.Error("Routes returns the table itself, not a copy")
	}
}

// TestOuterAccessLog: one record per request, with the route pattern
// (never the raw path), the status, bytes, duration, request id and, once
// known, the account.
func TestOuterAccessLog(t *testing.T) {
	for _, c := range []struct {
		name    string
		handler http.HandlerFunc
		status  int
		bytes   float64
		route   string
		account string
	}{
		{"write without header", func(w http.ResponseWriter, r *http.Request) {
			Info(r.Context()).Route = "/v1/policies/{id}"
			w.Write([]byte("hello"))
		}, 200, 5, "/v1/policies/{id}", ""},
		{"nothing written", func(w http.ResponseWriter, r *http.Request) {}, 200, 0, "unmatched", ""},
		{"informational then created", func(w http.ResponseWriter, r *http.Request) {
			Info(r.Context()).AccountID = "acc_1"
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte("{}"))
		}, 201, 2, "unmatched", "acc_1"},
		{"status then more", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusAccepted)
			w.WriteHeader(http.StatusTeapot) // superfluous: the first one counts
			w.Write([]byte("ab"))
			w.Write([]byte("cde"))
		}, 202, 5, "unmatched", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var l logLines
			h := Outer(l.logger(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(2 * time.Millisecond)
				c.handler(w, r)
			}))
			// A real server: the recorder takes a 1xx for the final status.
			srv := httptest.NewServer(h)
			defer srv.Close()
			req, _ := http.NewRequest("GET", srv.URL+"/v1/policies/pol_secret?x=1", nil)
			req.Header.Set(RequestIDHeader, "client-id-1")
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			srv.Close() // the access log is written once the handler returns
			if res.StatusCode != c.status {
				t.Errorf("response status %d, want %d", res.StatusCode, c.status)
			}
			for k, v := range map[string]string{RequestIDHeader: "client-id-1", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"} {
				if got := res.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			m := l.only(t, "request")
			if m["method"] != "GET" || m["path"] != c.route || m["status"] != float64(c.status) ||
				m["bytes"] != c.bytes || m["requestId"] != "client-id-1" {
				t.Errorf("access log %v", m)
			}
			if strings.Contains(l.buf.String(), "pol_secret") {
				t.Errorf("the raw path reached the log: %s", l.buf.String())
			}
			if got, ok := m["accountId"]; c.account == "" && ok || c.account != "" && got != c.account {
				t.Errorf("accountId %v, want %q", got, c.account)
			}
			// The handler slept 2 ms: durationMs is in milliseconds.
			if d, _ := m["durationMs"].(float64); d < 2 || d > 10000 {
				t.Errorf("durationMs %v", m["durationMs"])
			}
		})
	}
}

// TestOuterPanics: a panic before the response is a 500 problem without
// what the handler had set for its success; after it started, the status
// stands and the panic is logged; http.ErrAbortHandler passes through.
func TestOuterPanics(t *testing.T) {
	var l logLines
	h := Outer(l.logger(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/v1/policies/pol_1")
		w.Header().Set("Content-Type", "text/plain")
		panic("boom")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/policies/generate", nil))
	if rec.Code != 500 {
		t.Fatalf("status %d", rec.Code)
	}
	p := decodeProblem(t, rec)
	if p.Code != "internal_error" || strings.Contains(rec.Body.String(), "boom") {
		t.Errorf("problem %+v leaks or misnames the panic", p)
	}
	if rec.Header().Get("Location") != "" {
		t.Error("the handler's Location survived the panic")
	}
	for _, k := range []string{RequestIDHeader, "Cache-Control", "X-Content-Type-Options"} {
		if rec.Header().Get(k) == "" {
			t.Errorf("%s dropped", k)
		}
	}
	if m := l.only(t, "request failed"); !strings.Contains(m["error"].(string), "panic: boom") {
		t.Errorf("the cause is not logged: %v", m)
	}
	if m := l.only(t, "request"); m["status"] != float64(500) {
		t.Errorf("access log %v", m)
	}

	l = logLines{}
	h = Outer(l.logger(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		panic("late")
	}))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/policies/generate", nil))
	if rec.Code != http.StatusCreated {
		t.Errorf("status %d after a late panic", rec.Code)
	}
	if m := l.only(t, "panic after response started"); m["panic"] != "late" || m["requestId"] != rec.Header().Get(RequestIDHeader) {
		t.Errorf("late panic log %v", m)
	}
	if m := l.only(t, "request"); m["status"] != float64(http.StatusCreated) {
		t.Errorf("access log %v", m)
	}

	h = Outer(slog.New(slog.DiscardHandler), http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler", v)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}()
}

// TestRequestID: API Gateway's id wins over the client's, a safe client id
// is echoed, anything else gets a fresh one.
func TestRequestID(t *testing.T) {
	gw := func(id, header string) *http.Request {
		ev := events.APIGatewayV2HTTPRequest{
			RawPath:        "/v1/auth/profile",
			Headers:        map[string]string{RequestIDHeader: header},
			RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: id, HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/v1/auth/profile"}},
		}
		r, err := new(core.RequestAccessorV2).EventToRequestWithContext(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain := func(header string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		if header != "" {
			r.Header.Set(RequestIDHeader, header)
		}
		return r
	}
	for _, c := range []struct {
		name string
		r    *http.Request
		want string // "" for a fresh id
	}{
		{"gateway id over the client's", gw("gw-id=", "client"), "gw-id="},
		{"client's when the gateway's is unusable", gw("bad id", "client"), "client"},
		{"client's", plain("client-1"), "client-1"},
		{"unsafe client id", plain("a b"), ""},
		{"none", plain(""), ""},
	} {
		got := RequestID(c.r)
		if c.want != "" && got != c.want || c.want == "" && (!strings.HasPrefix(got, "req_") || len(got) < 20) {
			t.Errorf("%s: RequestID = %q, want %q", c.name, got, c.want)
		}
	}
	if a, b := RequestID(plain("")), RequestID(plain("")); a == b {
		t.Errorf("two fresh ids are both %q", a)
	}
}

// TestProblemOf: each error kind's status, code and detail; internal and
// unknown errors say nothing but are logged; an outage is retryable.
func TestProblemOf(t *testing.T) {
	for _, c := range []struct {
		kind   errs.Kind
		status int
	}{
		{errs.Invalid, 400}, {errs.Unauthenticated, 401}, {errs.Forbidden, 403}, {errs.NotFound, 404},
		{errs.MethodNotAllowed, 405}, {errs.Conflict, 409}, {errs.TooLarge, 413}, {errs.UnsupportedMedia, 415},
		{errs.Unprocessable, 422}, {errs.TooManyRequests, 429},
	} {
		var l logLines
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/v1/policies/generate", nil)
		r = r.WithContext(WithInfo(r.Context(), &RequestInfo{ID: "rid-1", Route: "/v1/policies/generate"}))
		err := errs.E(c.kind, "some_code", "what went wrong: %d", 7)
		err.Fields = []errs.FieldError{{Field: "jurisdiction", Message: "unknown"}}
		WriteError(l.logger(), rec, r, err)
		p := decodeProblem(t, rec)
		if rec.Code != c.status || p.Code != "some_code" || p.Detail != "what went wrong: 7" || p.RequestID != "rid-1" ||
			p.Type != ProblemTypeBase+"some_code" || p.Title != http.StatusText(c.status) || len(p.Errors) != 1 || p.Errors[0].Field != "jurisdiction" {
			t.Errorf("kind %v: %d %+v", c.kind, rec.Code, p)
		}
		if rec.Header().Get("Retry-After") != "" || l.buf.Len() != 0 {
			t.Errorf("kind %v: Retry-After %q, log %s", c.kind, rec.Header().Get("Retry-After"), l.buf.String())
		}
	}

	for _, err := range []error{errors.New("disk on fire"), errs.E(errs.Internal, "oops", "secret detail"), errs.E(errs.Kind(999), "odd", "odd detail")} {
		var l logLines
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/v1/policies/pol_1", nil)
		r = r.WithContext(WithInfo(r.Context(), &RequestInfo{ID: "rid-2", Route: "/v1/policies/{id}"}))
		WriteError(l.logger(), rec, r, err)
		p := decodeProblem(t, rec)
		if rec.Code != 500 || p.Code != "internal_error" || p.Detail != "internal error" || p.Errors != nil {
			t.Errorf("%v: %d %+v", err, rec.Code, p)
		}
		m := l.only(t, "request failed")
		if m["level"] != "ERROR" || m["error"] != err.Error() || m["requestId"] != "rid-2" || m["path"] != "/v1/policies/{id}" || m["method"] != "GET" {
			t.Errorf("%v: log %v", err, m)
		}
	}

	var l logLines
	rec := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/v1/policies", nil)
	WriteError(l.logger(), rec, r, errs.Wrap(errors.New("throttled"), errs.Unavailable, "unavailable", "try again shortly"))
	p := decodeProblem(t, rec)
	if rec.Code != 503 || p.Code != "unavailable" || p.Detail != "try again shortly" || rec.Header().Get("Retry-After") != "2" {
		t.Errorf("outage: %d %+v Retry-After %q", rec.Code, p, rec.Header().Get("Retry-After"))
	}
	if m := l.only(t, "dependency unavailable"); m["level"] != "WARN" || !strings.Contains(m["error"].(string), "throttled") || m["path"] != "unmatched" {
		t.Errorf("outage log %v", m)
	}
	rec = httptest.NewRecorder()
	rec.Header().Set("Retry-After", "30")
	WriteError(slog.New(slog.DiscardHandler), rec, r, errs.E(errs.Unavailable, "unavailable", "down"))
	if got := rec.Header().Values("Retry-After"); !slices.Equal(got, []string{"30"}) {
		t.Errorf("a Retry-After already set became %q", got)
	}
	if status, p := ProblemOf(slog.New(slog.DiscardHandler), nil, r, errs.E(errs.Unavailable, "unavailable", "down")); status != 503 || p.Status != 503 {
		t.Errorf("ProblemOf without a writer: %d %+v", status, p)
	}
}
