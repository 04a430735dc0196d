package bolt

import (
	"context"
	"encoding/json"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/internal/normalize"
)

// TouchKey implements store.Store.
func (s *Store) TouchKey(ctx context.Context, hash string, at time.Time) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketKeyHashes).Get([]byte(hash))
		if id == nil {
			return store.ErrKeyNotFound
		}
		b := tx.Bucket(bucketKeys)
		var k account.Key
		if err := getJSON(b, string(id), &k, store.ErrKeyNotFound); err != nil {
			return err
		}
		at = at.UTC().Truncate(time.Second)
		if k.LastUsedAt != nil && !k.LastUsedAt.Before(at) {
			return nil
		}
		k.LastUsedAt = &at
		return putJSON(b, k.ID, k)
	})
}

// CreateUser implements store.Store.
func (s *Store) CreateUser(ctx context.Context, u account.User, a *account.Account) error {
	u = normalize.User(u)
	return s.update(ctx, func(tx *bbolt.Tx) error {
		users, accounts := tx.Bucket(bucketUsers), tx.Bucket(bucketAccounts)
		if users.Get([]byte(u.Email)) != nil {
			return store.ErrEmailTaken
		}
		if a != nil {
			if accounts.Get([]byte(a.ID)) != nil {
				return store.ErrExists
			}
			acct := *a
			acct.CreatedAt = acct.CreatedAt.UTC()
			if err := putJSON(accounts, acct.ID, acct); err != nil {
				return err
			}
		} else if accounts.Get([]byte(u.AccountID)) == nil {
			return store.ErrAccountNotFound
		}
		return putJSON(users, u.Email, u)
	})
}

// User implements store.Store.
func (s *Store) User(ctx context.Context, email string) (account.User, error) {
	var u account.User
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		return getJSON(tx.Bucket(bucketUsers), email, &u, store.ErrUserNotFound)
	})
	return normalize.User(u), err
}

// SetPassword implements store.Store.
func (s *Store) SetPassword(ctx context.Context, email, passwordHash string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketUsers)
		var u account.User
		if err := getJSON(b, email, &u, store.ErrUserNotFound); err != nil {
			return err
		}
		u.PasswordHash = passwordHash
		return putJSON(b, u.Email, u)
	})
}

// CreateSession implements store.Store.
func (s *Store) CreateSession(ctx context.Context, sess account.Session) error {
	sess = normalize.Session(sess)
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSessions)
		if b.Get([]byte(sess.Hash)) != nil {
			return store.ErrExists
		}
		return putJSON(b, sess.Hash, sess)
	})
}

// Session implements store.Store.
func (s *Store) Session(ctx context.Context, hash string) (account.Session, error) {
	var sess account.Session
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		return getJSON(tx.Bucket(bucketSessions), hash, &sess, store.ErrSessionNotFound)
	})
	return normalize.Session(sess), err
}

// DeleteSession implements store.Store.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketSessions).Delete([]byte(hash))
	})
}

// dropExpiredSessions deletes the sessions that expired before now: the
// embedded store's stand-in for DynamoDB's TTL, run at every Open.
func dropExpiredSessions(tx *bbolt.Tx, now time.Time) error {
	b := tx.Bucket(bucketSessions)
	var expired [][]byte
	err := b.ForEach(func(k, v []byte) error {
		var sess account.Session
		if json.Unmarshal(v, &sess) != nil || !sess.Valid(now) {
			expired = append(expired, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range expired {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
