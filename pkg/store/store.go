// Package store defines how Policygen persists accounts, API keys and
// policies. Two implementations satisfy the one Store contract: store/bolt
// (an embedded file, for one machine) and store/dynamo (one DynamoDB table).
// storetest holds the contract test suite both must pass.
//
// Every policy operation takes the account id: an implementation keys policy
// data by account, so no call can reach another account's items.
package store

import (
	"context"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/policy"
)

// Policy is a generated document as stored. Content is the large part; list
// reads return Summary values that leave it out.
type Policy struct {
	Summary
	Content string `json:"content"`
}

// Summary is a stored policy without its content.
type Summary struct {
	ID        string `json:"id"`
	AccountID string `json:"-"`
	// Request is the normalised generation request: with TemplateVersion it
	// reproduces Content byte for byte.
	policy.Request
	// Status is policy.StatusReady or policy.StatusNeedsInput; Todos the
	// inputs still needed.
	Status          string              `json:"status"`
	Todos           []compliance.Todo   `json:"todos"`
	RiskScore       int                 `json:"riskScore"`
	RiskLevel       string              `json:"riskLevel"`
	RiskFactors     []compliance.Factor `json:"riskFactors"`
	ComplianceFlags []compliance.Flag   `json:"complianceFlags"`
	TemplateVersion string              `json:"templateVersion"`
	CreatedAt       time.Time           `json:"createdAt"`
}

// Page is one page of a newest-first policy listing.
type Page struct {
	Items []Summary
	// Next is the id of the last item returned when more items follow, "" at
	// the end. Pass it as After to read the next page.
	Next string
}

// ListOptions selects a page of policies.
type ListOptions struct {
	Limit int    // 1..MaxListLimit
	After string // id of the last item of the previous page, or ""
}

// MaxListLimit bounds one page.
const MaxListLimit = 100

// MaxStoredContent bounds a policy's content as stored, compressed, in
// bytes: DynamoDB holds it in one item of at most 400 KB together with the
// metadata. Every store enforces it, so a document the embedded store
// accepts is one the DynamoDB store accepts too.
const MaxStoredContent = 350 << 10

// Store is the persistence contract. Errors are *errs.Error of kind NotFound
// or Conflict where the contract says so; anything else is Internal.
// Returned records are normalised: times in UTC, and a Summary's
// ThirdPartyServices, Todos, RiskFactors and ComplianceFlags are never nil.
type Store interface {
	// CreateAccount stores a new account. Conflict if the id exists.
	CreateAccount(ctx context.Context, a account.Account) error
	// Account returns an account. NotFound if there is none.
	Account(ctx context.Context, id string) (account.Account, error)
	// SetPlan changes an account's plan. NotFound if there is no such account.
	SetPlan(ctx context.Context, accountID string, plan account.Plan) error
	// ListAccounts returns every account, for operators (policyctl), in id
	// order (ids sort by creation time).
	ListAccounts(ctx context.Context) ([]account.Account, error)
	// AccountKeys returns the account's keys, revoked and expired ones
	// included, in id order. NotFound if there is no such account.
	AccountKeys(ctx context.Context, accountID string) ([]account.Key, error)
	// HasAccounts reports whether any account exists (used to seed a demo
	// account on an empty local store).
	HasAccounts(ctx context.Context) (bool, error)

	// CreateKey stores a key record. NotFound if the account does not exist;
	// Conflict if the id or hash exists.
	CreateKey(ctx context.Context, k account.Key) error
	// KeyByHash returns the key whose Hash is hash. NotFound if none.
	KeyByHash(ctx context.Context, hash string) (account.Key, error)
	// Key returns the key with this id. NotFound if none.
	Key(ctx context.Context, id string) (account.Key, error)
	// RevokeKey marks the key revoked from at on. NotFound if there is no
	// such key. The earlier of an existing and the new revocation time wins,
	// so revoking now overrides a revocation scheduled for later (key
	// rotation with a grace period) and a later call cannot extend a key.
	RevokeKey(ctx context.Context, id string, at time.Time) (account.Key, error)

	// TouchKey records that the key whose Hash is hash authenticated a
	// request at at, unless a later use is recorded already. NotFound if
	// there is no such key.
	TouchKey(ctx context.Context, hash string, at time.Time) error

	// CreateUser stores a dashboard user, and with it the new account a when
	// a is not nil (sign-up), atomically. Conflict (ErrEmailTaken) if a user
	// with the email exists, and then nothing is stored; NotFound if a is
	// nil and u's account does not exist.
	CreateUser(ctx context.Context, u account.User, a *account.Account) error
	// User returns the user with this email (account.NormalizeEmail form).
	// NotFound (ErrUserNotFound) if there is none.
	User(ctx context.Context, email string) (account.User, error)
	// SetPassword replaces a user's password hash. ErrUserNotFound if there
	// is no such user.
	SetPassword(ctx context.Context, email, passwordHash string) error
	// CreateSession stores a session. Conflict if the hash exists.
	CreateSession(ctx context.Context, s account.Session) error
	// Session returns the session whose Hash is hash, expired or not (the
	// caller checks Valid; stores drop expired sessions in time).
	// ErrSessionNotFound if there is none.
	Session(ctx context.Context, hash string) (account.Session, error)
	// DeleteSession removes a session (sign-out). Deleting a session that
	// does not exist is not an error.
	DeleteSession(ctx context.Context, hash string) error

	// CreatePolicy stores a policy and counts it in its account's usage for
	// the UTC month of CreatedAt, atomically, together with what opt asks
	// for: the quota check and the completion of an idempotency claim.
	// Conflict if the id exists; ErrTooLarge (and nothing stored or counted)
	// if the policy cannot be stored whole (see MaxStoredContent);
	// ErrQuotaExceeded (nothing stored) if the month's count has reached
	// opt.Quota; ErrClaimLost if opt.Idempotency's claim is no longer held.
	CreatePolicy(ctx context.Context, p Policy, opt CreateOptions) error
	// Policy returns one of the account's policies. NotFound if the account
	// has no policy with this id (whether or not another account has).
	Policy(ctx context.Context, accountID, id string) (Policy, error)
	// ListPolicies returns the account's policies, newest first. Invalid if
	// opt.Limit is outside 1..MaxListLimit.
	ListPolicies(ctx context.Context, accountID string, opt ListOptions) (Page, error)
	// DeletePolicy removes one of the account's policies. NotFound as Policy.
	DeletePolicy(ctx context.Context, accountID, id string) error
	// GenerationCount returns how many policies the account generated in the
	// UTC month "YYYY-MM". Deleting a policy does not lower the count.
	GenerationCount(ctx context.Context, accountID, month string) (int, error)

	// BeginIdempotent claims the account's idempotency key for a request
	// with fingerprint, made by owner (a random token) at now. It returns
	// nil when the claim is the caller's: the key was unused, its record had
	// expired (IdempotencyTTL), or an earlier claim's lease
	// (IdempotencyLease) ran out without completing. Otherwise it returns
	// the record that holds the key: pending (another request is running)
	// or done (its outcome to replay). Claim and check are one conditional
	// write, so of concurrent claims exactly one wins.
	BeginIdempotent(ctx context.Context, c IdempotencyClaim, fingerprint string, now time.Time) (*IdempotencyRecord, error)
	// CompleteIdempotent stores the outcome of a claimed request, to be
	// replayed until the record expires. ErrClaimLost if the claim is not
	// held by c.Owner any more.
	CompleteIdempotent(ctx context.Context, r IdempotentResult) error
	// ReleaseIdempotent drops a pending claim held by c.Owner (the request
	// failed, so the key may be used again). Releasing a claim not held is
	// not an error.
	ReleaseIdempotent(ctx context.Context, c IdempotencyClaim) error

	// CountRequest counts one request of the key in the rate window that
	// starts at window, unless limit requests were counted already. It
	// returns the count after this request (limit when refused) and whether
	// the request is allowed. Exact under concurrency: a conditional atomic
	// update, never read-then-write. The counter may be forgotten once the
	// window has ended.
	CountRequest(ctx context.Context, accountID, keyID string, window time.Time, limit int) (int, bool, error)

	Close() error
}

// CreateOptions are the conditions and companions of CreatePolicy.
type CreateOptions struct {
	// Quota, when above 0, is the most generations the account may make in
	// the policy's month.
	Quota int
	// Idempotency, when set, completes the caller's idempotency claim in
	// the same atomic write as the policy.
	Idempotency *IdempotentResult
}

// IdempotencyClaim names one request's hold on an account's idempotency key.
type IdempotencyClaim struct {
	AccountID string
	Key       string
	Owner     string // random per request
}

// IdempotentResult is the outcome of a claimed request, kept for replay.
type IdempotentResult struct {
	Claim    IdempotencyClaim
	Status   int
	Location string
	Body     []byte
	// At is when the request was made: the record expires IdempotencyTTL
	// after its claim.
	At time.Time
}

// IdempotencyRecord is what an idempotency key holds.
type IdempotencyRecord struct {
	Fingerprint string
	Done        bool
	Status      int
	Location    string
	Body        []byte
	CreatedAt   time.Time
}

// Idempotency lifetimes.
const (
	// IdempotencyTTL is how long a key's record (and so its outcome) is
	// kept: Stripe's 24 hours.
	IdempotencyTTL = 24 * time.Hour
	// IdempotencyLease is how long a pending claim blocks the key. A
	// request runs for at most the Lambda timeout (10 s) or policyd's write
	// timeout, so a claim older than this belongs to a process that died
	// before completing (kill -9, a lost connection to the store): a retry
	// may take the key over. Anything the dead request wrote atomically
	// with its outcome is replayed instead, because then the record is done.
	IdempotencyLease = 30 * time.Second
)

// Month formats t as the usage-counter month key.
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// Errors shared by implementations, so callers and the contract suite can
// match on codes.
var (
	ErrAccountNotFound = errs.E(errs.NotFound, "account_not_found", "account not found")
	ErrKeyNotFound     = errs.E(errs.NotFound, "key_not_found", "API key not found")
	ErrPolicyNotFound  = errs.E(errs.NotFound, "policy_not_found", "policy not found")
	ErrExists          = errs.E(errs.Conflict, "already_exists", "an item with this id already exists")
	ErrUserNotFound    = errs.E(errs.NotFound, "user_not_found", "user not found")
	ErrSessionNotFound = errs.E(errs.NotFound, "session_not_found", "session not found")
	ErrEmailTaken      = errs.E(errs.Conflict, "email_taken", "a user with this email address exists")
	ErrTooLarge        = errs.E(errs.TooLarge, "policy_too_large", "the policy is too large to store")
	// ErrQuotaExceeded: the account's generations this month reached its
	// plan's quota. pkg/api adds the reset time.
	ErrQuotaExceeded = errs.E(errs.TooManyRequests, "quota_exceeded", "the monthly generation quota of the plan is used up")
	// ErrClaimLost: an idempotency claim expired and another request took
	// the key over before this one completed.
	ErrClaimLost = errs.E(errs.Conflict, "idempotency_request_in_progress", "another request with this Idempotency-Key is in progress")
)
