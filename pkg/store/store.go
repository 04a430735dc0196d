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
	RiskScore       int               `json:"riskScore"`
	RiskLevel       string            `json:"riskLevel"`
	ComplianceFlags []compliance.Flag `json:"complianceFlags"`
	TemplateVersion string            `json:"templateVersion"`
	CreatedAt       time.Time         `json:"createdAt"`
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

// MaxStoredContent bounds a policy's content as stored, gzip-compressed, in
// bytes: DynamoDB holds it in one item of at most 400 KB together with the
// metadata. Every store enforces it, so a document the embedded store
// accepts is one the DynamoDB store accepts too.
const MaxStoredContent = 350 << 10

// Store is the persistence contract. Errors are *errs.Error of kind NotFound
// or Conflict where the contract says so; anything else is Internal.
// Returned records are normalised: times in UTC, and a Summary's
// ThirdPartyServices and ComplianceFlags are never nil.
type Store interface {
	// CreateAccount stores a new account. Conflict if the id exists.
	CreateAccount(ctx context.Context, a account.Account) error
	// Account returns an account. NotFound if there is none.
	Account(ctx context.Context, id string) (account.Account, error)
	// SetPlan changes an account's plan. NotFound if there is no such account.
	SetPlan(ctx context.Context, accountID string, plan account.Plan) error
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

	// CreatePolicy stores a policy and counts it in its account's usage for
	// the UTC month of CreatedAt, atomically. Conflict if the id exists;
	// ErrTooLarge (and nothing stored or counted) if the policy cannot be
	// stored whole (see MaxStoredContent).
	CreatePolicy(ctx context.Context, p Policy) error
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

	Close() error
}

// Month formats t as the usage-counter month key.
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// Errors shared by implementations, so callers and the contract suite can
// match on codes.
var (
	ErrAccountNotFound = errs.E(errs.NotFound, "account_not_found", "account not found")
	ErrKeyNotFound     = errs.E(errs.NotFound, "key_not_found", "API key not found")
	ErrPolicyNotFound  = errs.E(errs.NotFound, "policy_not_found", "policy not found")
	ErrExists          = errs.E(errs.Conflict, "already_exists", "an item with this id already exists")
	ErrTooLarge        = errs.E(errs.TooLarge, "policy_too_large", "the policy is too large to store")
)
