package web

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
)

type settingsData struct {
	Account   account.Account
	Limits    account.Limits
	Used      int
	Remaining int
	ResetsOn  time.Time
	APIAccess bool
	Keys      []keyRow
	Graces    []grace
}

type keyRow struct {
	account.Key
	State string // active, revoking (grace period), revoked, expired
}

type grace struct {
	Value, Label string
}

// Grace periods a rotation offers: how long the old key keeps working.
var graces = []grace{{"0", "None: revoke the old key now"}, {"1h", "1 hour"}, {"24h", "24 hours"}, {"168h", "7 days"}}

func (a *app) settingsData(r *http.Request) (settingsData, error) {
	s := visitOf(r).session
	acct, err := a.store.Account(r.Context(), s.AccountID)
	if err != nil {
		return settingsData{}, err
	}
	now := a.now().UTC()
	used, err := a.store.GenerationCount(r.Context(), acct.ID, store.Month(now))
	if err != nil {
		return settingsData{}, err
	}
	d := settingsData{
		Account: acct, Limits: a.limits(acct.Plan), Used: used, APIAccess: acct.Plan.HasAPIAccess(),
		ResetsOn: time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0),
		Graces:   graces,
	}
	d.Remaining = max(d.Limits.MonthlyGenerations-used, 0)
	if d.APIAccess {
		keys, err := a.store.AccountKeys(r.Context(), acct.ID)
		if err != nil {
			return settingsData{}, err
		}
		// Newest first: the key just made is at the top.
		slices.Reverse(keys)
		for _, k := range keys {
			d.Keys = append(d.Keys, keyRow{Key: k, State: keyState(k, now)})
		}
	}
	return d, nil
}

func keyState(k account.Key, now time.Time) string {
	switch {
	case k.RevokedAt != nil && !now.Before(*k.RevokedAt):
		return "revoked"
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return "expired"
	case k.RevokedAt != nil:
		return "revoking"
	}
	return "active"
}

func (a *app) settings(w http.ResponseWriter, r *http.Request) {
	d, err := a.settingsData(r)
	if err != nil {
		a.failure(w, r, err)
		return
	}
	p := page{Title: "Settings", Data: d}
	if r.URL.Query().Get("revoked") == "1" {
		p.Notice = "The key was revoked. Requests with it are refused from now on."
	}
	a.render(w, r, http.StatusOK, "settings.html", p)
}

// keyIssued is the page that shows a new key's secret, the only time it is
// ever shown.
type keyIssued struct {
	Secret string
	Key    account.Key
	Old    *account.Key // the rotated key, with its revocation time
	// Warning: the new key exists but the old one could not be revoked.
	Warning string
}

// apiAccount checks that the signed-in account may hold API keys; if not it
// has answered 403.
func (a *app) apiAccount(w http.ResponseWriter, r *http.Request) (account.Account, bool) {
	acct, err := a.store.Account(r.Context(), visitOf(r).session.AccountID)
	if err != nil {
		a.failure(w, r, err)
		return account.Account{}, false
	}
	if !acct.Plan.HasAPIAccess() {
		a.errorPage(w, r, http.StatusForbidden, "API keys need the Agency plan",
			"Your account is on the "+titleCase(string(acct.Plan))+" plan, which uses the dashboard only. API access comes with the Agency plan.")
		return account.Account{}, false
	}
	return acct, true
}

func (a *app) createKey(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	acct, ok := a.apiAccount(w, r)
	if !ok {
		return
	}
	secret, k, err := auth.Issue(r.Context(), a.store, a.hasher, acct.ID, a.now(), nil)
	if err != nil {
		a.failure(w, r, err)
		return
	}
	a.render(w, r, http.StatusOK, "keyissued.html", page{Title: "New API key", Data: keyIssued{Secret: secret, Key: k}})
}

// ownKey reads the key in the path if it belongs to the signed-in account;
// another account's key is a 404 like a missing one.
func (a *app) ownKey(w http.ResponseWriter, r *http.Request, acct account.Account) (account.Key, bool) {
	id := r.PathValue("id")
	var k account.Key
	var err error = store.ErrKeyNotFound
	if ids.Valid(ids.Key, id) {
		k, err = a.store.Key(r.Context(), id)
	}
	if err == nil && k.AccountID != acct.ID {
		err = store.ErrKeyNotFound
	}
	if errs.Is(err, errs.NotFound) {
		a.errorPage(w, r, http.StatusNotFound, "Key not found", "There is no such API key in your account.")
		return account.Key{}, false
	}
	if err != nil {
		a.failure(w, r, err)
		return account.Key{}, false
	}
	return k, true
}

func (a *app) rotateKey(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	acct, ok := a.apiAccount(w, r)
	if !ok {
		return
	}
	old, ok := a.ownKey(w, r, acct)
	if !ok {
		return
	}
	g, err := time.ParseDuration(strings.TrimSpace(r.PostForm.Get("grace")))
	if err != nil || !slices.ContainsFunc(graces, func(x grace) bool { d, _ := time.ParseDuration(x.Value); return d == g }) {
		a.errorPage(w, r, http.StatusUnprocessableEntity, "Choose a grace period", "Pick how long the old key keeps working from the list.")
		return
	}
	now := a.now()
	secret, k, oldKey, err := auth.Rotate(r.Context(), a.store, a.hasher, old.ID, now, now.Add(g))
	switch {
	case errs.As(err) != nil && errs.As(err).Code == auth.ErrKeyNotUsable.Code:
		a.errorPage(w, r, http.StatusConflict, "Key already revoked", "This key no longer works, so there is nothing to rotate. Create a new key instead.")
		return
	case err != nil && secret == "":
		a.failure(w, r, err)
		return
	}
	d := keyIssued{Secret: secret, Key: k, Old: &oldKey}
	if err != nil {
		// The new key exists and its secret can be shown only now; the old
		// key's revocation failed and is reported with it.
		a.logger.Error("rotate: revoke old key", "error", err.Error())
		d.Old, d.Warning = nil, "The old key could not be scheduled for revocation. It still works: revoke it in Settings."
	}
	a.render(w, r, http.StatusOK, "keyissued.html", page{Title: "New API key", Data: d})
}

func (a *app) revokeKey(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	acct, ok := a.apiAccount(w, r)
	if !ok {
		return
	}
	k, ok := a.ownKey(w, r, acct)
	if !ok {
		return
	}
	if _, err := a.store.RevokeKey(r.Context(), k.ID, a.now().UTC()); err != nil {
		a.failure(w, r, err)
		return
	}
	http.Redirect(w, r, "/settings?revoked=1", http.StatusSeeOther)
}
