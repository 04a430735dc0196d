// Package account holds the records of who may call Policygen: accounts,
// the plan each is on, and the API keys that act for them. It is plain data;
// pkg/auth verifies keys and pkg/store persists these records.
package account

import (
	"strings"
	"time"
)

// Plan is a subscription tier.
type Plan string

const (
	Starter Plan = "starter"
	Pro     Plan = "pro"
	Agency  Plan = "agency"
)

// Plans lists every plan, cheapest first.
var Plans = []Plan{Starter, Pro, Agency}

// ParsePlan accepts a plan name in any letter case.
func ParsePlan(s string) (Plan, bool) {
	for _, p := range Plans {
		if strings.EqualFold(string(p), s) {
			return p, true
		}
	}
	return "", false
}

// HasAPIAccess reports whether keys of this plan may call the REST API.
// Starter and Pro accounts use the web dashboard only.
func (p Plan) HasAPIAccess() bool { return p == Agency }

// Limits are what a plan allows (docs/LIMITS.md states the same numbers; a
// test keeps them in step).
type Limits struct {
	// MonthlyGenerations is how many policies an account may generate in a
	// UTC calendar month, through any channel (API, dashboard, bulk).
	MonthlyGenerations int
	// RequestsPerMinute is how many requests one key may make in a minute
	// (a fixed window starting on the minute, UTC).
	RequestsPerMinute int
}

// Limits returns the plan's limits; an unknown plan gets Starter's. (A
// switch, not a map, so that no package init builds it at a Lambda cold
// start.)
func (p Plan) Limits() Limits {
	switch p {
	case Pro:
		return Limits{MonthlyGenerations: 100, RequestsPerMinute: 60}
	case Agency:
		return Limits{MonthlyGenerations: 5000, RequestsPerMinute: 300}
	}
	return Limits{MonthlyGenerations: 10, RequestsPerMinute: 30}
}

// Valid reports whether p is a known plan in its canonical spelling.
func (p Plan) Valid() bool {
	q, ok := ParsePlan(string(p))
	return ok && q == p
}

// Account is a customer of Policygen.
type Account struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Plan      Plan      `json:"plan"`
	CreatedAt time.Time `json:"createdAt"`
}

// Key is the stored record of an API key. The secret itself is never stored:
// Hash is HMAC-SHA256(pepper, secret), hex encoded, and is the lookup key.
type Key struct {
	ID        string     `json:"id"`
	AccountID string     `json:"accountId"`
	Hash      string     `json:"hash"`
	Prefix    string     `json:"prefix"` // "pol_live_"
	Last4     string     `json:"last4"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
	// LastUsedAt is when the key last authenticated a request, to within
	// KeyUseResolution (recording every use would cost a write each).
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
}

// KeyUseResolution is how stale a key's LastUsedAt may be: a use is
// recorded only when the last recorded one is older than this.
const KeyUseResolution = time.Hour

// Usable reports whether the key may authenticate a request at now.
func (k Key) Usable(now time.Time) bool {
	if k.RevokedAt != nil && !now.Before(*k.RevokedAt) {
		return false
	}
	if k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) {
		return false
	}
	return true
}

// User is a person who signs in to the web dashboard with an email address
// and a password. Each user acts for one account; the email is the user's
// identity (stored as NormalizeEmail gives it) and is unique across users.
type User struct {
	Email     string `json:"email"`
	AccountID string `json:"accountId"`
	// PasswordHash is an argon2id hash in the PHC string format
	// (pkg/auth/passwords.Hash). Never the password itself.
	PasswordHash string    `json:"passwordHash"`
	CreatedAt    time.Time `json:"createdAt"`
}

// Session is a signed-in dashboard session. The token the browser holds is
// never stored: Hash is its SHA-256, hex encoded, and is the lookup key.
type Session struct {
	Hash      string    `json:"hash"`
	Email     string    `json:"email"`
	AccountID string    `json:"accountId"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// Valid reports whether the session may act at now.
func (s Session) Valid(now time.Time) bool { return now.Before(s.ExpiresAt) }

// NormalizeEmail is the form an email address is stored and looked up in:
// surrounding space removed and letters lower-cased. Mailbox names are
// case-sensitive in theory (RFC 5321 section 2.4) but not in practice, and
// two users differing only in case would be a trap.
func NormalizeEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
