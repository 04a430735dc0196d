package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/errs"
)

// Cookie names. Over HTTPS they carry the __Host- prefix, which browsers
// accept only for Secure cookies of this exact host and path "/", so no
// sibling subdomain can set or shadow them (RFC 6265bis section 4.1.3.2).
const (
	sessionCookie = "pg_session"
	csrfCookie    = "pg_csrf"
	hostPrefix    = "__Host-"
)

// secureRequest reports whether cookies must be Secure: always, except for
// plain HTTP to a loopback address (make run), where a Secure cookie would
// never come back.
func secureRequest(r *http.Request) bool {
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip == nil || !ip.IsLoopback()
}

func cookieName(r *http.Request, name string) string {
	if secureRequest(r) {
		return hostPrefix + name
	}
	return name
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name:     cookieName(r, name),
		Value:    value,
		Path:     "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   secureRequest(r),
		SameSite: http.SameSiteLaxMode,
	})
}

func readCookie(r *http.Request, name string) string {
	c, err := r.Cookie(cookieName(r, name))
	if err != nil {
		return ""
	}
	return c.Value
}

// visit is what the dashboard knows about the browser making a request.
type visit struct {
	csrfSecret string // the CSRF cookie's value
	token      string // the session token, "" when signed out
	session    *account.Session
	expired    bool // a session cookie came with an expired session
}

type visitKey struct{}

func visitOf(r *http.Request) *visit {
	if v, ok := r.Context().Value(visitKey{}).(*visit); ok {
		return v
	}
	return &visit{}
}

// withSession reads the session and CSRF cookies, giving the browser a CSRF
// cookie on its first visit, and loads the session the cookie names.
func (a *app) withSession(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := &visit{csrfSecret: readCookie(r, csrfCookie)}
		if len(v.csrfSecret) != 43 { // 32 bytes, base64url
			v.csrfSecret = randomToken()
			setCookie(w, r, csrfCookie, v.csrfSecret, 0)
		}
		if tok := readCookie(r, sessionCookie); tok != "" && len(tok) <= 64 {
			s, err := a.store.Session(r.Context(), auth.SessionHash(tok))
			switch {
			case err == nil && s.Valid(a.now()):
				v.token, v.session = tok, &s
			case err == nil:
				v.expired = true
				_ = a.store.DeleteSession(r.Context(), s.Hash)
				setCookie(w, r, sessionCookie, "", -1)
			case errs.Is(err, errs.NotFound):
				setCookie(w, r, sessionCookie, "", -1)
			default:
				a.failure(w, r, err)
				return
			}
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), visitKey{}, v)))
	})
}

// signedIn sends a signed-out browser to the sign-in page, with the page it
// asked for to return to.
func (a *app) signedIn(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := visitOf(r)
		if v.session == nil {
			q := url.Values{}
			if r.Method == http.MethodGet {
				q.Set("next", r.URL.RequestURI())
			}
			if v.expired {
				q.Set("expired", "1")
			}
			target := "/signin"
			if len(q) > 0 {
				target += "?" + q.Encode()
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return
		}
		h(w, r)
	}
}

// startSession signs the user in: a new session, its token in the cookie.
func (a *app) startSession(w http.ResponseWriter, r *http.Request, u account.User) error {
	tok, hash := auth.NewSessionToken()
	now := a.now().UTC()
	s := account.Session{Hash: hash, Email: u.Email, AccountID: u.AccountID, CreatedAt: now, ExpiresAt: now.Add(a.sessionTTL)}
	if err := a.store.CreateSession(r.Context(), s); err != nil {
		return err
	}
	setCookie(w, r, sessionCookie, tok, int(a.sessionTTL.Seconds()))
	v := visitOf(r)
	v.token, v.session = tok, &s
	return nil
}

// csrfToken is the token every form of this browser carries: an HMAC keyed
// by the browser's CSRF cookie over its session token. Another site can
// neither read the cookie nor the page, so it cannot produce the token; and
// a token from before a sign-in does not work after it.
func csrfToken(v *visit) string {
	m := hmac.New(sha256.New, []byte(v.csrfSecret))
	m.Write([]byte("policygen csrf\x00"))
	m.Write([]byte(v.token))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// maxFormBytes bounds a form body: the generate form with every service
// ticked is about 10 KB.
const maxFormBytes = 64 << 10

// parseForm reads a POSTed form and checks its CSRF token. On failure it has
// answered (413 or 403) and returns false.
func (a *app) parseForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		a.errorPage(w, r, http.StatusRequestEntityTooLarge, "Form too large", "The form could not be read. Go back and send less.")
		return false
	}
	v := visitOf(r)
	got := r.PostForm.Get("csrf")
	if got == "" || !hmac.Equal([]byte(got), []byte(csrfToken(v))) {
		a.errorPage(w, r, http.StatusForbidden, "This form has expired",
			"The form was not sent from this browser's current Policygen page. Go back, reload the page and send it again.")
		return false
	}
	return true
}

func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// clientAddress is the address that sign-in attempts are counted against:
// the TCP peer in policyd, API Gateway's sourceIp in Lambda (the adapter
// puts it in RemoteAddr). X-Forwarded-For is not trusted: anyone can send it.
func clientAddress(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}
