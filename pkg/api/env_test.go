package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/policygen/policygen/internal/testenv"
	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/bolt"
)

// validBody is a complete, valid generation request.
const validBody = `{
  "type": "privacy",
  "businessName": "Acme Widgets Ltd",
  "websiteUrl": "https://acme.example",
  "businessType": "ecommerce",
  "language": "en",
  "jurisdiction": "EU",
  "collectsPayments": true,
  "collectsUserData": true,
  "usesAnalytics": true,
  "thirdPartyServices": ["stripe", "google-analytics"]
}`

// env is a real API over a real bolt store with real key authentication.
type env struct {
	t      testing.TB
	store  store.Store
	hasher *auth.Hasher
	clock  *testenv.Clock
	deps   api.Deps
	h      http.Handler
	logs   *testenv.Buffer
	// spec, when set, validates every response against openapi.yaml.
	spec *spec
}

func newEnv(t testing.TB) *env {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "policygen.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newEnvStore(t, st)
}

func newEnvStore(t testing.TB, st store.Store) *env {
	e := &env{
		t:      t,
		store:  st,
		hasher: &auth.Hasher{Pepper: secrets.NewStatic([]byte("test pepper, 32 bytes long......"))},
		clock:  testenv.NewClock(time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)),
		logs:   &testenv.Buffer{},
	}
	e.deps = api.Deps{
		Store: st,
		// No cache: tests revoke keys and change plans and expect to see it.
		Auth:   &auth.Authenticator{Store: st, Hasher: e.hasher, Now: e.clock.Now, CacheTTL: -1},
		Now:    e.clock.Now,
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil)),
	}
	e.h = api.NewServer(e.deps)
	if tt, ok := t.(*testing.T); ok {
		e.spec = loadSpec(tt)
	}
	return e
}

// setLimits gives every plan these limits and rebuilds the handler: tests
// of the limits use small ones, benchmarks and fuzzing effectively none.
func (e *env) setLimits(monthly, perMinute int) {
	e.deps.Limits = func(account.Plan) account.Limits {
		return account.Limits{MonthlyGenerations: monthly, RequestsPerMinute: perMinute}
	}
	e.h = api.NewServer(e.deps)
}

// noLimits is what setLimits takes for "never refuse".
const noLimits = 1 << 30

// account creates an account on plan and returns its id and a fresh key.
func (e *env) account(plan account.Plan) (id, key string) {
	e.t.Helper()
	ctx := context.Background()
	a := account.Account{
		ID:        ids.New("acct_"),
		Email:     string(plan) + "@example.com",
		Name:      "Test " + string(plan),
		Plan:      plan,
		CreatedAt: e.clock.Now().UTC().Truncate(time.Second),
	}
	if err := e.store.CreateAccount(ctx, a); err != nil {
		e.t.Fatal(err)
	}
	secret, _, err := auth.Issue(ctx, e.store, e.hasher, a.ID, e.clock.Now(), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.ID, secret
}

type request struct {
	method, path, key, body string
	header                  http.Header
}

// do sends r through the handler and, when the env has a spec, checks the
// response against openapi.yaml.
func (e *env) do(r request) *httptest.ResponseRecorder {
	e.t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req := httptest.NewRequest(r.method, r.path, body)
	if r.body != "" && r.method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if e.spec != nil {
		e.spec.check(e.t.(*testing.T), req, rec)
	}
	return rec
}

func (e *env) get(path, key string) *httptest.ResponseRecorder {
	return e.do(request{method: "GET", path: path, key: key})
}

func (e *env) generate(key, body string) *httptest.ResponseRecorder {
	return e.do(request{method: "POST", path: "/v1/policies/generate", key: key, body: body})
}

// mustGenerate creates a policy and returns its id.
func (e *env) mustGenerate(key string) string {
	e.t.Helper()
	rec := e.generate(key, validBody)
	if rec.Code != http.StatusCreated {
		e.t.Fatalf("generate: %d %s", rec.Code, rec.Body)
	}
	var p struct{ ID string }
	decode(e.t, rec, &p)
	return p.ID
}

func decode(t testing.TB, rec *httptest.ResponseRecorder, v any) {
	t.Helper()
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("decode %q: %v", rec.Body, err)
	}
}

type problemBody struct {
	Type, Title, Detail, Code, RequestID string
	Status                               int
	Errors                               []struct {
		Field, Message, Value string
		Suggestions           []string
	}
}

// wantProblem checks rec is a problem+json with status and code.
func wantProblem(t testing.TB, rec *httptest.ResponseRecorder, status int, code string) problemBody {
	t.Helper()
	var p problemBody
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type = %q", ct)
	}
	decode(t, rec, &p)
	if p.Code != code || p.Status != status || p.Type != wire.ProblemTypeBase+code {
		t.Errorf("problem = %+v, want code %s status %d", p, code, status)
	}
	if p.RequestID == "" || p.RequestID != rec.Header().Get("X-Request-Id") {
		t.Errorf("requestId %q, X-Request-Id %q", p.RequestID, rec.Header().Get("X-Request-Id"))
	}
	return p
}

func fields(p problemBody) []string {
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Field)
	}
	return out
}
