// Package storetest is the contract test suite of store.Store. Every
// implementation runs it from its own tests:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { ... })
//	}
//
// The suite checks behaviour only through the Store interface, so what it
// proves holds for every backend: error kinds, tenant scoping, newest-first
// paging, byte-exact content, usage counting and concurrent writes.
package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
)

// Opener returns a new, empty store for one test and arranges (with
// t.Cleanup) for it to be closed and removed. It may be called from parallel
// subtests.
type Opener func(t *testing.T) store.Store

// base is the suite's clock, with nanoseconds so that a store losing
// precision fails. It is the real time, not a fixed date: DynamoDB (Local
// too) deletes items whose TTL has passed, and TTLs are set relative to
// these times (revocations, usage counters).
var base = time.Now().UTC().Truncate(time.Microsecond).Add(789 * time.Nanosecond)

// Run runs the whole contract suite, one subtest per behaviour, each on a
// fresh store.
func Run(t *testing.T, open Opener) {
	groups := []struct {
		name  string
		tests []test
	}{
		{"Accounts", accountTests},
		{"Keys", keyTests},
		{"Policies", policyTests},
		{"List", listTests},
		{"Usage", usageTests},
		{"Quota", quotaTests},
		{"Rate", rateTests},
		{"Idempotency", idempotencyTests},
		{"Listing", listingTests},
		{"Users", userTests},
		{"Sessions", sessionTests},
		{"KeyUse", keyUseTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tt := range g.tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					tt.fn(t, open(t))
				})
			}
		})
	}
}

type test struct {
	name string
	fn   func(t *testing.T, st store.Store)
}

var accountTests = []test{
	{"CreateAndGet", func(t *testing.T, st store.Store) {
		a := newAccount(account.Agency)
		a.Name = "Zoë's Bäckerei — 東京"
		mustCreateAccount(t, st, a)
		got, err := st.Account(ctx(t), a.ID)
		if err != nil {
			t.Fatalf("Account: %v", err)
		}
		if !reflect.DeepEqual(got, a) {
			t.Errorf("Account round trip:\n got %+v\nwant %+v", got, a)
		}
	}},
	{"DuplicateIsConflict", func(t *testing.T, st store.Store) {
		a := newAccount(account.Pro)
		mustCreateAccount(t, st, a)
		b := a
		b.Email = "other@example.com"
		wantKind(t, "CreateAccount(duplicate)", st.CreateAccount(ctx(t), b), errs.Conflict)
		got, err := st.Account(ctx(t), a.ID)
		if err != nil || got.Email != a.Email {
			t.Errorf("after a duplicate create: Account = %+v, %v; want the first one kept", got, err)
		}
	}},
	{"MissingIsNotFound", func(t *testing.T, st store.Store) {
		_, err := st.Account(ctx(t), ids.New(ids.Account))
		wantKind(t, "Account(missing)", err, errs.NotFound)
	}},
	{"SetPlan", func(t *testing.T, st store.Store) {
		a := newAccount(account.Starter)
		mustCreateAccount(t, st, a)
		for _, p := range []account.Plan{account.Agency, account.Pro, account.Agency} {
			if err := st.SetPlan(ctx(t), a.ID, p); err != nil {
				t.Fatalf("SetPlan(%s): %v", p, err)
			}
			got, err := st.Account(ctx(t), a.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := a
			want.Plan = p
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after SetPlan(%s): got %+v, want %+v", p, got, want)
			}
		}
	}},
	{"SetPlanMissingIsNotFound", func(t *testing.T, st store.Store) {
		wantKind(t, "SetPlan(missing)", st.SetPlan(ctx(t), ids.New(ids.Account), account.Pro), errs.NotFound)
		if has, err := st.HasAccounts(ctx(t)); err != nil || has {
			t.Errorf("SetPlan of a missing account created one: HasAccounts = %v, %v", has, err)
		}
	}},
	{"HasAccounts", func(t *testing.T, st store.Store) {
		has, err := st.HasAccounts(ctx(t))
		if err != nil || has {
			t.Fatalf("empty store: HasAccounts = %v, %v; want false", has, err)
		}
		mustCreateAccount(t, st, newAccount(account.Agency))
		has, err = st.HasAccounts(ctx(t))
		if err != nil || !has {
			t.Fatalf("after CreateAccount: HasAccounts = %v, %v; want true", has, err)
		}
	}},
}

var keyTests = []test{
	{"CreateAndRead", func(t *testing.T, st store.Store) {
		a := newAccount(account.Agency)
		mustCreateAccount(t, st, a)
		exp := base.Add(30 * 24 * time.Hour)
		for _, k := range []account.Key{newKey(a.ID, nil), newKey(a.ID, &exp)} {
			mustCreateKey(t, st, k)
			byHash, err := st.KeyByHash(ctx(t), k.Hash)
			if err != nil {
				t.Fatalf("KeyByHash: %v", err)
			}
			if !reflect.DeepEqual(byHash, k) {
				t.Errorf("KeyByHash:\n got %+v\nwant %+v", byHash, k)
			}
			byID, err := st.Key(ctx(t), k.ID)
			if err != nil {
				t.Fatalf("Key: %v", err)
			}
			if !reflect.DeepEqual(byID, k) {
				t.Errorf("Key:\n got %+v\nwant %+v", byID, k)
			}
		}
	}},
	{"MissingAccountIsNotFound", func(t *testing.T, st store.Store) {
		k := newKey(ids.New(ids.Account), nil)
		wantKind(t, "CreateKey(no account)", st.CreateKey(ctx(t), k), errs.NotFound)
		_, err := st.KeyByHash(ctx(t), k.Hash)
		wantKind(t, "KeyByHash after a failed create", err, errs.NotFound)
		_, err = st.Key(ctx(t), k.ID)
		wantKind(t, "Key after a failed create", err, errs.NotFound)
	}},
	{"DuplicateIDIsConflict", func(t *testing.T, st store.Store) {
		a := newAccount(account.Agency)
		mustCreateAccount(t, st, a)
		k := newKey(a.ID, nil)
		mustCreateKey(t, st, k)
		dup := newKey(a.ID, nil)
		dup.ID = k.ID
		wantKind(t, "CreateKey(duplicate id)", st.CreateKey(ctx(t), dup), errs.Conflict)
		// The losing write left nothing behind.
		_, err := st.KeyByHash(ctx(t), dup.Hash)
		wantKind(t, "KeyByHash(hash of the rejected key)", err, errs.NotFound)
		if got, err := st.Key(ctx(t), k.ID); err != nil || got.Hash != k.Hash {
			t.Errorf("Key(id) = %+v, %v; want the first key", got, err)
		}
	}},
	{"DuplicateHashIsConflict", func(t *testing.T, st store.Store) {
		a := newAccount(account.Agency)
		mustCreateAccount(t, st, a)
		k := newKey(a.ID, nil)
		mustCreateKey(t, st, k)
		dup := newKey(a.ID, nil)
		dup.Hash = k.Hash
		wantKind(t, "CreateKey(duplicate hash)", st.CreateKey(ctx(t), dup), errs.Conflict)
		_, err := st.Key(ctx(t), dup.ID)
		wantKind(t, "Key(id of the rejected key)", err, errs.NotFound)
		if got, err := st.KeyByHash(ctx(t), k.Hash); err != nil || got.ID != k.ID {
			t.Errorf("KeyByHash = %+v, %v; want the first key", got, err)
		}
	}},
	{"MissingIsNotFound", func(t *testing.T, st store.Store) {
		_, err := st.KeyByHash(ctx(t), strings.Repeat("ab", 32))
		wantKind(t, "KeyByHash(missing)", err, errs.NotFound)
		_, err = st.Key(ctx(t), ids.New(ids.Key))
		wantKind(t, "Key(missing)", err, errs.NotFound)
	}},
	{"RevokeKeepsFirstTime", func(t *testing.T, st store.Store) {
		a := newAccount(account.Agency)
		mustCreateAccount(t, st, a)
		k := newKey(a.ID, nil)
		mustCreateKey(t, st, k)
		first := base.Add(time.Hour)
		got, err := st.RevokeKey(ctx(t), k.ID, first)
		if err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		want := k
		want.RevokedAt = &first
		if !reflect.DeepEqual(got, want) {
			t.Errorf("RevokeKey returned\n %+v\nwant %+v", got, want)
		}
		got, err = st.RevokeKey(ctx(t), k.ID, first.Add(time.Hour))
		if err != nil {
			t.Fatalf("second RevokeKey: %v", err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("second RevokeKey returned\n %+v\nwant the first revocation %+v", got, want)
		}
		for name, read := range map[string]func() (account.Key, error){
			"KeyByHash": func() (account.Key, error) { return st.KeyByHash(ctx(t), k.Hash) },
			"Key":       func() (account.Key, error) { return st.Key(ctx(t), k.ID) },
		} {
			got, err := read()
			if err != nil {
				t.Fatalf("%s after revoke: %v", name, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s after revoke:\n got %+v\nwant %+v", name, got, want)
			}
			if got.Usable(first) {
				t.Errorf("%s: revoked key is Usable", name)
			}
		}
	}},
	{"RevokeEarlierTimeWins", func(t *testing.T, st store.Store) {
		a := newAccount(account.Agency)
		mustCreateAccount(t, st, a)
		k := newKey(a.ID, nil)
		mustCreateKey(t, st, k)
		scheduled := base.Add(24 * time.Hour) // a rotation's grace period
		now := base.Add(time.Hour)            // then the key leaks
		for _, at := range []time.Time{scheduled, now, scheduled} {
			if _, err := st.RevokeKey(ctx(t), k.ID, at); err != nil {
				t.Fatalf("RevokeKey(%v): %v", at, err)
			}
		}
		got, err := st.Key(ctx(t), k.ID)
		if err != nil {
			t.Fatalf("Key: %v", err)
		}
		if got.RevokedAt == nil || !got.RevokedAt.Equal(now) {
			t.Fatalf("RevokedAt = %v, want the earlier time %v", got.RevokedAt, now)
		}
		if got.Usable(now) {
			t.Error("key still usable after an immediate revocation overrode a scheduled one")
		}
	}},
	{"RevokeMissingIsNotFound", func(t *testing.T, st store.Store) {
		_, err := st.RevokeKey(ctx(t), ids.New(ids.Key), base)
		wantKind(t, "RevokeKey(missing)", err, errs.NotFound)
	}},
}

var policyTests = []test{
	{"CreateAndGet", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		p := newPolicy(acct, base)
		mustCreatePolicy(t, st, p)
		got, err := st.Policy(ctx(t), acct, p.ID)
		if err != nil {
			t.Fatalf("Policy: %v", err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("Policy round trip:\n got %+v\nwant %+v", got, p)
		}
	}},
	{"DuplicateIsConflict", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		p := newPolicy(acct, base)
		mustCreatePolicy(t, st, p)
		dup := newPolicy(acct, base)
		dup.ID = p.ID
		dup.Content = "something else"
		dup.BusinessName = "Other"
		wantKind(t, "CreatePolicy(duplicate)", st.CreatePolicy(ctx(t), dup, store.CreateOptions{}), errs.Conflict)
		got, err := st.Policy(ctx(t), acct, p.ID)
		if err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("after a duplicate create: Policy = %+v, %v; want the first one unchanged", got, err)
		}
		// The rejected write must not have been counted: create and count
		// are one atomic step.
		if n := count(t, st, acct, store.Month(base)); n != 1 {
			t.Errorf("GenerationCount after a rejected duplicate = %d, want 1", n)
		}
	}},
	{"OtherAccountIsNotFound", func(t *testing.T, st store.Store) {
		owner, other := ids.New(ids.Account), ids.New(ids.Account)
		p := newPolicy(owner, base)
		mustCreatePolicy(t, st, p)
		_, errOther := st.Policy(ctx(t), other, p.ID)
		_, errMissing := st.Policy(ctx(t), other, ids.New(ids.Policy))
		wantKind(t, "Policy(another account's id)", errOther, errs.NotFound)
		sameError(t, errOther, errMissing)
		delOther := st.DeletePolicy(ctx(t), other, p.ID)
		delMissing := st.DeletePolicy(ctx(t), other, ids.New(ids.Policy))
		wantKind(t, "DeletePolicy(another account's id)", delOther, errs.NotFound)
		sameError(t, delOther, delMissing)
		// The owner's policy survived.
		if got, err := st.Policy(ctx(t), owner, p.ID); err != nil || !reflect.DeepEqual(got, p) {
			t.Errorf("owner's policy after another account's delete: %+v, %v", got, err)
		}
		page, err := st.ListPolicies(ctx(t), other, store.ListOptions{Limit: store.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 0 || page.Next != "" {
			t.Errorf("another account lists %d items (next %q), want none", len(page.Items), page.Next)
		}
	}},
	{"Delete", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		keep, gone := newPolicy(acct, base), newPolicy(acct, base.Add(time.Second))
		mustCreatePolicy(t, st, keep)
		mustCreatePolicy(t, st, gone)
		if err := st.DeletePolicy(ctx(t), acct, gone.ID); err != nil {
			t.Fatalf("DeletePolicy: %v", err)
		}
		_, err := st.Policy(ctx(t), acct, gone.ID)
		wantKind(t, "Policy after delete", err, errs.NotFound)
		wantKind(t, "DeletePolicy again", st.DeletePolicy(ctx(t), acct, gone.ID), errs.NotFound)
		page, err := st.ListPolicies(ctx(t), acct, store.ListOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if got := summaryIDs(page.Items); !slices.Equal(got, []string{keep.ID}) || page.Next != "" {
			t.Errorf("list after delete = %v (next %q), want [%s]", got, page.Next, keep.ID)
		}
		if got, err := st.Policy(ctx(t), acct, keep.ID); err != nil || !reflect.DeepEqual(got, keep) {
			t.Errorf("the other policy after delete: %+v, %v", got, err)
		}
	}},
	{"DeleteMissingIsNotFound", func(t *testing.T, st store.Store) {
		err := st.DeletePolicy(ctx(t), ids.New(ids.Account), ids.New(ids.Policy))
		wantKind(t, "DeletePolicy(missing)", err, errs.NotFound)
	}},
	{"ContentRoundTrip", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		contents := map[string]string{
			"empty":       "",
			"ascii":       "# Privacy Policy\n\nWe collect *nothing*.\n",
			"non-ASCII":   "# Datenschutzerklärung\n\nÆøå, 個人情報保護方針, 🍪 cookies, right-to-left: سياسة الخصوصية\r\n",
			"odd bytes":   "nul\x00byte, invalid UTF-8 \xff\xfe, trailing spaces   \n\n\n",
			"large":       largeText(200 << 10),
			"incompress":  randomText(64 << 10),
			"whitespace":  "  \t\n",
			"html":        "<h1>Policy</h1>\n<p>&amp; &lt;script&gt;</p>",
			"long-lines":  strings.Repeat("x", 50000),
			"many-blocks": strings.Repeat("## Section\n\n- item\n", 3000),
		}
		for name, content := range contents {
			p := newPolicy(acct, base)
			p.Content = content
			mustCreatePolicy(t, st, p)
			got, err := st.Policy(ctx(t), acct, p.ID)
			if err != nil {
				t.Fatalf("%s: Policy: %v", name, err)
			}
			if got.Content != content {
				t.Errorf("%s: content of %d bytes came back as %d bytes, differing", name, len(content), len(got.Content))
			}
		}
	}},
	{"TooLargeIsRejected", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		// Random bytes barely compress, so these land just over and just
		// under the limit as stored.
		big := newPolicy(acct, base)
		big.Content = randomText(store.MaxStoredContent + 16<<10)
		err := st.CreatePolicy(ctx(t), big, store.CreateOptions{})
		wantKind(t, "CreatePolicy(too large)", err, errs.TooLarge)
		if e := errs.As(err); e == nil || e.Code != store.ErrTooLarge.Code {
			t.Errorf("CreatePolicy(too large) = %v, want code %s", err, store.ErrTooLarge.Code)
		}
		_, err = st.Policy(ctx(t), acct, big.ID)
		wantKind(t, "Policy after a rejected create", err, errs.NotFound)
		if n := count(t, st, acct, store.Month(base)); n != 0 {
			t.Errorf("GenerationCount after a rejected create = %d, want 0", n)
		}
		fits := newPolicy(acct, base)
		fits.Content = randomText(store.MaxStoredContent - 16<<10)
		mustCreatePolicy(t, st, fits)
		got, err := st.Policy(ctx(t), acct, fits.ID)
		if err != nil || got.Content != fits.Content {
			t.Errorf("policy just under the limit: Policy = %d bytes, %v; want it whole", len(got.Content), err)
		}
	}},
	{"FieldsRoundTrip", func(t *testing.T, st store.Store) {
		tests := map[string]func(p *store.Policy){
			"no services, no flags": func(p *store.Policy) {
				p.ThirdPartyServices = []string{}
				p.ComplianceFlags = []compliance.Flag{}
			},
			"nil slices": func(p *store.Policy) {
				p.ThirdPartyServices = nil
				p.ComplianceFlags = nil
			},
			"all false, empty optional strings": func(p *store.Policy) {
				p.CollectsPayments, p.CollectsUserData, p.UsesAnalytics = false, false, false
				p.BusinessType = ""
				p.RiskScore = 0
			},
			"many flags and services": func(p *store.Policy) {
				p.ThirdPartyServices = nil
				for i := range 50 {
					p.ThirdPartyServices = append(p.ThirdPartyServices, fmt.Sprintf("service-%02d", i))
				}
				for i := range 30 {
					p.ComplianceFlags = append(p.ComplianceFlags, compliance.Flag{
						Code: fmt.Sprintf("flag_%d", i), Severity: compliance.SeverityInfo,
						Law: "GDPR", Citation: fmt.Sprintf("Art. %d", i), Message: "m — ü", Fix: "",
					})
				}
				p.RiskScore = 100
			},
			"non-UTC time": func(p *store.Policy) {
				p.CreatedAt = base.In(time.FixedZone("CEST", 2*3600))
			},
		}
		for name, change := range tests {
			acct := ids.New(ids.Account) // one each, so the listing below holds only p
			p := newPolicy(acct, base)
			change(&p)
			mustCreatePolicy(t, st, p)
			want := normalized(p)
			got, err := st.Policy(ctx(t), acct, p.ID)
			if err != nil {
				t.Fatalf("%s: Policy: %v", name, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Policy round trip:\n got %+v\nwant %+v", name, got, want)
			}
			page, err := st.ListPolicies(ctx(t), acct, store.ListOptions{Limit: 1})
			if err != nil || len(page.Items) != 1 {
				t.Fatalf("%s: ListPolicies = %+v, %v", name, page, err)
			}
			if !reflect.DeepEqual(page.Items[0], want.Summary) {
				t.Errorf("%s: listed summary:\n got %+v\nwant %+v", name, page.Items[0], want.Summary)
			}
		}
	}},
	{"ConcurrentCreates", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		const n = 20
		var wg sync.WaitGroup
		errc := make(chan error, n)
		created := make([]string, n)
		for i := range n {
			p := newPolicy(acct, base.Add(time.Duration(i)*time.Millisecond))
			p.Content = fmt.Sprintf("policy %d\n%s", i, largeText(4<<10))
			created[i] = p.ID
			wg.Go(func() {
				if err := st.CreatePolicy(ctx(t), p, store.CreateOptions{}); err != nil {
					errc <- fmt.Errorf("policy %d: %w", i, err)
				}
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Error(err)
		}
		if n2 := count(t, st, acct, store.Month(base)); n2 != n {
			t.Errorf("GenerationCount after %d concurrent creates = %d", n, n2)
		}
		page, err := st.ListPolicies(ctx(t), acct, store.ListOptions{Limit: store.MaxListLimit})
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(created)
		if got := summaryIDs(page.Items); !slices.Equal(got, created) {
			t.Errorf("listed %d ids, want the %d created, newest first:\n got %v\nwant %v", len(got), n, got, created)
		}
	}},
}

var listTests = []test{
	{"Paging", func(t *testing.T, st store.Store) {
		acct, other := ids.New(ids.Account), ids.New(ids.Account)
		const n = 25
		want := make([]string, n) // newest first
		var ps []store.Policy
		for i := range n {
			p := newPolicy(acct, base.Add(time.Duration(i)*time.Minute))
			ps = append(ps, p)
			want[n-1-i] = p.ID
		}
		// Insertion order must not matter: the order is the ids'.
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		for _, p := range ps {
			mustCreatePolicy(t, st, p)
		}
		// Another account's policies, interleaved in time, never show up.
		for i := range 5 {
			mustCreatePolicy(t, st, newPolicy(other, base.Add(time.Duration(i)*time.Minute+time.Second)))
		}
		for _, limit := range []int{1, 2, 7, 24, 25, 26, store.MaxListLimit} {
			t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
				got, pages := listAll(t, st, acct, limit)
				if !slices.Equal(got, want) {
					t.Fatalf("paged ids:\n got %v\nwant %v", got, want)
				}
				if wantPages := (n + limit - 1) / limit; pages != wantPages {
					t.Errorf("%d pages, want %d (a full last page must end with Next == \"\")", pages, wantPages)
				}
			})
		}
	}},
	{"Empty", func(t *testing.T, st store.Store) {
		page, err := st.ListPolicies(ctx(t), ids.New(ids.Account), store.ListOptions{Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 0 || page.Next != "" {
			t.Errorf("empty list = %+v", page)
		}
	}},
	{"AfterDeletedItem", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		var want []string
		for i := range 6 {
			p := newPolicy(acct, base.Add(time.Duration(i)*time.Hour))
			mustCreatePolicy(t, st, p)
			want = append([]string{p.ID}, want...)
		}
		page, err := st.ListPolicies(ctx(t), acct, store.ListOptions{Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if page.Next != want[2] {
			t.Fatalf("Next = %q, want %q", page.Next, want[2])
		}
		// The cursor's item disappears between pages: the next page still
		// starts right after it.
		if err := st.DeletePolicy(ctx(t), acct, page.Next); err != nil {
			t.Fatal(err)
		}
		page, err = st.ListPolicies(ctx(t), acct, store.ListOptions{Limit: 3, After: page.Next})
		if err != nil {
			t.Fatal(err)
		}
		if got := summaryIDs(page.Items); !slices.Equal(got, want[3:]) || page.Next != "" {
			t.Errorf("page after a deleted cursor = %v (next %q), want %v", got, page.Next, want[3:])
		}
	}},
	{"AfterIsScopedToAccount", func(t *testing.T, st store.Store) {
		mine, theirs := ids.New(ids.Account), ids.New(ids.Account)
		old := newPolicy(mine, base)
		mustCreatePolicy(t, st, old)
		foreign := newPolicy(theirs, base.Add(time.Hour))
		mustCreatePolicy(t, st, foreign)
		newer := newPolicy(mine, base.Add(2*time.Hour))
		mustCreatePolicy(t, st, newer)
		// A cursor naming another account's id only positions the listing
		// within the caller's own policies.
		page, err := st.ListPolicies(ctx(t), mine, store.ListOptions{Limit: 10, After: foreign.ID})
		if err != nil {
			t.Fatal(err)
		}
		if got := summaryIDs(page.Items); !slices.Equal(got, []string{old.ID}) {
			t.Errorf("list after another account's id = %v, want [%s]", got, old.ID)
		}
		// Cursors that are not ids at all are harmless too.
		for _, after := range []string{"zzzz", "plc_", "\xff", "POLICY#", "a#b"} {
			if _, err := st.ListPolicies(ctx(t), mine, store.ListOptions{Limit: 10, After: after}); err != nil {
				t.Errorf("After %q: %v", after, err)
			}
		}
	}},
	{"BadLimitIsInvalid", func(t *testing.T, st store.Store) {
		for _, limit := range []int{-1, 0, store.MaxListLimit + 1} {
			_, err := st.ListPolicies(ctx(t), ids.New(ids.Account), store.ListOptions{Limit: limit})
			wantKind(t, fmt.Sprint("ListPolicies(limit ", limit, ")"), err, errs.Invalid)
		}
	}},
}

var usageTests = []test{
	{"CountsPerMonth", func(t *testing.T, st store.Store) {
		acct, other := ids.New(ids.Account), ids.New(ids.Account)
		// The last instant of last month and the first of this one.
		this := time.Date(base.Year(), base.Month(), 1, 0, 0, 0, 0, time.UTC)
		last := this.Add(-time.Nanosecond)
		// 01:00 in UTC+2 on the 1st is still last month in UTC.
		lateLast := this.Add(-time.Hour).In(time.FixedZone("UTC+2", 2*3600))
		lastMonth, thisMonth, nextMonth := store.Month(last), store.Month(this), store.Month(this.AddDate(0, 1, 0))
		if lateLast.Format("2006-01") != thisMonth || lastMonth == thisMonth {
			t.Fatalf("bad fixture: %v, %s, %s", lateLast, lastMonth, thisMonth)
		}
		for _, at := range []time.Time{last, last, lateLast, this} {
			mustCreatePolicy(t, st, newPolicy(acct, at))
		}
		mustCreatePolicy(t, st, newPolicy(other, this))
		for _, c := range []struct {
			acct, month string
			want        int
		}{
			{acct, lastMonth, 3},
			{acct, thisMonth, 1},
			{acct, nextMonth, 0},
			{other, lastMonth, 0},
			{other, thisMonth, 1},
			{ids.New(ids.Account), thisMonth, 0},
		} {
			if got := count(t, st, c.acct, c.month); got != c.want {
				t.Errorf("GenerationCount(%s) = %d, want %d", c.month, got, c.want)
			}
		}
	}},
	{"DeleteKeepsCount", func(t *testing.T, st store.Store) {
		acct := ids.New(ids.Account)
		p := newPolicy(acct, base)
		mustCreatePolicy(t, st, p)
		mustCreatePolicy(t, st, newPolicy(acct, base))
		if err := st.DeletePolicy(ctx(t), acct, p.ID); err != nil {
			t.Fatal(err)
		}
		if got := count(t, st, acct, store.Month(base)); got != 2 {
			t.Errorf("GenerationCount after a delete = %d, want 2", got)
		}
	}},
}

// listAll pages through acct's policies limit at a time and returns every
// id in order and the number of pages read.
func listAll(t *testing.T, st store.Store, acct string, limit int) ([]string, int) {
	t.Helper()
	var got []string
	after := ""
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		page, err := st.ListPolicies(ctx(t), acct, store.ListOptions{Limit: limit, After: after})
		if err != nil {
			t.Fatalf("ListPolicies(limit %d, after %q): %v", limit, after, err)
		}
		if len(page.Items) > limit {
			t.Fatalf("page of %d items for limit %d", len(page.Items), limit)
		}
		for _, s := range page.Items {
			if seen[s.ID] {
				t.Fatalf("id %s listed twice", s.ID)
			}
			seen[s.ID] = true
			if s.AccountID != acct {
				t.Fatalf("listed %s with AccountID %q, want %q", s.ID, s.AccountID, acct)
			}
			got = append(got, s.ID)
		}
		if page.Next == "" {
			return got, pages
		}
		if len(page.Items) == 0 || page.Next != page.Items[len(page.Items)-1].ID {
			t.Fatalf("Next = %q, want the last item's id", page.Next)
		}
		if pages > 1000 {
			t.Fatal("listing does not end")
		}
		after = page.Next
	}
}

func newAccount(plan account.Plan) account.Account {
	id := ids.New(ids.Account)
	return account.Account{
		ID:        id,
		Email:     id + "@example.com",
		Name:      "Example Agency",
		Plan:      plan,
		CreatedAt: base,
	}
}

func newKey(acct string, expires *time.Time) account.Key {
	id := ids.New(ids.Key)
	// Any unique 64-hex string stands in for an HMAC here.
	hash := fmt.Sprintf("%064x", rand.Uint64())
	hash = hash[:32] + fmt.Sprintf("%032x", rand.Uint64())
	return account.Key{
		ID:        id,
		AccountID: acct,
		Hash:      hash,
		Prefix:    "pol_live_",
		Last4:     "a1B2",
		CreatedAt: base,
		ExpiresAt: expires,
	}
}

// yes is a true to point at.
var yes = true

func newPolicy(acct string, created time.Time) store.Policy {
	return store.Policy{
		Summary: store.Summary{
			ID:        ids.NewAt(ids.Policy, created),
			AccountID: acct,
			Request: policy.Request{
				Type:               "privacy",
				BusinessName:       "Acme GmbH",
				WebsiteURL:         "https://acme.example/",
				BusinessType:       "ecommerce",
				Language:           "en",
				Jurisdiction:       "EU",
				CollectsPayments:   true,
				CollectsUserData:   true,
				UsesAnalytics:      true,
				ThirdPartyServices: []string{"stripe", "google-analytics"},
				ContactEmail:       "privacy@acme.example",
				PostalAddress:      "Hauptstraße 1\n10115 Berlin",
				EstablishedIn:      "DE",
				ConsentBanner:      &yes,
				Retention:          map[string]string{"orders": "10 years"},
				EffectiveDate:      created.UTC().Format("2006-01-02"),
				Format:             "markdown",
			},
			Status: "needs_input",
			Todos: []compliance.Todo{{
				Field: "hostingProvider", Why: "The host receives every visitor's IP address.", Citation: "GDPR Art. 13(1)(e)",
			}},
			RiskScore:   42,
			RiskLevel:   "medium",
			RiskFactors: []compliance.Factor{{ID: "payments", Points: 5, Why: "Payment data is processed."}},
			ComplianceFlags: []compliance.Flag{{
				Code:     "transfer_safeguard_unknown",
				Severity: compliance.SeverityWarning,
				Law:      "GDPR",
				Citation: "GDPR Art. 13(1)(f), Arts. 44-46",
				Subject:  "Stripe",
				Message:  "Stripe may receive personal data outside the region.",
				Fix:      "Find the transfer mechanism.",
			}},
			TemplateVersion: "2026.03.1",
			CreatedAt:       created,
		},
		Content: "# Privacy Policy\n\nAcme GmbH respects your privacy.\n",
	}
}

// normalized is p as a store returns it: UTC time, non-nil slices.
func normalized(p store.Policy) store.Policy {
	p.CreatedAt = p.CreatedAt.UTC()
	if p.ThirdPartyServices == nil {
		p.ThirdPartyServices = []string{}
	}
	if p.ComplianceFlags == nil {
		p.ComplianceFlags = []compliance.Flag{}
	}
	return p
}

// largeText is n bytes of Markdown-like, non-ASCII text with realistic
// redundancy.
func largeText(n int) string {
	words := []string{"personal", "data", "Verantwortlicher", "processing", "données", "cookies", "個人情報", "rights", "controller", "Art.", "13(1)(a)", "—", "you", "may", "object"}
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for b.Len() < n {
		if r.IntN(40) == 0 {
			b.WriteString("\n\n## Section\n\n")
		}
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

// randomText is n bytes that barely compress.
func randomText(n int) string {
	r := rand.New(rand.NewPCG(5, 6))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return string(b)
}

func summaryIDs(s []store.Summary) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i].ID
	}
	return out
}

func count(t *testing.T, st store.Store, acct, month string) int {
	t.Helper()
	n, err := st.GenerationCount(ctx(t), acct, month)
	if err != nil {
		t.Fatalf("GenerationCount(%s): %v", month, err)
	}
	return n
}

func mustCreateAccount(t *testing.T, st store.Store, a account.Account) {
	t.Helper()
	if err := st.CreateAccount(ctx(t), a); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
}

func mustCreateKey(t *testing.T, st store.Store, k account.Key) {
	t.Helper()
	if err := st.CreateKey(ctx(t), k); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
}

func mustCreatePolicy(t *testing.T, st store.Store, p store.Policy) {
	t.Helper()
	if err := st.CreatePolicy(ctx(t), p, store.CreateOptions{}); err != nil {
		t.Fatalf("CreatePolicy: %v", err)
	}
}

func wantKind(t *testing.T, what string, err error, kind errs.Kind) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want kind %v", what, kind)
		return
	}
	if got := errs.KindOf(err); got != kind {
		t.Errorf("%s: %v (kind %v), want kind %v", what, err, got, kind)
	}
}

// sameError checks that two errors tell a client exactly the same thing.
func sameError(t *testing.T, a, b error) {
	t.Helper()
	ea, eb := errs.As(a), errs.As(b)
	if ea == nil || eb == nil {
		t.Errorf("errors %v and %v are not both *errs.Error", a, b)
		return
	}
	if ea.Kind != eb.Kind || ea.Code != eb.Code || ea.Message != eb.Message || !reflect.DeepEqual(ea.Fields, eb.Fields) {
		t.Errorf("errors differ: %+v vs %+v", ea, eb)
	}
}

func ctx(t *testing.T) context.Context { return t.Context() }
