package store

import (
	"context"
	"time"

	"github.com/policygen/policygen/pkg/account"
)

// The deadline decorator of the dashboard's store calls (users, sessions)
// and of key-use recording.

func (ds *deadline) TouchKey(ctx context.Context, hash string, at time.Time) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.TouchKey(c, hash, at) })
}

func (ds *deadline) CreateUser(ctx context.Context, u account.User, a *account.Account) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.CreateUser(c, u, a) })
}

func (ds *deadline) User(ctx context.Context, email string) (account.User, error) {
	return call(ds, ctx, func(c context.Context) (account.User, error) { return ds.s.User(c, email) })
}

func (ds *deadline) SetPassword(ctx context.Context, email, passwordHash string) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.SetPassword(c, email, passwordHash) })
}

func (ds *deadline) CreateSession(ctx context.Context, s account.Session) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.CreateSession(c, s) })
}

func (ds *deadline) Session(ctx context.Context, hash string) (account.Session, error) {
	return call(ds, ctx, func(c context.Context) (account.Session, error) { return ds.s.Session(c, hash) })
}

func (ds *deadline) DeleteSession(ctx context.Context, hash string) error {
	return call0(ds, ctx, func(c context.Context) error { return ds.s.DeleteSession(c, hash) })
}
