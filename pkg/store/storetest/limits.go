package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
)

// Concurrency of the tests that race requests: the 16.
const racers = 16

func claim(acct, key string) store.IdempotencyClaim {
	return store.IdempotencyClaim{AccountID: acct, Key: key, Owner: ids.New("own_")}
}

var quotaTests = []test{
	{"QuotaRefusesTheWriteOverIt", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		for range 2 {
			if err := st.CreatePolicy(ctx(t), newPolicy(acct, base), store.CreateOptions{Quota: 2}); err != nil {
				t.Fatal(err)
			}
		}
		over := newPolicy(acct, base)
		err := st.CreatePolicy(ctx(t), over, store.CreateOptions{Quota: 2})
		if !errors.Is(err, store.ErrQuotaExceeded) {
			t.Fatalf("third create with quota 2 = %v, want quota_exceeded", err)
		}
		// Nothing of the refused policy is stored or counted.
		if _, err := st.Policy(ctx(t), acct, over.ID); !errs.Is(err, errs.NotFound) {
			t.Errorf("refused policy readable: %v", err)
		}
		if got := count(t, st, acct, store.Month(base)); got != 2 {
			t.Errorf("count = %d, want 2", got)
		}
		// The quota is per month: next month starts empty.
		next := newPolicy(acct, base.AddDate(0, 1, 0))
		if err := st.CreatePolicy(ctx(t), next, store.CreateOptions{Quota: 2}); err != nil {
			t.Errorf("next month: %v", err)
		}
		// A higher quota (a plan upgrade) lets the account continue.
		if err := st.CreatePolicy(ctx(t), newPolicy(acct, base), store.CreateOptions{Quota: 3}); err != nil {
			t.Errorf("quota 3: %v", err)
		}
	}},
	{"QuotaExactUnderConcurrency", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		const quota = 5
		var wg sync.WaitGroup
		results := make(chan error, racers)
		for range racers {
			wg.Go(func() {
				results <- st.CreatePolicy(ctx(t), newPolicy(acct, base), store.CreateOptions{Quota: quota})
			})
		}
		wg.Wait()
		close(results)
		created, refused := 0, 0
		for err := range results {
			switch {
			case err == nil:
				created++
			case errors.Is(err, store.ErrQuotaExceeded):
				refused++
			default:
				t.Errorf("unexpected: %v", err)
			}
		}
		if created != quota || refused != racers-quota {
			t.Errorf("%d created, %d refused; want %d and %d", created, refused, quota, racers-quota)
		}
		if got := count(t, st, acct, store.Month(base)); got != quota {
			t.Errorf("count = %d, want %d", got, quota)
		}
		if got, _ := listAll(t, st, acct, 100); len(got) != quota {
			t.Errorf("%d policies stored, want %d", len(got), quota)
		}
	}},
}

var rateTests = []test{
	{"CountsUpToTheLimit", func(t *testing.T, st store.Store) {
		acct, key := ids.New(ids.Account), ids.New(ids.Key)
		w := base.Truncate(time.Minute)
		for i := 1; i <= 3; i++ {
			n, ok, err := st.CountRequest(ctx(t), acct, key, w, 3)
			if err != nil || !ok || n != i {
				t.Fatalf("request %d: %d, %v, %v", i, n, ok, err)
			}
		}
		n, ok, err := st.CountRequest(ctx(t), acct, key, w, 3)
		if err != nil || ok || n != 3 {
			t.Fatalf("request over the limit: %d, %v, %v; want 3, false", n, ok, err)
		}
		// Another window, another key, another account: their own counts.
		for _, c := range []struct {
			acct, key string
			w         time.Time
		}{
			{acct, key, w.Add(time.Minute)}, {acct, ids.New(ids.Key), w}, {ids.New(ids.Account), key, w},
		} {
			if n, ok, err := st.CountRequest(ctx(t), c.acct, c.key, c.w, 3); err != nil || !ok || n != 1 {
				t.Errorf("fresh counter: %d, %v, %v", n, ok, err)
			}
		}
	}},
	{"ExactUnderConcurrency", func(t *testing.T, st store.Store) {
		acct, key := ids.New(ids.Account), ids.New(ids.Key)
		w := base.Truncate(time.Minute)
		const limit = 7
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			allowed []int
			refused int
		)
		for range racers {
			wg.Go(func() {
				n, ok, err := st.CountRequest(ctx(t), acct, key, w, limit)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Error(err)
				case ok:
					allowed = append(allowed, n)
				default:
					refused++
				}
			})
		}
		wg.Wait()
		if len(allowed) != limit || refused != racers-limit {
			t.Errorf("%d allowed, %d refused; want %d and %d", len(allowed), refused, limit, racers-limit)
		}
		seen := map[int]bool{}
		for _, n := range allowed {
			if n < 1 || n > limit || seen[n] {
				t.Errorf("counts %v: each of 1..%d exactly once", allowed, limit)
				break
			}
			seen[n] = true
		}
	}},
}

var idempotencyTests = []test{
	{"ClaimCompleteReplay", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		now := base
		c := claim(acct, "order-42")
		if rec, err := st.BeginIdempotent(ctx(t), c, "fp1", now); err != nil || rec != nil {
			t.Fatalf("first claim: %+v, %v; want it granted", rec, err)
		}
		// While pending, a second request sees the pending record.
		c2 := claim(acct, "order-42")
		rec, err := st.BeginIdempotent(ctx(t), c2, "fp1", now.Add(time.Second))
		if err != nil || rec == nil || rec.Done || rec.Fingerprint != "fp1" {
			t.Fatalf("second claim while pending: %+v, %v", rec, err)
		}
		body := []byte(`{"id":"pol_1","content":"` + strings.Repeat("é", 3000) + `"}` + "\n")
		res := store.IdempotentResult{Claim: c, Status: 201, Location: "/v1/policies/pol_1", Body: body, At: now}
		if err := st.CompleteIdempotent(ctx(t), c2Result(res, c2)); !errors.Is(err, store.ErrClaimLost) {
			t.Errorf("completing someone else's claim = %v, want claim lost", err)
		}
		if err := st.CompleteIdempotent(ctx(t), res); err != nil {
			t.Fatal(err)
		}
		rec, err = st.BeginIdempotent(ctx(t), c2, "fp2", now.Add(time.Hour))
		if err != nil || rec == nil || !rec.Done || rec.Status != 201 || rec.Location != res.Location || !bytes.Equal(rec.Body, body) || rec.Fingerprint != "fp1" {
			t.Fatalf("replay: %+v, %v", rec, err)
		}
		// Stores may keep milliseconds only.
		if d := now.Sub(rec.CreatedAt); d < 0 || d >= time.Millisecond {
			t.Errorf("CreatedAt = %v, want %v", rec.CreatedAt, now)
		}
		// A completed record cannot be released or completed again.
		if err := st.ReleaseIdempotent(ctx(t), c); err != nil {
			t.Fatal(err)
		}
		if rec, _ := st.BeginIdempotent(ctx(t), c2, "fp1", now.Add(time.Hour)); rec == nil || !rec.Done {
			t.Errorf("release removed a completed record: %+v", rec)
		}
		// After IdempotencyTTL the key is free again.
		if rec, err := st.BeginIdempotent(ctx(t), c2, "fp3", now.Add(store.IdempotencyTTL)); err != nil || rec != nil {
			t.Errorf("claim after the TTL: %+v, %v; want it granted", rec, err)
		}
		// Keys are per account.
		if rec, err := st.BeginIdempotent(ctx(t), claim(ids.New(ids.Account), "order-42"), "fp1", now); err != nil || rec != nil {
			t.Errorf("another account's claim on the same key: %+v, %v", rec, err)
		}
	}},
	{"ReleaseAndLease", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		c := claim(acct, "k")
		if rec, err := st.BeginIdempotent(ctx(t), c, "fp", base); err != nil || rec != nil {
			t.Fatal(rec, err)
		}
		// Someone else's release leaves the claim alone.
		if err := st.ReleaseIdempotent(ctx(t), claim(acct, "k")); err != nil {
			t.Fatal(err)
		}
		if rec, _ := st.BeginIdempotent(ctx(t), claim(acct, "k"), "fp", base); rec == nil {
			t.Fatal("a foreign release freed the key")
		}
		if err := st.ReleaseIdempotent(ctx(t), c); err != nil {
			t.Fatal(err)
		}
		c2 := claim(acct, "k")
		if rec, err := st.BeginIdempotent(ctx(t), c2, "fp", base); err != nil || rec != nil {
			t.Fatalf("claim after release: %+v, %v", rec, err)
		}
		// A pending claim whose lease ran out (its process died) is taken over.
		c3 := claim(acct, "k")
		if rec, _ := st.BeginIdempotent(ctx(t), c3, "fp", base.Add(store.IdempotencyLease-time.Millisecond)); rec == nil {
			t.Fatal("claim taken over before the lease ended")
		}
		if rec, err := st.BeginIdempotent(ctx(t), c3, "fp", base.Add(store.IdempotencyLease)); err != nil || rec != nil {
			t.Fatalf("claim after the lease: %+v, %v", rec, err)
		}
		if err := st.CompleteIdempotent(ctx(t), store.IdempotentResult{Claim: c2, Status: 200, Body: []byte("{}")}); !errors.Is(err, store.ErrClaimLost) {
			t.Errorf("the dead claim completed: %v", err)
		}
	}},
	{"OneClaimWinsUnderConcurrency", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			won    int
			others int
		)
		for range racers {
			wg.Go(func() {
				rec, err := st.BeginIdempotent(ctx(t), claim(acct, "same"), "fp", base)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Error(err)
				case rec == nil:
					won++
				default:
					others++
				}
			})
		}
		wg.Wait()
		if won != 1 || others != racers-1 {
			t.Errorf("%d claims granted, %d refused; want 1 and %d", won, others, racers-1)
		}
	}},
	{"CompletedWithThePolicy", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		c := claim(acct, "gen-1")
		if rec, err := st.BeginIdempotent(ctx(t), c, "fp", base); err != nil || rec != nil {
			t.Fatal(rec, err)
		}
		p := newPolicy(acct, base)
		res := &store.IdempotentResult{Claim: c, Status: 201, Location: "/v1/policies/" + p.ID, Body: []byte("body"), At: base}
		if err := st.CreatePolicy(ctx(t), p, store.CreateOptions{Idempotency: res}); err != nil {
			t.Fatal(err)
		}
		rec, err := st.BeginIdempotent(ctx(t), claim(acct, "gen-1"), "fp", base)
		if err != nil || rec == nil || !rec.Done || string(rec.Body) != "body" {
			t.Fatalf("record after CreatePolicy: %+v, %v", rec, err)
		}
		// A claim lost before the write: nothing is stored or counted.
		lost := claim(acct, "gen-2")
		q := newPolicy(acct, base)
		err = st.CreatePolicy(ctx(t), q, store.CreateOptions{Idempotency: &store.IdempotentResult{Claim: lost, Status: 201, Body: []byte("x")}})
		if !errors.Is(err, store.ErrClaimLost) {
			t.Fatalf("CreatePolicy with an unheld claim = %v, want claim lost", err)
		}
		if _, err := st.Policy(ctx(t), acct, q.ID); !errs.Is(err, errs.NotFound) {
			t.Errorf("policy of a lost claim stored: %v", err)
		}
		if got := count(t, st, acct, store.Month(base)); got != 1 {
			t.Errorf("count = %d, want 1", got)
		}
		// Over quota: neither the policy nor the outcome is kept.
		c3 := claim(acct, "gen-3")
		if rec, err := st.BeginIdempotent(ctx(t), c3, "fp", base); err != nil || rec != nil {
			t.Fatal(rec, err)
		}
		err = st.CreatePolicy(ctx(t), newPolicy(acct, base), store.CreateOptions{Quota: 1, Idempotency: &store.IdempotentResult{Claim: c3, Status: 201, Body: []byte("x")}})
		if !errors.Is(err, store.ErrQuotaExceeded) {
			t.Fatalf("over quota = %v", err)
		}
		if rec, _ := st.BeginIdempotent(ctx(t), claim(acct, "gen-3"), "fp", base); rec == nil || rec.Done {
			t.Errorf("record after a refused write: %+v, want still pending", rec)
		}
	}},
	{"ReplayOutlivesTheDelete", func(t *testing.T, st store.Store) {
		// A generate's stored response replays byte for byte for as long
		// as its record lives, even after the policy is deleted (the
		// DynamoDB store keeps the response as a delta against the policy).
		acct := ids.New(ids.Account)
		c := claim(acct, "gen-del")
		if rec, err := st.BeginIdempotent(ctx(t), c, "fp", base); err != nil || rec != nil {
			t.Fatal(rec, err)
		}
		p := newPolicy(acct, base)
		p.Content = "# Privacy Policy\n\nWe & our <partners> process \"personal data\".\n" + strings.Repeat("Line of the policy.\n", 200)
		var body bytes.Buffer
		enc := json.NewEncoder(&body)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(struct {
			ID string `json:"id"`
			store.Summary
			CreatedAt string `json:"createdAt"`
			Content   string `json:"content"`
		}{p.ID, p.Summary, p.CreatedAt.Format(time.RFC3339), p.Content}); err != nil {
			t.Fatal(err)
		}
		res := &store.IdempotentResult{Claim: c, Status: 201, Location: "/v1/policies/" + p.ID, Body: body.Bytes(), At: base}
		if err := st.CreatePolicy(ctx(t), p, store.CreateOptions{Idempotency: res}); err != nil {
			t.Fatal(err)
		}
		if err := st.DeletePolicy(ctx(t), acct, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Policy(ctx(t), acct, p.ID); !errs.Is(err, errs.NotFound) {
			t.Errorf("Policy after delete = %v, want NotFound", err)
		}
		if err := st.DeletePolicy(ctx(t), acct, p.ID); !errs.Is(err, errs.NotFound) {
			t.Errorf("second delete = %v, want NotFound", err)
		}
		if page, err := st.ListPolicies(ctx(t), acct, store.ListOptions{Limit: 10}); err != nil || len(page.Items) != 0 {
			t.Errorf("list after delete: %+v, %v", page, err)
		}
		rec, err := st.BeginIdempotent(ctx(t), claim(acct, "gen-del"), "fp", base.Add(time.Minute))
		if err != nil || rec == nil || !rec.Done || rec.Status != 201 || rec.Location != res.Location {
			t.Fatalf("record after delete: %+v, %v", rec, err)
		}
		if !bytes.Equal(rec.Body, res.Body) {
			t.Errorf("replayed body differs:\n%s\nwant\n%s", rec.Body, res.Body)
		}
	}},
}

func c2Result(r store.IdempotentResult, c store.IdempotencyClaim) store.IdempotentResult {
	r.Claim = c
	return r
}

var listingTests = []test{
	{"ListAccountsAndKeys", func(t *testing.T, st store.Store) {
		a, b := newAccount(account.Agency), newAccount(account.Pro)
		mustCreateAccount(t, st, a)
		mustCreateAccount(t, st, b)
		k1, k2 := newKey(a.ID, nil), newKey(a.ID, nil)
		mustCreateKey(t, st, k1)
		mustCreateKey(t, st, k2)
		mustCreateKey(t, st, newKey(b.ID, nil))
		if _, err := st.RevokeKey(ctx(t), k2.ID, base); err != nil {
			t.Fatal(err)
		}
		// Other tests share the store: look for these accounts among all.
		all, err := st.ListAccounts(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]account.Account{}
		for _, x := range all {
			found[x.ID] = x
		}
		for _, want := range []account.Account{a, b} {
			got, ok := found[want.ID]
			if !ok || got.Email != want.Email || got.Plan != want.Plan || !got.CreatedAt.Equal(want.CreatedAt) {
				t.Errorf("ListAccounts: %s = %+v, %v; want %+v", want.ID, got, ok, want)
			}
		}
		if err := st.SetPlan(ctx(t), b.ID, account.Agency); err != nil {
			t.Fatal(err)
		}
		all, _ = st.ListAccounts(ctx(t))
		for _, x := range all {
			if x.ID == b.ID && x.Plan != account.Agency {
				t.Errorf("ListAccounts after SetPlan: plan %s", x.Plan)
			}
		}
		keys, err := st.AccountKeys(ctx(t), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != 2 {
			t.Fatalf("AccountKeys = %d keys, want 2", len(keys))
		}
		byID := map[string]account.Key{keys[0].ID: keys[0], keys[1].ID: keys[1]}
		if byID[k1.ID].RevokedAt != nil || byID[k2.ID].RevokedAt == nil || byID[k1.ID].Last4 != k1.Last4 {
			t.Errorf("AccountKeys = %+v", keys)
		}
		if _, err := st.AccountKeys(ctx(t), ids.New(ids.Account)); !errs.Is(err, errs.NotFound) {
			t.Errorf("AccountKeys(unknown account) = %v, want NotFound", err)
		}
	}},
}
