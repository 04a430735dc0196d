package api_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// future is the clock of these tests: DynamoDB Local deletes items whose
// TTL has passed within about a second, so records and counters must expire
// after the real clock, never before.
var future = time.Date(2030, 3, 14, 15, 9, 26, 0, time.UTC)

// stores runs fn against a handler on each store: bbolt and DynamoDB Local.
func stores(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Run("bolt", func(t *testing.T) {
		e := newEnv(t)
		e.clock.Set(future)
		fn(t, e)
	})
	t.Run("dynamodb", func(t *testing.T) {
		client, table := dynamotest.Table(t)
		e := newEnvStore(t, dynamo.New(client, table))
		e.clock.Set(future)
		fn(t, e)
	})
}

func withKey(key, idem string) request {
	return request{method: "POST", path: "/v1/policies/generate", key: key, body: validBody,
		header: http.Header{"Idempotency-Key": {idem}}}
}

func usage(t *testing.T, e *env, acct string) int {
	t.Helper()
	n, err := e.store.GenerationCount(t.Context(), acct, store.Month(e.clock.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func policyCount(t *testing.T, e *env, acct string) int {
	t.Helper()
	page, err := e.store.ListPolicies(t.Context(), acct, store.ListOptions{Limit: store.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Items)
}

func TestIdempotentGenerate(t *testing.T) {
	stores(t, func(t *testing.T, e *env) {
		e.spec = loadSpec(t)
		acct, key := e.account(account.Agency)

		first := e.do(withKey(key, "order-7f3c"))
		if first.Code != http.StatusCreated || first.Header().Get(api.IdempotentReplayedHeader) != "" {
			t.Fatalf("first: %d %v %s", first.Code, first.Header(), first.Body)
		}
		e.clock.Add(time.Hour) // a retry much later, within 24 h
		again := e.do(withKey(key, "order-7f3c"))
		if again.Code != http.StatusCreated || again.Header().Get(api.IdempotentReplayedHeader) != "true" {
			t.Fatalf("retry: %d %v", again.Code, again.Header())
		}
		if !bytes.Equal(first.Body.Bytes(), again.Body.Bytes()) || first.Header().Get("Location") != again.Header().Get("Location") {
			t.Errorf("replay differs:\n%s\n%s", first.Body, again.Body)
		}
		if n, u := policyCount(t, e, acct), usage(t, e, acct); n != 1 || u != 1 {
			t.Errorf("%d policies, usage %d after a replay; want 1 and 1", n, u)
		}

		// The same key with another body.
		other := withKey(key, "order-7f3c")
		other.body = strings.Replace(validBody, "Acme", "Other", 1)
		wantProblem(t, e.do(other), http.StatusUnprocessableEntity, "idempotency_key_reused")

		// A failed request keeps nothing: the same key then works.
		bad := withKey(key, "fix-and-retry")
		bad.body = `{"type":"privacy"}`
		wantProblem(t, e.do(bad), http.StatusUnprocessableEntity, "validation_failed")
		if rec := e.do(withKey(key, "fix-and-retry")); rec.Code != http.StatusCreated {
			t.Errorf("retry after a failed request: %d %s", rec.Code, rec.Body)
		}

		// Keys belong to the account: another account's same key is new.
		acctB, keyB := e.account(account.Agency)
		if rec := e.do(withKey(keyB, "order-7f3c")); rec.Code != http.StatusCreated || rec.Header().Get(api.IdempotentReplayedHeader) != "" {
			t.Errorf("another account's key: %d %v", rec.Code, rec.Header())
		}
		if n := policyCount(t, e, acctB); n != 1 {
			t.Errorf("account B has %d policies", n)
		}

		// A request still running holds the key: 409.
		claim := store.IdempotencyClaim{AccountID: acct, Key: "running", Owner: "someone"}
		fp := "" // any fingerprint of the same request: the claim is pending
		if rec, err := e.store.BeginIdempotent(t.Context(), claim, fp, e.clock.Now()); err != nil || rec != nil {
			t.Fatal(rec, err)
		}
		wantProblem(t, e.do(withKey(key, "running")), http.StatusUnprocessableEntity, "idempotency_key_reused")
		// ...and with the same fingerprint the answer is in progress.
		claim2 := store.IdempotencyClaim{AccountID: acct, Key: "running-2", Owner: "someone"}
		if rec, err := e.store.BeginIdempotent(t.Context(), claim2, fingerprintOf(validBody), e.clock.Now()); err != nil || rec != nil {
			t.Fatal(rec, err)
		}
		wantProblem(t, e.do(withKey(key, "running-2")), http.StatusConflict, "idempotency_request_in_progress")
		// Once its lease has run out, a retry takes over.
		e.clock.Add(store.IdempotencyLease)
		if rec := e.do(withKey(key, "running-2")); rec.Code != http.StatusCreated {
			t.Errorf("after the lease: %d %s", rec.Code, rec.Body)
		}

		// Expired after 24 hours: the key generates anew.
		e.clock.Add(store.IdempotencyTTL)
		if rec := e.do(withKey(key, "order-7f3c")); rec.Code != http.StatusCreated || rec.Header().Get(api.IdempotentReplayedHeader) != "" {
			t.Errorf("after 24 h: %d %v", rec.Code, rec.Header())
		}

		for _, k := range []string{"", strings.Repeat("k", 256), "tab\there", "é"} {
			wantProblem(t, e.do(withKey(key, k)), http.StatusBadRequest, "invalid_idempotency_key")
		}
		r := withKey(key, "a")
		r.header["Idempotency-Key"] = []string{"a", "b"}
		wantProblem(t, e.do(r), http.StatusBadRequest, "invalid_idempotency_key")
	})
}

// fingerprintOf is the fingerprint pkg/api computes for a generate request
// with body: what a concurrent identical request would have claimed with.
func fingerprintOf(body string) string {
	return api.Fingerprint("POST", "/v1/policies/generate", []byte(body))
}

// TestIdempotentConcurrent: 16 identical requests at once create exactly one
// policy and count one generation; each answer is the one policy (201, the
// first or a replay) or 409 while it is being made.
func TestIdempotentConcurrent(t *testing.T) {
	stores(t, func(t *testing.T, e *env) {
		acct, key := e.account(account.Agency)
		const n = 16
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			codes = map[int]int{}
			ids   = map[string]bool{}
		)
		for range n {
			wg.Go(func() {
				rec := e.do(withKey(key, "burst-1"))
				mu.Lock()
				defer mu.Unlock()
				codes[rec.Code]++
				if rec.Code == http.StatusCreated {
					ids[rec.Header().Get("Location")] = true
				}
			})
		}
		wg.Wait()
		t.Logf("answers: %v", codes)
		if codes[http.StatusCreated]+codes[http.StatusConflict] != n || codes[http.StatusCreated] < 1 || len(ids) != 1 {
			t.Errorf("answers %v, locations %v: want 201s for one policy and 409s", codes, ids)
		}
		if p, u := policyCount(t, e, acct), usage(t, e, acct); p != 1 || u != 1 {
			t.Errorf("%d policies, usage %d; want exactly 1 and 1", p, u)
		}
	})
}

func TestRateLimit(t *testing.T) {
	stores(t, func(t *testing.T, e *env) {
		e.setLimits(100, 3)
		e.spec = loadSpec(t)
		_, key := e.account(account.Agency)
		_, other := e.account(account.Agency)
		// 20 s into the minute: the window resets in 40 s.
		e.clock.Set(time.Date(2030, 3, 14, 15, 9, 20, 0, time.UTC))
		for i := 1; i <= 3; i++ {
			rec := e.get("/v1/auth/profile", key)
			if rec.Code != http.StatusOK {
				t.Fatalf("request %d: %d", i, rec.Code)
			}
			if got, want := rec.Header().Get("RateLimit-Policy"), `"per-key";q=3;w=60`; got != want {
				t.Errorf("RateLimit-Policy = %q, want %q", got, want)
			}
			if got, want := rec.Header().Get("RateLimit"), fmt.Sprintf(`"per-key";r=%d;t=40`, 3-i); got != want {
				t.Errorf("RateLimit = %q, want %q", got, want)
			}
		}
		rec := e.get("/v1/policies", key)
		wantProblem(t, rec, http.StatusTooManyRequests, "rate_limited")
		if rec.Header().Get("Retry-After") != "40" || rec.Header().Get("RateLimit") != `"per-key";r=0;t=40` {
			t.Errorf("429 headers: %v", rec.Header())
		}
		// Other keys have their own count.
		if rec := e.get("/v1/auth/profile", other); rec.Code != http.StatusOK {
			t.Errorf("another key: %d", rec.Code)
		}
		// A refused request is not counted; the next window starts afresh.
		e.clock.Set(time.Date(2030, 3, 14, 15, 10, 0, 0, time.UTC))
		if rec := e.get("/v1/auth/profile", key); rec.Code != http.StatusOK || rec.Header().Get("RateLimit") != `"per-key";r=2;t=60` {
			t.Errorf("next minute: %d %v", rec.Code, rec.Header().Get("RateLimit"))
		}
	})
}

func TestQuota(t *testing.T) {
	stores(t, func(t *testing.T, e *env) {
		e.setLimits(2, 100)
		e.spec = loadSpec(t)
		acct, key := e.account(account.Agency)
		e.clock.Set(time.Date(2030, 3, 31, 23, 0, 0, 0, time.UTC)) // an hour before the reset
		for range 2 {
			if rec := e.generate(key, validBody); rec.Code != http.StatusCreated {
				t.Fatalf("generate: %d %s", rec.Code, rec.Body)
			}
		}
		rec := e.generate(key, validBody)
		p := wantProblem(t, rec, http.StatusTooManyRequests, "quota_exceeded")
		if !strings.Contains(p.Detail, "2030-04-01T00:00:00Z") || rec.Header().Get("Retry-After") != "3600" {
			t.Errorf("quota 429: %q, Retry-After %q", p.Detail, rec.Header().Get("Retry-After"))
		}
		if rec.Header().Get("RateLimit-Policy") != `"per-key";q=100;w=60, "monthly";q=2;w=2678400` ||
			rec.Header().Get("RateLimit") != `"per-key";r=97;t=60, "monthly";r=0;t=3600` {
			t.Errorf("quota 429 RateLimit fields: %q / %q", rec.Header().Get("RateLimit-Policy"), rec.Header().Get("RateLimit"))
		}
		if n, u := policyCount(t, e, acct), usage(t, e, acct); n != 2 || u != 2 {
			t.Errorf("%d policies, usage %d; want 2 and 2", n, u)
		}
		// A quota 429 keeps no idempotent outcome: the key works next month.
		wantProblem(t, e.do(withKey(key, "april")), http.StatusTooManyRequests, "quota_exceeded")

		var prof struct {
			Limits struct{ MonthlyGenerations, RequestsPerMinute int }
			Usage  struct {
				Month                  string
				Generations, Remaining int
				ResetsAt               string
			}
		}
		decode(t, e.get("/v1/auth/profile", key), &prof)
		if prof.Limits.MonthlyGenerations != 2 || prof.Usage.Generations != 2 || prof.Usage.Remaining != 0 || prof.Usage.ResetsAt != "2030-04-01T00:00:00Z" {
			t.Errorf("profile: %+v", prof)
		}
		e.clock.Set(time.Date(2030, 4, 1, 0, 0, 0, 0, time.UTC))
		if rec := e.do(withKey(key, "april")); rec.Code != http.StatusCreated {
			t.Errorf("next month: %d %s", rec.Code, rec.Body)
		}
	})
}

// The plan limits in docs/LIMITS.md are the ones the code applies.
func TestLimitsDocumented(t *testing.T) {
	raw, err := os.ReadFile("../../docs/LIMITS.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for _, plan := range account.Plans {
		l := plan.Limits()
		row := fmt.Sprintf("| %s | %s | %s |", strings.ToUpper(string(plan[:1]))+string(plan[1:]),
			thousands(l.MonthlyGenerations), strconv.Itoa(l.RequestsPerMinute))
		if !strings.Contains(doc, row) {
			t.Errorf("docs/LIMITS.md lacks the row %q", row)
		}
	}
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// countingKeyStore counts key lookups on a real store.
type countingKeyStore struct {
	store.Store
	mu      sync.Mutex
	lookups int
}

func (s *countingKeyStore) KeyByHash(ctx context.Context, hash string) (account.Key, error) {
	s.mu.Lock()
	s.lookups++
	s.mu.Unlock()
	return s.Store.KeyByHash(ctx, hash)
}

// A key of the right length whose checksum is wrong gets the unknown key's
// answer without a store lookup; an unknown well-formed key is looked up.
// Without the first check both would cost a read (and the answer alone
// cannot tell them apart).
func TestBadChecksumNeverReachesStore(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	cs := &countingKeyStore{Store: e.store}
	e.deps.Auth = &auth.Authenticator{Store: cs, Hasher: e.hasher, Now: e.clock.Now}
	e.h = api.NewServer(e.deps)
	last := key[len(key)-1]
	swapped := "A"
	if last == 'A' {
		swapped = "B"
	}
	bad := key[:len(key)-1] + swapped
	wantProblem(t, e.get("/v1/auth/profile", bad), http.StatusUnauthorized, "invalid_api_key")
	if cs.lookups != 0 {
		t.Errorf("a bad checksum made %d key lookups, want 0", cs.lookups)
	}
	unknown, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, e.get("/v1/auth/profile", unknown), http.StatusUnauthorized, "invalid_api_key")
	if cs.lookups != 1 {
		t.Errorf("an unknown well-formed key made %d lookups, want 1", cs.lookups)
	}
}
