package wire

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestIncomingRequestID(t *testing.T) {
	for in, want := range map[string]string{
		"abc-XYZ_09.:=":          "abc-XYZ_09.:=",
		strings.Repeat("a", 128): strings.Repeat("a", 128),
		strings.Repeat("a", 129): "",
		"":                       "",
		"a b":                    "",
		"a/b":                    "",
		"a@b":                    "",
		"a[b":                    "",
		"a`b":                    "",
		"a{b":                    "",
		"azAZ09":                 "azAZ09",
		"\u00e9":                 "",
	} {
		if got := incomingRequestID(in); got != want {
			t.Errorf("incomingRequestID(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNilLoggerIsTheDefault: a handler built without a logger logs to
// slog.Default() rather than panicking on its first request.
func TestNilLoggerIsTheDefault(t *testing.T) {
	for _, h := range []http.Handler{NewFallbackHandler(nil), Outer(nil, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/nope", nil))
		if rec.Code != http.StatusNotFound && rec.Code != http.StatusInternalServerError {
			t.Errorf("status = %d", rec.Code)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("Content-Type = %q", ct)
		}
	}
}
