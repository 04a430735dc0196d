package auth

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/policygen/policygen/internal/testenv"
	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/bolt"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// countingStore is a real bolt store that counts the reads Authenticate
// makes, to prove which requests never reach the store.
type countingStore struct {
	store.Store
	reads   atomic.Int64
	touches atomic.Int64
}

func (s *countingStore) KeyByHash(ctx context.Context, hash string) (account.Key, error) {
	s.reads.Add(1)
	return s.Store.KeyByHash(ctx, hash)
}

func (s *countingStore) Account(ctx context.Context, id string) (account.Account, error) {
	s.reads.Add(1)
	return s.Store.Account(ctx, id)
}

func (s *countingStore) TouchKey(ctx context.Context, hash string, at time.Time) error {
	s.touches.Add(1)
	return s.Store.TouchKey(ctx, hash, at)
}

// countingSource counts pepper reads.
type countingSource struct {
	secrets.Source
	reads atomic.Int64
}

func (s *countingSource) Value(ctx context.Context) ([]byte, error) {
	s.reads.Add(1)
	return s.Source.Value(ctx)
}

type fixture struct {
	st     *countingStore
	pepper *countingSource
	hasher *Hasher
	clock  *testenv.Clock
	auth   *Authenticator
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "policygen.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{
		st:     &countingStore{Store: db},
		pepper: &countingSource{Source: secrets.NewStatic([]byte("test-pepper-0123456789abcdef"))},
		clock:  testenv.NewClock(t0),
	}
	f.hasher = &Hasher{Pepper: f.pepper}
	f.auth = &Authenticator{Store: f.st, Hasher: f.hasher, Now: f.clock.Now, CacheTTL: DefaultCacheTTL}
	return f
}

func (f *fixture) account(t testing.TB, plan account.Plan) account.Account {
	t.Helper()
	a := account.Account{ID: ids.New("acct_"), Email: "owner@example.com", Name: "Example", Plan: plan, CreatedAt: t0}
	if err := f.st.CreateAccount(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return a
}

func (f *fixture) issue(t testing.TB, accountID string, expiresAt *time.Time) (string, account.Key) {
	t.Helper()
	secret, k, err := Issue(context.Background(), f.st, f.hasher, accountID, f.clock.Now(), expiresAt)
	if err != nil {
		t.Fatal(err)
	}
	return secret, k
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	e := errs.As(err)
	if e == nil || e.Code != code {
		t.Fatalf("err = %v, want code %s", err, code)
	}
	if code != "plan_not_entitled" && e.Kind != errs.Unauthenticated {
		t.Fatalf("err %v has kind %v, want Unauthenticated", err, e.Kind)
	}
}

func TestAuthenticateHeaders(t *testing.T) {
	f := newFixture(t)
	acct := f.account(t, account.Agency)
	secret, key := f.issue(t, acct.ID, nil)
	tests := []struct {
		name   string
		header string
		code   string // "" = success
		noIO   bool   // must not read the pepper or the store
	}{
		{name: "canonical", header: "Bearer " + secret},
		{name: "lower-case scheme", header: "bearer " + secret},
		{name: "upper-case scheme", header: "BEARER " + secret},
		{name: "several spaces", header: "Bearer   " + secret},
		{name: "surrounding whitespace", header: " Bearer " + secret + " \t"},
		{name: "missing", header: "", code: "missing_api_key", noIO: true},
		{name: "blank", header: "   ", code: "missing_api_key", noIO: true},
		{name: "basic", header: "Basic dXNlcjpwYXNz", code: "missing_api_key", noIO: true},
		{name: "other scheme with a key", header: "Token " + secret, code: "missing_api_key", noIO: true},
		{name: "key without scheme", header: secret, code: "missing_api_key", noIO: true},
		{name: "scheme only", header: "Bearer", code: "missing_api_key", noIO: true},
		{name: "scheme and space", header: "Bearer ", code: "missing_api_key", noIO: true},
		{name: "tab separator", header: "Bearer\t" + secret, code: "missing_api_key", noIO: true},
		{name: "malformed key", header: "Bearer pol_live_abc", code: "invalid_api_key", noIO: true},
		{name: "bad checksum", header: "Bearer " + secret[:len(secret)-1] + flip(secret[len(secret)-1]), code: "invalid_api_key", noIO: true},
		{name: "two tokens", header: "Bearer " + secret + " " + secret, code: "invalid_api_key", noIO: true},
		{name: "quoted key", header: `Bearer "` + secret + `"`, code: "invalid_api_key", noIO: true},
		{name: "unknown well-formed key", header: "Bearer " + mustKey(t), code: "invalid_api_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A fresh cache each time, so a success is a real lookup.
			a := &Authenticator{Store: f.st, Hasher: f.hasher, Now: f.clock.Now}
			storeBefore, pepperBefore := f.st.reads.Load(), f.pepper.reads.Load()
			p, err := a.Authenticate(context.Background(), tt.header)
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Key.ID != key.ID || p.Account.ID != acct.ID || p.Account.Plan != account.Agency || p.Key.Hash != "" || p.Key.Last4 != key.Last4 {
					t.Fatalf("principal = %+v", p)
				}
				return
			}
			wantCode(t, err, tt.code)
			if tt.noIO {
				if n := f.st.reads.Load() - storeBefore; n != 0 {
					t.Errorf("%d store reads for a request rejected on its header", n)
				}
				if n := f.pepper.reads.Load() - pepperBefore; n != 0 {
					t.Errorf("%d pepper reads for a request rejected on its header", n)
				}
			}
		})
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func TestAuthenticateKeyStates(t *testing.T) {
	f := newFixture(t)
	acct := f.account(t, account.Agency)
	ctx := context.Background()

	live, _ := f.issue(t, acct.ID, nil)
	revoked, rk := f.issue(t, acct.ID, nil)
	if _, err := f.st.RevokeKey(ctx, rk.ID, t0); err != nil {
		t.Fatal(err)
	}
	exp := t0.Add(time.Hour)
	expiring, _ := f.issue(t, acct.ID, &exp)
	future := t0.Add(2 * time.Hour)
	scheduled, sk := f.issue(t, acct.ID, nil)
	if _, err := f.st.RevokeKey(ctx, sk.ID, future); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		secret string
		at     time.Duration // after t0
		code   string
	}{
		{"live", live, 0, ""},
		{"revoked", revoked, 0, "revoked_api_key"},
		{"unknown", mustKey(t), 0, "invalid_api_key"},
		{"before expiry", expiring, time.Hour - time.Second, ""},
		{"at expiry", expiring, time.Hour, "expired_api_key"},
		{"before scheduled revocation", scheduled, 2*time.Hour - time.Second, ""},
		{"at scheduled revocation", scheduled, 2 * time.Hour, "revoked_api_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0.Add(tt.at)
			a := &Authenticator{Store: f.st, Hasher: f.hasher, Now: func() time.Time { return now }}
			_, err := a.Authenticate(ctx, "Bearer "+tt.secret)
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, tt.code)
		})
	}
}

// A key and account are re-read at most CacheTTL after they were cached, so
// that is the bound on how late a revocation or plan change is seen.
func TestCacheBoundsRevocationAndPlanChanges(t *testing.T) {
	for _, ttl := range []time.Duration{DefaultCacheTTL, 30 * time.Second} {
		bound := ttl
		t.Run(bound.String(), func(t *testing.T) {
			f := newFixture(t)
			f.auth.CacheTTL = ttl
			ctx := context.Background()
			acct := f.account(t, account.Agency)
			secret, k := f.issue(t, acct.ID, nil)

			if _, err := f.auth.Authenticate(ctx, "Bearer "+secret); err != nil {
				t.Fatal(err)
			}
			reads := f.st.reads.Load()
			if _, err := f.auth.Authenticate(ctx, "Bearer "+secret); err != nil {
				t.Fatal(err)
			}
			if f.st.reads.Load() != reads {
				t.Fatal("a cached key was read from the store again")
			}

			if err := f.st.SetPlan(ctx, acct.ID, account.Pro); err != nil {
				t.Fatal(err)
			}
			if _, err := f.st.RevokeKey(ctx, k.ID, f.clock.Now()); err != nil {
				t.Fatal(err)
			}
			f.clock.Add(bound - time.Millisecond)
			p, err := f.auth.Authenticate(ctx, "Bearer "+secret)
			if err != nil || p.Account.Plan != account.Agency {
				t.Fatalf("within the cache lifetime: %+v, %v; want the cached principal", p.Account, err)
			}
			f.clock.Add(time.Millisecond)
			_, err = f.auth.Authenticate(ctx, "Bearer "+secret)
			wantCode(t, err, "revoked_api_key")
		})
	}
}

func TestCachePlanChangeSeenAfterTTL(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	acct := f.account(t, account.Agency)
	secret, _ := f.issue(t, acct.ID, nil)
	if _, err := f.auth.Authenticate(ctx, "Bearer "+secret); err != nil {
		t.Fatal(err)
	}
	if err := f.st.SetPlan(ctx, acct.ID, account.Starter); err != nil {
		t.Fatal(err)
	}
	f.clock.Add(DefaultCacheTTL)
	p, err := f.auth.Authenticate(ctx, "Bearer "+secret)
	if err != nil {
		t.Fatal(err)
	}
	if p.Account.Plan != account.Starter {
		t.Fatalf("plan %s after the cache lifetime, want starter", p.Account.Plan)
	}
	wantCode(t, RequireAPIAccess(p), "plan_not_entitled")
}

// CacheTTL 0 (KEY_CACHE_TTL=0s, --key-cache-ttl 0) and below turn the
// cache off: a revocation is seen on the very next request.
func TestCacheDisabled(t *testing.T) {
	for _, ttl := range []time.Duration{0, -1} {
		t.Run(ttl.String(), func(t *testing.T) {
			f := newFixture(t)
			f.auth.CacheTTL = ttl
			ctx := context.Background()
			acct := f.account(t, account.Agency)
			secret, k := f.issue(t, acct.ID, nil)
			if _, err := f.auth.Authenticate(ctx, "Bearer "+secret); err != nil {
				t.Fatal(err)
			}
			if _, err := f.st.RevokeKey(ctx, k.ID, t0); err != nil {
				t.Fatal(err)
			}
			_, err := f.auth.Authenticate(ctx, "Bearer "+secret)
			wantCode(t, err, "revoked_api_key")
		})
	}
}

// An unknown key is not remembered: a key stored right after a failed
// attempt works on the next request.
func TestUnknownKeyNotCached(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	acct := f.account(t, account.Agency)
	secret := mustKey(t)
	_, err := f.auth.Authenticate(ctx, "Bearer "+secret)
	wantCode(t, err, "invalid_api_key")

	hash, err := f.hasher.Hash(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	k := account.Key{ID: ids.New("key_"), AccountID: acct.ID, Hash: hash, Prefix: Prefix, Last4: Last4(secret), CreatedAt: t0}
	if err := f.st.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if _, err := f.auth.Authenticate(ctx, "Bearer "+secret); err != nil {
		t.Fatalf("a key stored after a failed attempt: %v", err)
	}
}

// A pepper that cannot be read is an internal error, not a 401: the key may
// be fine.
func TestPepperFailureIsInternal(t *testing.T) {
	f := newFixture(t)
	a := &Authenticator{Store: f.st, Hasher: &Hasher{Pepper: secrets.NewFile("/dev/null/pepper")}}
	_, err := a.Authenticate(context.Background(), "Bearer "+mustKey(t))
	if err == nil || errs.KindOf(err) != errs.Internal {
		t.Fatalf("err = %v, want an internal error", err)
	}
}

func TestCacheEvictionBound(t *testing.T) {
	a := &Authenticator{Now: func() time.Time { return t0 }, CacheTTL: DefaultCacheTTL}
	for i := range maxCacheEntries + 500 {
		a.remember(ids.New("h"), Principal{}, t0.Add(time.Duration(i)))
		if len(a.cache) > maxCacheEntries {
			t.Fatalf("cache holds %d entries, bound is %d", len(a.cache), maxCacheEntries)
		}
	}
	// Stale entries go first.
	a.cache = map[string]cacheEntry{}
	for range maxCacheEntries - 1 {
		a.remember(ids.New("h"), Principal{}, t0)
	}
	fresh := "fresh"
	a.remember(fresh, Principal{}, t0.Add(DefaultCacheTTL))
	a.remember("newest", Principal{}, t0.Add(DefaultCacheTTL))
	if _, ok := a.cache[fresh]; !ok || len(a.cache) != 2 {
		t.Fatalf("after evicting stale entries: %d entries, fresh kept = %v", len(a.cache), ok)
	}
}

func TestAuthenticateConcurrent(t *testing.T) {
	f := newFixture(t)
	f.auth.CacheTTL = time.Second
	ctx := context.Background()
	agency := f.account(t, account.Agency)
	pro := f.account(t, account.Pro)
	type want struct {
		secret, accountID, code string
	}
	var cases []want
	for range 3 {
		s, _ := f.issue(t, agency.ID, nil)
		cases = append(cases, want{s, agency.ID, ""})
		s, _ = f.issue(t, pro.ID, nil)
		cases = append(cases, want{s, pro.ID, ""})
	}
	s, k := f.issue(t, agency.ID, nil)
	if _, err := f.st.RevokeKey(ctx, k.ID, t0); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, want{s, "", "revoked_api_key"}, want{mustKey(t), "", "invalid_api_key"}, want{"garbage", "", "invalid_api_key"})

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				c := cases[(g+i)%len(cases)]
				if i%50 == 0 {
					f.clock.Add(300 * time.Millisecond) // entries expire while others read
				}
				p, err := f.auth.Authenticate(ctx, "Bearer "+c.secret)
				if c.code == "" {
					if err != nil || p.Account.ID != c.accountID {
						t.Errorf("got %+v, %v; want account %s", p.Account, err, c.accountID)
						return
					}
					continue
				}
				if e := errs.As(err); e == nil || e.Code != c.code {
					t.Errorf("err = %v, want %s", err, c.code)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestRequireAPIAccess(t *testing.T) {
	tests := []struct {
		plan account.Plan
		ok   bool
	}{
		{account.Agency, true},
		{account.Pro, false},
		{account.Starter, false},
		{"", false},
	}
	for _, tt := range tests {
		err := RequireAPIAccess(Principal{Account: account.Account{Plan: tt.plan}})
		if tt.ok {
			if err != nil {
				t.Errorf("%q: %v", tt.plan, err)
			}
			continue
		}
		e := errs.As(err)
		if e == nil || e.Kind != errs.Forbidden || e.Code != "plan_not_entitled" {
			t.Errorf("%q: err = %v, want Forbidden plan_not_entitled", tt.plan, err)
		}
	}
	err := RequireAPIAccess(Principal{Account: account.Account{Plan: account.Pro}})
	want := "API access requires the Agency plan; this key belongs to an account on the Pro plan. " +
		"Starter and Pro accounts can generate policies in the web dashboard."
	if e := errs.As(err); e.Message != want {
		t.Fatalf("message = %q\nwant      %q", e.Message, want)
	}
}

func TestChallenge(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{ErrMissingKey, `Bearer realm="policygen"`},
		{ErrInvalidKey, `Bearer realm="policygen", error="invalid_token", error_description="the API key is not valid"`},
		{CheckFormat("x"), `Bearer realm="policygen", error="invalid_token", error_description="the API key is not valid"`},
		{ErrRevokedKey, `Bearer realm="policygen", error="invalid_token", error_description="the API key has been revoked"`},
		{ErrExpiredKey, `Bearer realm="policygen", error="invalid_token", error_description="the API key has expired"`},
		{errs.E(errs.Unauthenticated, "invalid_api_key", `bad "quoted" \ text`), `Bearer realm="policygen", error="invalid_token", error_description="bad quoted  text"`},
		{nil, `Bearer realm="policygen"`},
	}
	for _, tt := range tests {
		if got := Challenge(tt.err); got != tt.want {
			t.Errorf("Challenge(%v) = %s\nwant %s", tt.err, got, tt.want)
		}
	}
}

func TestIssue(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	acct := f.account(t, account.Agency)
	exp := t0.Add(720 * time.Hour)
	secret, k, err := Issue(ctx, f.st, f.hasher, acct.ID, t0, &exp)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckFormat(secret); err != nil {
		t.Fatal(err)
	}
	hash, _ := f.hasher.Hash(ctx, secret)
	if !ids.Valid("key_", k.ID) || k.AccountID != acct.ID || k.Hash != hash || k.Prefix != "pol_live_" ||
		k.Last4 != secret[len(secret)-4:] || !k.CreatedAt.Equal(t0) || k.ExpiresAt == nil || !k.ExpiresAt.Equal(exp) {
		t.Fatalf("key record %+v", k)
	}
	stored, err := f.st.KeyByHash(ctx, hash)
	if err != nil || stored.ID != k.ID {
		t.Fatalf("stored: %+v, %v", stored, err)
	}
	raw, _ := json.Marshal(stored)
	if strings.Contains(string(raw), secret[len(Prefix):len(Prefix)+RandomLen]) {
		t.Fatal("the stored record contains the secret")
	}

	_, _, err = Issue(ctx, f.st, f.hasher, "acct_missing", t0, nil)
	if errs.KindOf(err) != errs.NotFound {
		t.Fatalf("unknown account: %v, want NotFound", err)
	}
	past := t0
	_, _, err = Issue(ctx, f.st, f.hasher, acct.ID, t0, &past)
	if e := errs.As(err); e == nil || e.Code != "invalid_expiry" {
		t.Fatalf("expiry not in the future: %v", err)
	}
}

// Hash is HMAC-SHA256 keyed by the pepper: another pepper, another hash.
func TestHasher(t *testing.T) {
	ctx := context.Background()
	secret := mustKey(t)
	h1, err := (&Hasher{Pepper: secrets.NewStatic([]byte("pepper-one"))}).Hash(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := (&Hasher{Pepper: secrets.NewStatic([]byte("pepper-two"))}).Hash(ctx, secret)
	again, _ := (&Hasher{Pepper: secrets.NewStatic([]byte("pepper-one"))}).Hash(ctx, secret)
	if len(h1) != 64 || h1 == h2 || h1 != again {
		t.Fatalf("hashes %s %s %s", h1, h2, again)
	}
	// RFC 4231 test case 2 pins the construction to HMAC-SHA256.
	got, _ := (&Hasher{Pepper: secrets.NewStatic([]byte("Jefe"))}).Hash(ctx, "what do ya want for nothing?")
	if got != "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" {
		t.Fatalf("HMAC = %s", got)
	}
}

func TestRotate(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	acct := f.account(t, account.Agency)
	exp := t0.Add(24 * time.Hour)
	oldSecret, oldKey := f.issue(t, acct.ID, &exp)

	f.clock.Add(time.Hour)
	grace := f.clock.Now().Add(12 * time.Hour)
	newSecret, newKey, old, err := Rotate(ctx, f.st, f.hasher, oldKey.ID, f.clock.Now(), grace)
	if err != nil {
		t.Fatal(err)
	}
	if newKey.AccountID != acct.ID || newKey.ID == oldKey.ID || newSecret == oldSecret {
		t.Fatalf("new key %+v", newKey)
	}
	if old.RevokedAt == nil || !old.RevokedAt.Equal(grace) {
		t.Fatalf("old key revocation %v, want %v", old.RevokedAt, grace)
	}
	if newKey.ExpiresAt == nil || !newKey.ExpiresAt.Equal(f.clock.Now().Add(24*time.Hour)) {
		t.Fatalf("new key expiry %v, want the old lifetime from now", newKey.ExpiresAt)
	}

	check := func(at time.Time, secret, code string) {
		t.Helper()
		a := &Authenticator{Store: f.st, Hasher: f.hasher, Now: func() time.Time { return at }}
		_, err := a.Authenticate(ctx, "Bearer "+secret)
		if code == "" {
			if err != nil {
				t.Fatalf("at %v: %v", at, err)
			}
			return
		}
		wantCode(t, err, code)
	}
	check(f.clock.Now(), oldSecret, "")
	check(f.clock.Now(), newSecret, "")
	check(grace.Add(-time.Second), oldSecret, "")
	check(grace, oldSecret, "revoked_api_key")
	check(grace, newSecret, "")

	// Rotating a key that no longer works is refused; so is an unknown id.
	_, _, _, err = Rotate(ctx, f.st, f.hasher, oldKey.ID, grace, time.Time{})
	if e := errs.As(err); e == nil || e.Code != "key_not_usable" {
		t.Fatalf("rotating a revoked key: %v", err)
	}
	_, _, _, err = Rotate(ctx, f.st, f.hasher, "key_missing", grace, time.Time{})
	if errs.KindOf(err) != errs.NotFound {
		t.Fatalf("rotating an unknown key: %v", err)
	}

	// Without a grace time the old key stops at once.
	_, _, old, err = Rotate(ctx, f.st, f.hasher, newKey.ID, grace, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if old.RevokedAt == nil || !old.RevokedAt.Equal(grace) {
		t.Fatalf("immediate rotation revoked at %v, want %v", old.RevokedAt, grace)
	}
	check(grace, newSecret, "revoked_api_key")
}

func BenchmarkAuthenticate(b *testing.B) {
	f := newFixture(b)
	acct := f.account(b, account.Agency)
	secret, _ := f.issue(b, acct.ID, nil)
	header := "Bearer " + secret
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		ttl  time.Duration
	}{{"cache-hit", time.Hour}, {"cache-miss", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			a := &Authenticator{Store: f.st, Hasher: f.hasher, CacheTTL: bc.ttl}
			for b.Loop() {
				if _, err := a.Authenticate(ctx, header); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("malformed", func(b *testing.B) {
		a := &Authenticator{Store: f.st, Hasher: f.hasher}
		for b.Loop() {
			if _, err := a.Authenticate(ctx, "Bearer pol_live_0000"); err == nil {
				b.Fatal("accepted")
			}
		}
	})
}

// goneStore is a real store in which some accounts have disappeared (a
// deleted or purged account) while their keys remain.
type goneStore struct {
	store.Store
	gone map[string]bool
}

func (s *goneStore) Account(ctx context.Context, id string) (account.Account, error) {
	if s.gone[id] {
		return account.Account{}, store.ErrAccountNotFound
	}
	return s.Store.Account(ctx, id)
}

// A key whose account no longer exists does not authenticate, is answered
// like an unknown key, and is not cached: should the account come back,
// the key works again at once.
func TestKeyOfGoneAccountIsInvalid(t *testing.T) {
	f := newFixture(t)
	acct := f.account(t, account.Agency)
	secret, _ := f.issue(t, acct.ID, nil)
	gs := &goneStore{Store: f.st, gone: map[string]bool{acct.ID: true}}
	a := &Authenticator{Store: gs, Hasher: f.hasher, Now: f.clock.Now, CacheTTL: DefaultCacheTTL}
	_, err := a.Authenticate(context.Background(), "Bearer "+secret)
	wantCode(t, err, "invalid_api_key")
	if !errors.Is(err, ErrInvalidKey) {
		t.Errorf("err = %v, want ErrInvalidKey", err)
	}
	delete(gs.gone, acct.ID)
	if p, err := a.Authenticate(context.Background(), "Bearer "+secret); err != nil || p.Account.ID != acct.ID {
		t.Fatalf("after the account is back: %+v, %v", p, err)
	}
}

// A key with a wrong checksum is refused before any I/O: neither the
// pepper nor the store is read. The answer is the unknown key's, so only
// the missing reads tell the two apart.
func TestBadChecksumCostsNoIO(t *testing.T) {
	f := newFixture(t)
	acct := f.account(t, account.Agency)
	secret, _ := f.issue(t, acct.ID, nil)
	pepperReads, storeReads := f.pepper.reads.Load(), f.st.reads.Load()
	last := secret[len(secret)-1]
	swapped := byte('A')
	if last == 'A' {
		swapped = 'B'
	}
	bad := secret[:len(secret)-1] + string(swapped)
	_, err := f.auth.Authenticate(context.Background(), "Bearer "+bad)
	wantCode(t, err, "invalid_api_key")
	if f.pepper.reads.Load() != pepperReads || f.st.reads.Load() != storeReads {
		t.Errorf("a bad checksum read the pepper %d times and the store %d times, want none",
			f.pepper.reads.Load()-pepperReads, f.st.reads.Load()-storeReads)
	}
}

// A key's last use is recorded on its first authentication and then at most
// once per account.KeyUseResolution, not on every request.
func TestLastUseRecordedHourly(t *testing.T) {
	f := newFixture(t)
	f.auth.CacheTTL = 0 // every request reads the store, the worst case
	ctx := context.Background()
	acct := f.account(t, account.Agency)
	secret, k := f.issue(t, acct.ID, nil)
	lastUsed := func() *time.Time {
		t.Helper()
		got, err := f.st.Key(ctx, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.LastUsedAt
	}
	if lastUsed() != nil {
		t.Fatal("a new key has a last use")
	}
	for i := range 5 {
		f.clock.Add(time.Minute)
		p, err := f.auth.Authenticate(ctx, "Bearer "+secret)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && (p.Key.LastUsedAt == nil || !p.Key.LastUsedAt.Equal(t0.Add(time.Minute))) {
			t.Errorf("principal's LastUsedAt = %v, want %v", p.Key.LastUsedAt, t0.Add(time.Minute))
		}
	}
	if got := lastUsed(); got == nil || !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("LastUsedAt = %v, want the first use %v", got, t0.Add(time.Minute))
	}
	if n := f.st.touches.Load(); n != 1 {
		t.Errorf("5 requests in 5 minutes wrote the last use %d times, want 1", n)
	}
	f.clock.Add(account.KeyUseResolution)
	if _, err := f.auth.Authenticate(ctx, "Bearer "+secret); err != nil {
		t.Fatal(err)
	}
	if got, want := lastUsed(), t0.Add(5*time.Minute+account.KeyUseResolution); got == nil || !got.Equal(want) {
		t.Errorf("after an hour LastUsedAt = %v, want %v", got, want)
	}
}
