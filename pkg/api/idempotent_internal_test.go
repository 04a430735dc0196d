package api

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/store/bolt"
)

// Every POST is idempotent, not only generate: a handler that does not
// store its own outcome gets it stored by the middleware when it succeeds
// (and replayed), and its claim released when it fails.
func TestIdempotentGenericPOST(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	s := newServer(Deps{Store: db, Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	calls := 0
	ok := func(w http.ResponseWriter, r *http.Request) error {
		calls++
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Location", "/v1/things/1")
		wire.WriteBody(w, http.StatusAccepted, "application/json", append([]byte(`{"got":`), append(b, '}')...))
		return nil
	}
	failing := func(w http.ResponseWriter, r *http.Request) error {
		calls++
		return errs.E(errs.Unprocessable, "nope", "no")
	}
	do := func(key, body string, h func(http.ResponseWriter, *http.Request) error) (*httptest.ResponseRecorder, error) {
		req := httptest.NewRequest("POST", "/v1/things", strings.NewReader(body))
		req.Header.Set(IdempotencyKeyHeader, key)
		ri := &routeInfo{principal: auth.Principal{Account: account.Account{ID: "acct_1", Plan: account.Agency}}}
		ctx := wire.WithInfo(req.Context(), &wire.RequestInfo{ID: "req_test"})
		req = req.WithContext(context.WithValue(ctx, routeKey{}, ri))
		rec := httptest.NewRecorder()
		err := s.idempotent(rec, req, "/v1/things", h)
		return rec, err
	}

	first, err := do("k1", "1", ok)
	if err != nil || first.Code != http.StatusAccepted {
		t.Fatalf("first: %v %d", err, first.Code)
	}
	again, err := do("k1", "1", ok)
	if err != nil || calls != 1 || again.Code != http.StatusAccepted || again.Body.String() != first.Body.String() ||
		again.Header().Get("Location") != "/v1/things/1" || again.Header().Get(IdempotentReplayedHeader) != "true" {
		t.Fatalf("replay: %v calls=%d %d %q %v", err, calls, again.Code, again.Body, again.Header())
	}
	if _, err := do("k1", "2", ok); !errors.Is(err, errIdempotencyReused) {
		t.Errorf("other body: %v", err)
	}

	// A failure keeps nothing: the key runs the handler again.
	calls = 0
	if _, err := do("k2", "1", failing); errs.As(err) == nil || errs.As(err).Code != "nope" {
		t.Fatalf("failing: %v", err)
	}
	if rec, err := do("k2", "1", ok); err != nil || rec.Code != http.StatusAccepted || calls != 2 {
		t.Errorf("after a failure: %v %d calls=%d", err, rec.Code, calls)
	}
	// A request without the header is not idempotent.
	req := httptest.NewRequest("POST", "/v1/things", strings.NewReader("1"))
	if err := s.idempotent(httptest.NewRecorder(), req, "/v1/things", ok); err != nil || calls != 3 {
		t.Errorf("no key: %v calls=%d", err, calls)
	}
}

func TestValidIdempotencyKey(t *testing.T) {
	for k, want := range map[string]bool{
		"":                         false,
		"a":                        true,
		strings.Repeat("k", 255):   true,
		strings.Repeat("k", 256):   false,
		" leading space":           true, // 0x20 is printable
		"tilde~":                   true, // 0x7e
		"del\x7f":                  false,
		"unit\x1fsep":              false,
		"é":                        false,
		"3f1c9a2e-0b7d-4c55-a1e0-": true,
	} {
		if got := validIdempotencyKey(k); got != want {
			t.Errorf("validIdempotencyKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// secondsUntil rounds up and never says 0, so a client told Retry-After
// never retries before the window has turned.
func TestSecondsUntil(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]int{
		0: 1, time.Millisecond: 1, time.Second: 1, time.Second + time.Millisecond: 2, 59*time.Second + 999*time.Millisecond: 60, -time.Second: 1,
	} {
		if got := secondsUntil(now, now.Add(d)); got != want {
			t.Errorf("secondsUntil(+%s) = %d, want %d", d, got, want)
		}
	}
}
