package storetest

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/store"
)

// The dashboard's entities: users (sign-up, sign-in, passwords), sessions,
// and the last-use time of API keys it lists.

func newUser(acct string) account.User {
	return account.User{
		Email:        acct + "@users.example",
		AccountID:    acct,
		PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
		CreatedAt:    base,
	}
}

func newSession(u account.User, expires time.Time) account.Session {
	k := newKey(u.AccountID, nil) // a random 64-hex string, as a session hash is
	return account.Session{Hash: k.Hash, Email: u.Email, AccountID: u.AccountID, CreatedAt: base, ExpiresAt: expires}
}

var userTests = []test{
	{"SignUpStoresAccountAndUser", func(t *testing.T, st store.Store) {
		a := newAccount(account.Starter)
		u := newUser(a.ID)
		if err := st.CreateUser(ctx(t), u, &a); err != nil {
			t.Fatalf("CreateUser with account: %v", err)
		}
		got, err := st.User(ctx(t), u.Email)
		if err != nil || !reflect.DeepEqual(got, u) {
			t.Errorf("User = %+v, %v; want %+v", got, err, u)
		}
		gotA, err := st.Account(ctx(t), a.ID)
		if err != nil || gotA != a {
			t.Errorf("Account = %+v, %v; want %+v", gotA, err, a)
		}
	}},
	{"TakenEmailStoresNothing", func(t *testing.T, st store.Store) {
		a := newAccount(account.Starter)
		u := newUser(a.ID)
		if err := st.CreateUser(ctx(t), u, &a); err != nil {
			t.Fatal(err)
		}
		b := newAccount(account.Starter)
		again := u
		again.AccountID = b.ID
		err := st.CreateUser(ctx(t), again, &b)
		if !errors.Is(err, store.ErrEmailTaken) {
			t.Fatalf("second sign-up with the same email = %v, want email_taken", err)
		}
		if _, err := st.Account(ctx(t), b.ID); !errs.Is(err, errs.NotFound) {
			t.Errorf("the refused sign-up's account exists: %v", err)
		}
		if got, _ := st.User(ctx(t), u.Email); got.AccountID != a.ID {
			t.Errorf("user now belongs to %s, want %s", got.AccountID, a.ID)
		}
	}},
	{"UserForExistingAccount", func(t *testing.T, st store.Store) {
		a := newAccount(account.Agency)
		mustCreateAccount(t, st, a)
		u := newUser(a.ID)
		if err := st.CreateUser(ctx(t), u, nil); err != nil {
			t.Fatalf("CreateUser for an existing account: %v", err)
		}
		missing := newUser(newAccount(account.Agency).ID)
		err := st.CreateUser(ctx(t), missing, nil)
		if !errors.Is(err, store.ErrAccountNotFound) {
			t.Errorf("CreateUser for a missing account = %v, want account_not_found", err)
		}
		if _, err := st.User(ctx(t), missing.Email); !errors.Is(err, store.ErrUserNotFound) {
			t.Errorf("user of a missing account stored: %v", err)
		}
	}},
	{"ConcurrentSignUpsOneWins", func(t *testing.T, st store.Store) {
		email := newAccount(account.Starter).ID + "@race.example"
		var wg sync.WaitGroup
		results := make([]error, racers)
		for i := range racers {
			wg.Go(func() {
				a := newAccount(account.Starter)
				u := newUser(a.ID)
				u.Email = email
				results[i] = st.CreateUser(ctx(t), u, &a)
			})
		}
		wg.Wait()
		won := 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, store.ErrEmailTaken):
				t.Errorf("losing sign-up: %v, want email_taken", err)
			}
		}
		if won != 1 {
			t.Errorf("%d of %d concurrent sign-ups with one email succeeded, want 1", won, racers)
		}
	}},
	{"SetPassword", func(t *testing.T, st store.Store) {
		a := newAccount(account.Pro)
		u := newUser(a.ID)
		if err := st.CreateUser(ctx(t), u, &a); err != nil {
			t.Fatal(err)
		}
		if err := st.SetPassword(ctx(t), u.Email, "$argon2id$new"); err != nil {
			t.Fatalf("SetPassword: %v", err)
		}
		got, err := st.User(ctx(t), u.Email)
		if err != nil || got.PasswordHash != "$argon2id$new" || got.AccountID != a.ID || !got.CreatedAt.Equal(base) {
			t.Errorf("after SetPassword: %+v, %v", got, err)
		}
		err = st.SetPassword(ctx(t), "nobody@users.example", "$argon2id$x")
		if !errors.Is(err, store.ErrUserNotFound) {
			t.Errorf("SetPassword of an unknown user = %v, want user_not_found", err)
		}
		if _, err := st.User(ctx(t), "nobody@users.example"); !errors.Is(err, store.ErrUserNotFound) {
			t.Errorf("SetPassword created a user: %v", err)
		}
	}},
}

var sessionTests = []test{
	{"CreateReadDelete", func(t *testing.T, st store.Store) {
		u := newUser(newAccount(account.Starter).ID)
		s := newSession(u, base.Add(time.Hour))
		if err := st.CreateSession(ctx(t), s); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		got, err := st.Session(ctx(t), s.Hash)
		if err != nil || !reflect.DeepEqual(got, s) {
			t.Errorf("Session = %+v, %v; want %+v", got, err, s)
		}
		if err := st.CreateSession(ctx(t), s); !errs.Is(err, errs.Conflict) {
			t.Errorf("second CreateSession with one hash = %v, want a conflict", err)
		}
		if err := st.DeleteSession(ctx(t), s.Hash); err != nil {
			t.Fatalf("DeleteSession: %v", err)
		}
		if _, err := st.Session(ctx(t), s.Hash); !errors.Is(err, store.ErrSessionNotFound) {
			t.Errorf("deleted session still read: %v", err)
		}
		if err := st.DeleteSession(ctx(t), s.Hash); err != nil {
			t.Errorf("deleting a deleted session: %v", err)
		}
	}},
	{"SessionsAreApart", func(t *testing.T, st store.Store) {
		u := newUser(newAccount(account.Starter).ID)
		a, b := newSession(u, base.Add(time.Hour)), newSession(u, base.Add(2*time.Hour))
		for _, s := range []account.Session{a, b} {
			if err := st.CreateSession(ctx(t), s); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.DeleteSession(ctx(t), a.Hash); err != nil {
			t.Fatal(err)
		}
		if got, err := st.Session(ctx(t), b.Hash); err != nil || !got.ExpiresAt.Equal(b.ExpiresAt) {
			t.Errorf("signing out one session ended another: %+v, %v", got, err)
		}
	}},
}

var keyUseTests = []test{
	{"TouchKeyKeepsTheLatest", func(t *testing.T, st store.Store) {
		a := newAccount(account.Agency)
		mustCreateAccount(t, st, a)
		k := newKey(a.ID, nil)
		mustCreateKey(t, st, k)
		if got, _ := st.Key(ctx(t), k.ID); got.LastUsedAt != nil {
			t.Fatalf("new key has LastUsedAt %v", got.LastUsedAt)
		}
		later := base.Add(2 * time.Hour).Truncate(time.Second)
		if err := st.TouchKey(ctx(t), k.Hash, later); err != nil {
			t.Fatalf("TouchKey: %v", err)
		}
		if err := st.TouchKey(ctx(t), k.Hash, base.Add(time.Hour)); err != nil {
			t.Fatalf("TouchKey earlier: %v", err)
		}
		got, err := st.KeyByHash(ctx(t), k.Hash)
		if err != nil || got.LastUsedAt == nil || !got.LastUsedAt.Equal(later) {
			t.Errorf("LastUsedAt = %v, %v; want %v (an earlier use must not move it back)", got.LastUsedAt, err, later)
		}
		if err := st.TouchKey(ctx(t), newKey(a.ID, nil).Hash, later); !errors.Is(err, store.ErrKeyNotFound) {
			t.Errorf("TouchKey of an unknown hash = %v, want key_not_found", err)
		}
	}},
}
