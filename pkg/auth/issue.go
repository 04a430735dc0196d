package auth

import (
	"context"
	"fmt"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
)

// Issue creates a new API key for accountID and stores its record. The
// secret is returned once and never stored; the caller must hand it to the
// user now. expiresAt, if set, must be after now. The store answers NotFound
// if the account does not exist.
func Issue(ctx context.Context, st store.Store, h *Hasher, accountID string, now time.Time, expiresAt *time.Time) (secret string, k account.Key, err error) {
	now = now.UTC()
	if expiresAt != nil {
		if !expiresAt.After(now) {
			return "", account.Key{}, errs.E(errs.Invalid, "invalid_expiry", "the expiry time must be in the future")
		}
		t := expiresAt.UTC()
		expiresAt = &t
	}
	secret, err = NewKey()
	if err != nil {
		return "", account.Key{}, err
	}
	hash, err := h.Hash(ctx, secret)
	if err != nil {
		return "", account.Key{}, err
	}
	k = account.Key{
		ID:        ids.New(ids.Key),
		AccountID: accountID,
		Hash:      hash,
		Prefix:    Prefix,
		Last4:     Last4(secret),
		CreatedAt: now,
		ExpiresAt: expiresAt,
	}
	if err := st.CreateKey(ctx, k); err != nil {
		return "", account.Key{}, err
	}
	return secret, k, nil
}

// ErrKeyNotUsable is returned when rotating a key that is already revoked or
// expired: there is nothing to hand over from, so issue a new key instead.
var ErrKeyNotUsable = errs.E(errs.Conflict, "key_not_usable", "the API key is already revoked or expired; issue a new key instead of rotating")

// Rotate replaces the key keyID: it issues a new key for the same account
// and schedules the old one's revocation at revokeOldAt (now if zero, or if
// earlier than now), so clients can switch over during a grace period. If
// the old key expires, the new key gets the same lifetime counted from now.
//
// The new key is issued before the old one is revoked, so a failure never
// leaves the account without a working key. If the revocation fails, the new
// key is still returned together with the error: it exists and works, and
// its secret cannot be shown again.
func Rotate(ctx context.Context, st store.Store, h *Hasher, keyID string, now, revokeOldAt time.Time) (secret string, newKey, oldKey account.Key, err error) {
	now = now.UTC()
	old, err := st.Key(ctx, keyID)
	if err != nil {
		return "", account.Key{}, account.Key{}, err
	}
	if !old.Usable(now) {
		return "", account.Key{}, old, ErrKeyNotUsable
	}
	var expiresAt *time.Time
	if old.ExpiresAt != nil {
		t := now.Add(old.ExpiresAt.Sub(old.CreatedAt))
		expiresAt = &t
	}
	secret, newKey, err = Issue(ctx, st, h, old.AccountID, now, expiresAt)
	if err != nil {
		return "", account.Key{}, old, err
	}
	if revokeOldAt.IsZero() || revokeOldAt.Before(now) {
		revokeOldAt = now
	}
	oldKey, err = st.RevokeKey(ctx, old.ID, revokeOldAt.UTC())
	if err != nil {
		return secret, newKey, old, fmt.Errorf("auth: new key %s issued, but revoking old key %s failed: %w", newKey.ID, old.ID, err)
	}
	return secret, newKey, oldKey, nil
}
