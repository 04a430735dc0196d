package store

import (
	"context"
	"errors"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
)

// CallTimeout is the deadline of one store call made through WithDeadline.
// A request makes at most four store calls in sequence (key, account, rate
// counter, write), so even a store that answers each one just in time stays
// under the Lambda timeout (10 s, template.yaml) and far under API Gateway's
// 30 s; a store that does not answer at all costs one CallTimeout, then 503.
const CallTimeout = 2 * time.Second

// ErrUnavailable is what a store call that could not complete in time, or
// that the store refused as overloaded, returns: the client may retry.
var ErrUnavailable = errs.E(errs.Unavailable, "service_unavailable",
	"the service's data store is not answering; retry in a few seconds")

// Unavailable wraps cause as ErrUnavailable, keeping cause for the logs.
func Unavailable(cause error) error {
	return errs.Wrap(cause, errs.Unavailable, ErrUnavailable.Code, ErrUnavailable.Message)
}

// WithDeadline returns s with every call bounded by d (CallTimeout when d is
// 0). A call that runs out of its own time is ErrUnavailable; one whose
// caller's context ended first keeps the caller's error.
func WithDeadline(s Store, d time.Duration) Store {
	if d <= 0 {
		d = CallTimeout
	}
	return &deadline{s: s, d: d}
}

type deadline struct {
	s Store
	d time.Duration
}

var _ Store = (*deadline)(nil)

// call runs fn under the deadline and classifies a timeout of its own.
func call[T any](ds *deadline, ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	cctx, cancel := context.WithTimeout(ctx, ds.d)
	defer cancel()
	v, err := fn(cctx)
	if err != nil && ctx.Err() == nil && cctx.Err() != nil && !errs.Is(err, errs.Unavailable) {
		// Our deadline, not the caller's: whatever the store returned
		// (context.DeadlineExceeded, a wrapped SDK error) means it did not
		// answer in time.
		if errs.As(err) == nil || errors.Is(err, context.DeadlineExceeded) {
			err = Unavailable(err)
		}
	}
	return v, err
}

func call0(ds *deadline, ctx context.Context, fn func(context.Context) error) error {
	_, err := call(ds, ctx, func(c context.Context) (struct{}, error) { return struct{}{}, fn(c) })
	return err
}

func (ds *deadline) CreateAccount(ctx context.Context, a account.Account) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.CreateAccount(c, a) })
}

func (ds *deadline) Account(ctx context.Context, id string) (account.Account, error) {
	return call(ds, ctx, func(c context.Context) (account.Account, error) { return ds.s.Account(c, id) })
}

func (ds *deadline) SetPlan(ctx context.Context, accountID string, plan account.Plan) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.SetPlan(c, accountID, plan) })
}

func (ds *deadline) ListAccounts(ctx context.Context) ([]account.Account, error) {
	return call(ds, ctx, ds.s.ListAccounts)
}

func (ds *deadline) AccountKeys(ctx context.Context, accountID string) ([]account.Key, error) {
	return call(ds, ctx, func(c context.Context) ([]account.Key, error) { return ds.s.AccountKeys(c, accountID) })
}

func (ds *deadline) HasAccounts(ctx context.Context) (bool, error) {
	return call(ds, ctx, ds.s.HasAccounts)
}

func (ds *deadline) CreateKey(ctx context.Context, k account.Key) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.CreateKey(c, k) })
}

func (ds *deadline) KeyByHash(ctx context.Context, hash string) (account.Key, error) {
	return call(ds, ctx, func(c context.Context) (account.Key, error) { return ds.s.KeyByHash(c, hash) })
}

func (ds *deadline) Key(ctx context.Context, id string) (account.Key, error) {
	return call(ds, ctx, func(c context.Context) (account.Key, error) { return ds.s.Key(c, id) })
}

func (ds *deadline) RevokeKey(ctx context.Context, id string, at time.Time) (account.Key, error) {
	return call(ds, ctx, func(c context.Context) (account.Key, error) { return ds.s.RevokeKey(c, id, at) })
}

func (ds *deadline) CreatePolicy(ctx context.Context, p Policy, opt CreateOptions) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.CreatePolicy(c, p, opt) })
}

func (ds *deadline) BeginIdempotent(ctx context.Context, cl IdempotencyClaim, fingerprint string, now time.Time) (*IdempotencyRecord, error) {
	return call(ds, ctx, func(c context.Context) (*IdempotencyRecord, error) {
		return ds.s.BeginIdempotent(c, cl, fingerprint, now)
	})
}

func (ds *deadline) CompleteIdempotent(ctx context.Context, r IdempotentResult) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.CompleteIdempotent(c, r) })
}

func (ds *deadline) ReleaseIdempotent(ctx context.Context, cl IdempotencyClaim) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.ReleaseIdempotent(c, cl) })
}

func (ds *deadline) CountRequest(ctx context.Context, accountID, keyID string, window time.Time, limit int) (int, bool, error) {
	type counted struct {
		n  int
		ok bool
	}
	v, err := call(ds, ctx, func(c context.Context) (counted, error) {
		n, ok, err := ds.s.CountRequest(c, accountID, keyID, window, limit)
		return counted{n, ok}, err
	})
	return v.n, v.ok, err
}

func (ds *deadline) Policy(ctx context.Context, accountID, id string) (Policy, error) {
	return call(ds, ctx, func(c context.Context) (Policy, error) { return ds.s.Policy(c, accountID, id) })
}

func (ds *deadline) ListPolicies(ctx context.Context, accountID string, opt ListOptions) (Page, error) {
	return call(ds, ctx, func(c context.Context) (Page, error) { return ds.s.ListPolicies(c, accountID, opt) })
}

func (ds *deadline) DeletePolicy(ctx context.Context, accountID, id string) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.DeletePolicy(c, accountID, id) })
}

func (ds *deadline) GenerationCount(ctx context.Context, accountID, month string) (int, error) {
	return call(ds, ctx, func(c context.Context) (int, error) { return ds.s.GenerationCount(c, accountID, month) })
}

func (ds *deadline) Close() error { return ds.s.Close() }

// Unwrap returns the store that WithDeadline wrapped, and whether s was one.
func Unwrap(s Store) (Store, bool) {
	if ds, ok := s.(*deadline); ok {
		return ds.s, true
	}
	return s, false
}
