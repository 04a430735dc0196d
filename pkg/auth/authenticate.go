package auth

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/store"
)

// DefaultCacheTTL is how long an Authenticator trusts a key record and its
// account without re-reading them. It bounds how late a revocation or a plan
// change takes effect in a running process.
const DefaultCacheTTL = 5 * time.Second

// maxCacheEntries bounds the memory of the principal cache. Only keys that
// exist are cached, so the bound is reached only by that many distinct live
// keys calling within one TTL.
const maxCacheEntries = 10_000

// Errors of Authenticate, by stable code. ErrInvalidKey (key.go) covers
// malformed and unknown keys alike.
var (
	ErrMissingKey = errs.E(errs.Unauthenticated, "missing_api_key", "an API key is required: send it as Authorization: Bearer <key>")
	ErrRevokedKey = errs.E(errs.Unauthenticated, "revoked_api_key", "the API key has been revoked")
	ErrExpiredKey = errs.E(errs.Unauthenticated, "expired_api_key", "the API key has expired")
)

// Principal is the caller of an authenticated request. Key.Hash is empty.
type Principal struct {
	Account account.Account
	Key     account.Key
}

// Authenticator verifies the Authorization header of a request. The zero
// value of the optional fields is ready to use; an Authenticator must not be
// copied after first use.
type Authenticator struct {
	Store  store.Store
	Hasher *Hasher
	// Now defaults to time.Now.
	Now func() time.Time
	// CacheTTL is how long a looked-up key and its account are reused
	// without reading the store; zero or negative disables the cache. A
	// revoked key or a changed plan is seen at most this late. Servers set
	// it from their configuration (default DefaultCacheTTL).
	CacheTTL time.Duration

	mu    sync.Mutex
	cache map[string]cacheEntry // by key hash
}

type cacheEntry struct {
	p      Principal
	stored time.Time
}

func (a *Authenticator) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// Authenticate checks the value of an Authorization header and returns who
// is calling. The order of checks is deliberate: a malformed key is rejected
// before the pepper is read or the store is touched, so garbage costs no I/O
// and a cold function never fetches its secret for it.
func (a *Authenticator) Authenticate(ctx context.Context, header string) (Principal, error) {
	secret, err := ParseAuthorization(header)
	if err != nil {
		return Principal{}, err
	}
	if err := CheckFormat(secret); err != nil {
		return Principal{}, err
	}
	hash, err := a.Hasher.Hash(ctx, secret)
	if err != nil {
		return Principal{}, err
	}
	// Keys are found by their HMAC, never by comparing secrets, so there is
	// no secret-dependent comparison whose timing could leak the key: map
	// and database lookups by hash reveal at most which hashes exist, and
	// the HMAC is not invertible without the pepper.
	now := a.now()
	p, ok := a.cached(hash, now)
	if !ok {
		p, err = a.load(ctx, hash, now)
		if err != nil {
			return Principal{}, err
		}
		a.remember(hash, p, now)
	}
	if err := checkUsable(p.Key, now); err != nil {
		return Principal{}, err
	}
	return p, nil
}

func checkUsable(k account.Key, now time.Time) error {
	if k.Usable(now) {
		return nil
	}
	if k.RevokedAt != nil && !now.Before(*k.RevokedAt) {
		return ErrRevokedKey
	}
	return ErrExpiredKey
}

func (a *Authenticator) load(ctx context.Context, hash string, now time.Time) (Principal, error) {
	k, err := a.Store.KeyByHash(ctx, hash)
	if errs.Is(err, errs.NotFound) {
		// Unknown keys are not cached, so a key issued a moment ago works
		// on its first use.
		return Principal{}, ErrInvalidKey
	}
	if err != nil {
		return Principal{}, fmt.Errorf("auth: look up key: %w", err)
	}
	acct, err := a.Store.Account(ctx, k.AccountID)
	if errs.Is(err, errs.NotFound) {
		// A key whose account is gone must not authenticate.
		return Principal{}, ErrInvalidKey
	}
	if err != nil {
		return Principal{}, fmt.Errorf("auth: look up account of key %s: %w", k.ID, err)
	}
	// The dashboard lists when each key was last used. Recording it only
	// when the stored time is KeyUseResolution old costs one write per key
	// per hour per process, not one per request; and a failure to record
	// it must not fail the request it describes.
	if k.Usable(now) && (k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= account.KeyUseResolution) {
		if a.Store.TouchKey(ctx, hash, now) == nil {
			t := now.UTC().Truncate(time.Second)
			k.LastUsedAt = &t
		}
	}
	// Nothing downstream needs the hash; leaving it out of the principal
	// means no handler can leak it.
	k.Hash = ""
	return Principal{Account: acct, Key: k}, nil
}

func (a *Authenticator) cached(hash string, now time.Time) (Principal, bool) {
	ttl := a.CacheTTL
	if ttl <= 0 {
		return Principal{}, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.cache[hash]
	// A clock that went backwards also makes the entry stale.
	if !ok || now.Before(e.stored) || now.Sub(e.stored) >= ttl {
		return Principal{}, false
	}
	return e.p, true
}

func (a *Authenticator) remember(hash string, p Principal, now time.Time) {
	ttl := a.CacheTTL
	if ttl <= 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cache == nil {
		a.cache = make(map[string]cacheEntry)
	}
	if _, ok := a.cache[hash]; !ok && len(a.cache) >= maxCacheEntries {
		a.evict(now, ttl)
	}
	a.cache[hash] = cacheEntry{p: p, stored: now}
}

// evict drops stale entries, then, if the cache is still full, about a tenth
// of the entries, picked by Go's randomised map order. Dropping a batch keeps
// the O(n) sweep rare when the cache is full of live keys.
func (a *Authenticator) evict(now time.Time, ttl time.Duration) {
	for h, e := range a.cache {
		if now.Before(e.stored) || now.Sub(e.stored) >= ttl {
			delete(a.cache, h)
		}
	}
	drop := len(a.cache) - maxCacheEntries + maxCacheEntries/10
	for h := range a.cache {
		if drop <= 0 {
			break
		}
		delete(a.cache, h)
		drop--
	}
}

// ParseAuthorization returns the token of a Bearer Authorization header
// value (RFC 6750 §2.1, RFC 9110 §11.4): the scheme is case-insensitive and
// one or more spaces separate it from the token. An empty header, only the
// scheme, or another scheme is ErrMissingKey: per RFC 6750 §3.1 a request
// using an unsupported method lacks authentication, rather than carrying a
// bad token. The token's own format is not checked here (see CheckFormat).
func ParseAuthorization(header string) (string, error) {
	header = strings.Trim(header, " \t")
	if header == "" {
		return "", ErrMissingKey
	}
	scheme, token, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrMissingKey
	}
	token = strings.TrimLeft(token, " ")
	if token == "" {
		return "", ErrMissingKey
	}
	return token, nil
}

// RequireAPIAccess fails with 403 plan_not_entitled unless the principal's
// plan includes the REST API (Agency only).
func RequireAPIAccess(p Principal) error {
	if p.Account.Plan.HasAPIAccess() {
		return nil
	}
	return errs.E(errs.Forbidden, "plan_not_entitled",
		"API access requires the Agency plan; this key belongs to an account on the %s plan. "+
			"Starter and Pro accounts can generate policies in the web dashboard.", planTitle(p.Account.Plan))
}

func planTitle(p account.Plan) string {
	s := string(p)
	if s == "" {
		return "unknown"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Realm names the protection space in WWW-Authenticate challenges.
const Realm = "policygen"

// Challenge returns the WWW-Authenticate header value to send with a 401
// for err (RFC 6750 §3). A missing key, or any error that is not one of this
// package's token errors, gets the bare challenge without an error
// attribute (§3.1); a bad, revoked or expired key gets error="invalid_token"
// and the error's message as error_description.
func Challenge(err error) string {
	bare := `Bearer realm="` + Realm + `"`
	e := errs.As(err)
	if e == nil || e.Kind != errs.Unauthenticated {
		return bare
	}
	switch e.Code {
	case ErrInvalidKey.Code, ErrRevokedKey.Code, ErrExpiredKey.Code:
		return bare + `, error="invalid_token", error_description="` + descriptionChars(e.Message) + `"`
	default:
		return bare
	}
}

// descriptionChars keeps only the characters RFC 6750 §3 allows in
// error_description (%x20-21 / %x23-5B / %x5D-7E), so the quoted string
// stays well formed.
func descriptionChars(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' {
			b.WriteByte(c)
		}
	}
	return b.String()
}
