package auth

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/policygen/policygen/internal/testenv"
	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/bolt"
	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// TestRevocationSeenWithinCacheTTL measures, on each store, how long after
// a revocation and after a plan change a warm Authenticator with the
// default cache lifetime still accepts the old state: the issue's promise
// is at most 5 s. The clock advances in 100 ms steps from the change; the
// first step at which the change is seen is the measured delay.
func TestRevocationSeenWithinCacheTTL(t *testing.T) {
	const promise = 5 * time.Second
	if DefaultCacheTTL > promise {
		t.Fatalf("DefaultCacheTTL = %s, promised at most %s", DefaultCacheTTL, promise)
	}
	stores := map[string]func(t *testing.T) store.Store{
		"bolt": func(t *testing.T) store.Store {
			db, err := bolt.Open(filepath.Join(t.TempDir(), "policygen.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		},
		"dynamodb": func(t *testing.T) store.Store {
			client, table := dynamotest.Table(t)
			return dynamo.New(client, table)
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := open(t)
			// Near the real clock: DynamoDB Local deletes items whose TTL
			// (a revoked key's: revocation + 90 days) has passed.
			now := time.Now().UTC().Truncate(time.Second)
			clock := testenv.NewClock(now)
			hasher := &Hasher{Pepper: secrets.NewStatic([]byte("test-pepper-0123456789abcdef"))}
			a := &Authenticator{Store: st, Hasher: hasher, Now: clock.Now, CacheTTL: DefaultCacheTTL}
			acct := account.Account{ID: ids.New("acct_"), Email: "o@example.com", Name: "E", Plan: account.Agency, CreatedAt: now}
			if err := st.CreateAccount(ctx, acct); err != nil {
				t.Fatal(err)
			}
			revoked, rk, err := Issue(ctx, st, hasher, acct.ID, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			kept, _, err := Issue(ctx, st, hasher, acct.ID, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Both keys are warm in the cache.
			for _, s := range []string{revoked, kept} {
				if _, err := a.Authenticate(ctx, "Bearer "+s); err != nil {
					t.Fatal(err)
				}
			}
			// The changes come right after the keys were cached: the worst
			// case, a whole cache lifetime to wait.
			changed := clock.Now()
			if _, err := st.RevokeKey(ctx, rk.ID, changed); err != nil {
				t.Fatal(err)
			}
			if err := st.SetPlan(ctx, acct.ID, account.Pro); err != nil {
				t.Fatal(err)
			}
			var revokedAfter, planAfter time.Duration = -1, -1
			for step := time.Duration(0); step <= 2*promise; step += 100 * time.Millisecond {
				clock.Set(changed.Add(step))
				if revokedAfter < 0 {
					if _, err := a.Authenticate(ctx, "Bearer "+revoked); err != nil {
						wantCode(t, err, "revoked_api_key")
						revokedAfter = step
					}
				}
				if planAfter < 0 {
					p, err := a.Authenticate(ctx, "Bearer "+kept)
					if err != nil {
						t.Fatal(err)
					}
					if p.Account.Plan == account.Pro {
						planAfter = step
					}
				}
			}
			t.Logf("%s: revocation seen after %s, plan change after %s (cache lifetime %s)", name, revokedAfter, planAfter, DefaultCacheTTL)
			if revokedAfter < 0 || revokedAfter > promise {
				t.Errorf("revocation seen after %s, want at most %s", revokedAfter, promise)
			}
			if planAfter < 0 || planAfter > promise {
				t.Errorf("plan change seen after %s, want at most %s", planAfter, promise)
			}
		})
	}
}
