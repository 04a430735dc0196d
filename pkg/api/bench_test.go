package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/auth"
)

// benchEnv is an env whose authenticator caches keys as in production, so
// the figures show the handler and store, not a key lookup per request.
func benchEnv(b *testing.B) (*env, string, string) {
	e := newEnv(b)
	e.deps.Auth.CacheTTL = auth.DefaultCacheTTL
	// One key makes b.N requests in one (fixed-clock) minute: the figures
	// are the handler's, with the counters running but never refusing.
	e.setLimits(noLimits, noLimits)
	acct, key := e.account(account.Agency)
	return e, acct, key
}

func serve(b *testing.B, h http.Handler, method, path, key, body string, want int) {
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
}

func BenchmarkGenerateHandler(b *testing.B) {
	e, _, key := benchEnv(b)
	for b.Loop() {
		serve(b, e.h, "POST", "/v1/policies/generate", key, validBody, http.StatusCreated)
	}
}

func BenchmarkGetHandler(b *testing.B) {
	e, acct, key := benchEnv(b)
	id := e.seed(acct)
	for b.Loop() {
		serve(b, e.h, "GET", "/v1/policies/"+id, key, "", http.StatusOK)
	}
}

func BenchmarkListHandler(b *testing.B) {
	e, acct, key := benchEnv(b)
	for range 100 {
		e.seed(acct)
	}
	for b.Loop() {
		serve(b, e.h, "GET", "/v1/policies?limit=20", key, "", http.StatusOK)
	}
}

func BenchmarkProfileHandler(b *testing.B) {
	e, acct, key := benchEnv(b)
	e.seed(acct)
	for b.Loop() {
		serve(b, e.h, "GET", "/v1/auth/profile", key, "", http.StatusOK)
	}
}

func BenchmarkDeleteHandler(b *testing.B) {
	e, acct, key := benchEnv(b)
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = e.seed(acct)
	}
	b.ResetTimer()
	for i := range b.N {
		serve(b, e.h, "DELETE", "/v1/policies/"+ids[i], key, "", http.StatusNoContent)
	}
}
