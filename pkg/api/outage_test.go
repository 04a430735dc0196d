package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/policygen/policygen/internal/testenv"
	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/backend"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
)

// TestOutageIs503 sends requests through the whole handler to a DynamoDB
// that never answers, with the production deadline (store.CallTimeout) and
// client tuning: each is a 503 service_unavailable problem with
// Retry-After, within the deadline, whether the outage hits the key lookup,
// a write or a read. The measured time is logged for docs/STORAGE.md.
func TestOutageIs503(t *testing.T) {
	e := newEnv(t)
	e.spec = loadSpec(t)
	_, key := e.account(account.Agency)

	down := silentStore(t, store.CallTimeout)

	check := func(t *testing.T, h http.Handler, r request, deadline time.Duration) {
		t.Helper()
		e.h = h
		start := time.Now()
		rec := e.do(r)
		took := time.Since(start)
		t.Logf("%s %s: %d after %s (deadline %s)", r.method, r.path, rec.Code, took.Round(time.Millisecond), deadline)
		wantProblem(t, rec, http.StatusServiceUnavailable, "service_unavailable")
		if got := rec.Header().Get("Retry-After"); got != "2" {
			t.Errorf("Retry-After = %q, want 2", got)
		}
		// A correctness bound: one deadline and scheduling slack, never a
		// hang for as long as the client waits.
		if took > deadline+time.Second {
			t.Errorf("answered after %s; the deadline is %s", took, deadline)
		}
	}

	t.Run("key lookup", func(t *testing.T) {
		d := e.deps
		d.Store = down
		d.Auth = &auth.Authenticator{Store: down, Hasher: e.hasher, Now: e.clock.Now}
		check(t, api.NewServer(d), request{method: "GET", path: "/v1/auth/profile", key: key}, store.CallTimeout)
	})
	// Keys verified on the working store, policies on the silent one; a
	// short deadline keeps the test quick (the production one is measured
	// above).
	const short = 200 * time.Millisecond
	d := e.deps
	d.Store = silentStore(t, short)
	h := api.NewServer(d)
	t.Run("generate", func(t *testing.T) {
		check(t, h, request{method: "POST", path: "/v1/policies/generate", key: key, body: validBody}, short)
	})
	t.Run("list", func(t *testing.T) {
		check(t, h, request{method: "GET", path: "/v1/policies", key: key}, short)
	})
	t.Run("delete", func(t *testing.T) {
		check(t, h, request{method: "DELETE", path: "/v1/policies/" + ids.New(ids.Policy), key: key}, short)
	})
}

// silentStore is a DynamoDB store, tuned as in production, on an endpoint
// that accepts connections and never answers, each call bounded by d.
func silentStore(t *testing.T, d time.Duration) store.Store {
	t.Helper()
	t.Setenv(dynamo.EndpointEnv, testenv.SilentEndpoint(t))
	client, err := backend.DynamoClient(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return store.WithDeadline(dynamo.New(client, "policygen-test"), d)
}
