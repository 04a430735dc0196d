package web

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/auth/passwords"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
)

// authForm is the sign-in and sign-up pages' data.
type authForm struct {
	Name, Email string
	Next        string
	Error       string            // about the form as a whole
	Fields      map[string]string // field -> message
	Info        string
}

// localPath accepts only a path on this site as a place to return to after
// sign-in: "/x", never "//host" or "/\host" (which browsers treat as
// another host), so the sign-in page cannot be used to redirect elsewhere.
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") || strings.ContainsAny(p, "\r\n") {
		return "/policies"
	}
	return p
}

func (a *app) signInPage(w http.ResponseWriter, r *http.Request) {
	if visitOf(r).session != nil {
		http.Redirect(w, r, "/policies", http.StatusSeeOther)
		return
	}
	q := r.URL.Query()
	f := authForm{Next: localPath(q.Get("next"))}
	switch {
	case q.Get("expired") == "1":
		f.Info = "Your session has ended. Sign in again to continue."
	case q.Get("signedout") == "1":
		f.Info = "You are signed out."
	}
	a.render(w, r, http.StatusOK, "signin.html", page{Title: "Sign in", Data: f})
}

// errSignIn is the one answer to a failed sign-in, whether the email is
// unknown, has no password yet, or the password is wrong: the page must not
// tell which addresses have accounts.
const errSignIn = "The email address or the password is not right."

func (a *app) signIn(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	email := account.NormalizeEmail(r.PostForm.Get("email"))
	password := r.PostForm.Get("password")
	f := authForm{Email: email, Next: localPath(r.PostForm.Get("next"))}
	if ok, err := a.allowAttempt(r, "signin-email", email, SignInPerEmail); err != nil {
		a.failure(w, r, err)
		return
	} else if ok {
		ok, err = a.allowAttempt(r, "signin-addr", clientAddress(r), SignInPerAddress)
		if err != nil {
			a.failure(w, r, err)
			return
		}
		if !ok {
			f.Error = tooManyAttempts
		}
	} else {
		f.Error = tooManyAttempts
	}
	if f.Error != "" {
		w.Header().Set("Retry-After", "60")
		a.render(w, r, http.StatusTooManyRequests, "signin.html", page{Title: "Sign in", Data: f})
		return
	}
	u, err := a.store.User(r.Context(), email)
	switch {
	case err == nil && u.PasswordHash != "":
		if !passwords.Verify(u.PasswordHash, password) {
			err = errWrongPassword
		}
	case err == nil, errs.Is(err, errs.NotFound):
		// The same work as a wrong password, so the time taken does not
		// tell an unknown address from a known one.
		passwords.VerifyNobody(password)
		err = errWrongPassword
	}
	if errors.Is(err, errWrongPassword) {
		f.Error = errSignIn
		a.render(w, r, http.StatusUnauthorized, "signin.html", page{Title: "Sign in", Data: f})
		return
	}
	if err != nil {
		a.failure(w, r, err)
		return
	}
	if err := a.startSession(w, r, u); err != nil {
		a.failure(w, r, err)
		return
	}
	http.Redirect(w, r, f.Next, http.StatusSeeOther)
}

var errWrongPassword = errors.New("wrong password")

const tooManyAttempts = "Too many attempts. Wait a minute, then try again."

// allowAttempt counts one attempt of kind by subject in the current minute
// and reports whether it is within limit. Subjects are hashed: addresses and
// emails do not land in the store as such.
func (a *app) allowAttempt(r *http.Request, kind, subject string, limit int) (bool, error) {
	sum := sha256.Sum256([]byte(subject))
	window := a.now().UTC().Truncate(60e9)
	_, ok, err := a.store.CountRequest(r.Context(), "web", kind+"-"+hex.EncodeToString(sum[:16]), window, limit)
	return ok, err
}

func (a *app) signUpPage(w http.ResponseWriter, r *http.Request) {
	if visitOf(r).session != nil {
		http.Redirect(w, r, "/policies", http.StatusSeeOther)
		return
	}
	a.render(w, r, http.StatusOK, "signup.html", page{Title: "Create an account", Data: authForm{}})
}

// Field bounds of the sign-up form.
const (
	maxEmail       = 254 // RFC 5321 section 4.5.3.1.3, less the angle brackets
	maxAccountName = 200
)

func (a *app) signUp(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	name := strings.TrimSpace(r.PostForm.Get("name"))
	email := account.NormalizeEmail(r.PostForm.Get("email"))
	password := r.PostForm.Get("password")
	f := authForm{Name: name, Email: email, Fields: map[string]string{}}
	show := func(status int) {
		a.render(w, r, status, "signup.html", page{Title: "Create an account", Data: f})
	}
	if ok, err := a.allowAttempt(r, "signup-addr", clientAddress(r), SignUpPerAddress); err != nil {
		a.failure(w, r, err)
		return
	} else if !ok {
		w.Header().Set("Retry-After", "60")
		f.Error = tooManyAttempts
		show(http.StatusTooManyRequests)
		return
	}
	if n := utf8.RuneCountInString(name); n == 0 || n > maxAccountName || strings.ContainsFunc(name, isControl) {
		f.Fields["name"] = "Enter the name of your business or agency (up to 200 characters)."
	}
	if msg := checkEmail(email); msg != "" {
		f.Fields["email"] = msg
	}
	if err := passwords.Check(password, email); err != nil {
		f.Fields["password"] = errs.As(err).Message
	}
	if len(f.Fields) > 0 {
		f.Error = "Check the fields marked below."
		show(http.StatusUnprocessableEntity)
		return
	}
	hash, err := passwords.Hash(password)
	if err != nil {
		a.failure(w, r, err)
		return
	}
	now := a.now().UTC().Truncate(1e9)
	acct := account.Account{ID: ids.New(ids.Account), Email: email, Name: name, Plan: account.Starter, CreatedAt: now}
	u := account.User{Email: email, AccountID: acct.ID, PasswordHash: hash, CreatedAt: now}
	err = a.store.CreateUser(r.Context(), u, &acct)
	if errors.Is(err, store.ErrEmailTaken) {
		// Without sending mail there is no way to hide this from the one
		// who asks; sign-ups per address are limited (SignUpPerAddress).
		f.Fields["email"] = "An account with this email address exists. Sign in instead."
		f.Error = "Check the fields marked below."
		show(http.StatusConflict)
		return
	}
	if err != nil {
		a.failure(w, r, err)
		return
	}
	if err := a.startSession(w, r, u); err != nil {
		a.failure(w, r, err)
		return
	}
	http.Redirect(w, r, "/policies?welcome=1", http.StatusSeeOther)
}

// checkEmail returns what is wrong with an email address, or "".
func checkEmail(email string) string {
	if email == "" {
		return "Enter your email address."
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > maxEmail || !strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".") {
		return "Enter an email address such as name@example.com."
	}
	return ""
}

func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }

func (a *app) signOut(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	if v := visitOf(r); v.session != nil {
		if err := a.store.DeleteSession(r.Context(), v.session.Hash); err != nil {
			a.failure(w, r, err)
			return
		}
	}
	setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/signin?signedout=1", http.StatusSeeOther)
}
