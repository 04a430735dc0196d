package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/bolt"
)

// stalled is a real store whose reads of one account wait for the caller's
// context: a store that has stopped answering, for the decorator's sake.
type stalled struct {
	store.Store
	stuck string
}

func (s stalled) Account(ctx context.Context, id string) (account.Account, error) {
	if id == s.stuck {
		<-ctx.Done()
		return account.Account{}, ctx.Err()
	}
	return s.Store.Account(ctx, id)
}

func open(t *testing.T) store.Store {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestWithDeadline(t *testing.T) {
	db := open(t)
	a := account.Account{ID: "acct_1", Email: "a@example.com", Plan: account.Agency, CreatedAt: time.Now().UTC()}
	if err := db.CreateAccount(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	st := store.WithDeadline(stalled{Store: db, stuck: "acct_stuck"}, 50*time.Millisecond)

	// Calls that answer pass through unchanged, errors included.
	if got, err := st.Account(t.Context(), "acct_1"); err != nil || got.ID != "acct_1" {
		t.Fatalf("Account = %+v, %v", got, err)
	}
	if _, err := st.Account(t.Context(), "acct_none"); !errors.Is(err, store.ErrAccountNotFound) {
		t.Errorf("missing account = %v, want account_not_found", err)
	}

	// A call that outlives its deadline is Unavailable, within the deadline.
	start := time.Now()
	_, err := st.Account(t.Context(), "acct_stuck")
	if !errs.Is(err, errs.Unavailable) || errs.As(err).Code != "service_unavailable" || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("stalled call = %v, want service_unavailable wrapping the deadline", err)
	}
	if took := time.Since(start); took < 50*time.Millisecond || took > time.Second {
		t.Errorf("stalled call took %s, want the 50 ms deadline", took)
	}

	// The caller's own cancellation stays the caller's: not an outage.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := st.Account(ctx, "acct_stuck"); errs.Is(err, errs.Unavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call = %v, want context.Canceled", err)
	}

	// A caller deadline shorter than the store's is the caller's too.
	short, cancel2 := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel2()
	if _, err := st.Account(short, "acct_stuck"); errs.Is(err, errs.Unavailable) {
		t.Errorf("caller's deadline reported as an outage: %v", err)
	}

	// 0 means the default (a zero deadline would fail every call), and
	// Unwrap finds the wrapped store.
	def := store.WithDeadline(db, 0)
	if got, err := def.Account(t.Context(), "acct_1"); err != nil || got.ID != "acct_1" {
		t.Errorf("WithDeadline(0).Account = %+v, %v", got, err)
	}
	if inner, ok := store.Unwrap(def); !ok || inner != db {
		t.Errorf("Unwrap = %v, %v", inner, ok)
	}
	if _, ok := store.Unwrap(db); ok {
		t.Error("Unwrap of an unwrapped store reports a wrapper")
	}
}

// Every method of the decorator reaches the wrapped store.
func TestWithDeadlinePassesEveryCall(t *testing.T) {
	db := open(t)
	st := store.WithDeadline(db, time.Second)
	ctx := t.Context()
	now := time.Now().UTC()
	a := account.Account{ID: "acct_2", Email: "b@example.com", Plan: account.Pro, CreatedAt: now}
	if err := st.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := st.SetPlan(ctx, a.ID, account.Agency); err != nil {
		t.Fatal(err)
	}
	if has, err := st.HasAccounts(ctx); err != nil || !has {
		t.Fatal(has, err)
	}
	if all, err := st.ListAccounts(ctx); err != nil || len(all) != 1 || all[0].Plan != account.Agency {
		t.Fatal(all, err)
	}
	k := account.Key{ID: "key_1", AccountID: a.ID, Hash: "h1", Prefix: "pol_live_", Last4: "abcd", CreatedAt: now}
	if err := st.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if got, err := st.KeyByHash(ctx, "h1"); err != nil || got.ID != k.ID {
		t.Fatal(got, err)
	}
	if got, err := st.Key(ctx, k.ID); err != nil || got.Hash != "h1" {
		t.Fatal(got, err)
	}
	if keys, err := st.AccountKeys(ctx, a.ID); err != nil || len(keys) != 1 {
		t.Fatal(keys, err)
	}
	if got, err := st.RevokeKey(ctx, k.ID, now); err != nil || got.RevokedAt == nil {
		t.Fatal(got, err)
	}
	p := store.Policy{Summary: store.Summary{ID: "plc_01m8000000000000000000000a", AccountID: a.ID, CreatedAt: now}, Content: "x"}
	c := store.IdempotencyClaim{AccountID: a.ID, Key: "k", Owner: "o"}
	if rec, err := st.BeginIdempotent(ctx, c, "fp", now); err != nil || rec != nil {
		t.Fatal(rec, err)
	}
	if err := st.CreatePolicy(ctx, p, store.CreateOptions{Quota: 1, Idempotency: &store.IdempotentResult{Claim: c, Status: 201, Body: []byte("b")}}); err != nil {
		t.Fatal(err)
	}
	if err := st.CompleteIdempotent(ctx, store.IdempotentResult{Claim: c, Status: 201}); !errors.Is(err, store.ErrClaimLost) {
		t.Fatalf("CompleteIdempotent of a completed claim = %v", err)
	}
	if err := st.ReleaseIdempotent(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Policy(ctx, a.ID, p.ID); err != nil || got.Content != "x" {
		t.Fatal(got, err)
	}
	if page, err := st.ListPolicies(ctx, a.ID, store.ListOptions{Limit: 10}); err != nil || len(page.Items) != 1 {
		t.Fatal(page, err)
	}
	if n, err := st.GenerationCount(ctx, a.ID, store.Month(now)); err != nil || n != 1 {
		t.Fatal(n, err)
	}
	if n, ok, err := st.CountRequest(ctx, a.ID, k.ID, now.Truncate(time.Minute), 1); err != nil || !ok || n != 1 {
		t.Fatal(n, ok, err)
	}
	if n, ok, err := st.CountRequest(ctx, a.ID, k.ID, now.Truncate(time.Minute), 1); err != nil || ok || n != 1 {
		t.Fatal(n, ok, err)
	}
	if err := st.DeletePolicy(ctx, a.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}
