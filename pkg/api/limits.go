package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
)

// RateWindow is the per-key rate limit's window: fixed, starting on the
// minute (UTC).
const RateWindow = time.Minute

// Names of the quota policies in the RateLimit-Policy and RateLimit fields
// (draft-ietf-httpapi-ratelimit-headers-10).
const (
	ratePolicyName  = "per-key"
	quotaPolicyName = "monthly"
)

// secondsUntil is the whole seconds from now to t, at least 1: the
// Retry-After and the RateLimit t parameter.
func secondsUntil(now, t time.Time) int {
	d := t.Sub(now)
	s := int((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// limitRate counts the request against its key's per-minute rate (one
// conditional store update) and announces the limit on the response, as the
// IETF RateLimit fields: RateLimit-Policy `"per-key";q=LIMIT;w=60` and
// RateLimit `"per-key";r=REMAINING;t=SECONDS`. Over the limit it is 429
// rate_limited with Retry-After.
func (s *server) limitRate(w http.ResponseWriter, r *http.Request, p auth.Principal) error {
	now := s.now().UTC()
	limit := s.limits(p.Account.Plan).RequestsPerMinute
	window := now.Truncate(RateWindow)
	n, ok, err := s.store.CountRequest(r.Context(), p.Account.ID, p.Key.ID, window, limit)
	if err != nil {
		return internal(err, "count request")
	}
	reset := secondsUntil(now, window.Add(RateWindow))
	h := w.Header()
	h.Set("RateLimit-Policy", fmt.Sprintf(`"%s";q=%d;w=%d`, ratePolicyName, limit, int(RateWindow/time.Second)))
	h.Set("RateLimit", fmt.Sprintf(`"%s";r=%d;t=%d`, ratePolicyName, limit-n, reset))
	if !ok {
		h.Set("Retry-After", strconv.Itoa(reset))
		return errs.E(errs.TooManyRequests, "rate_limited",
			"this API key has made %d requests this minute, the most its plan allows; retry in %d s", limit, reset)
	}
	return nil
}

// monthStart is the first instant of t's UTC month.
func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// quotaExceeded is the 429 for a generation over the plan's monthly quota:
// Retry-After and the RateLimit fields say when the quota resets.
func quotaExceeded(w http.ResponseWriter, now time.Time, quota int) error {
	reset := monthStart(now).AddDate(0, 1, 0)
	secs := secondsUntil(now, reset)
	h := w.Header()
	month := int(reset.Sub(monthStart(now)) / time.Second)
	appendField(h, "RateLimit-Policy", fmt.Sprintf(`"%s";q=%d;w=%d`, quotaPolicyName, quota, month))
	appendField(h, "RateLimit", fmt.Sprintf(`"%s";r=0;t=%d`, quotaPolicyName, secs))
	h.Set("Retry-After", strconv.Itoa(secs))
	return errs.E(errs.TooManyRequests, "quota_exceeded",
		"the plan's %d generations for %s are used up; the quota resets at %s",
		quota, store.Month(now), reset.Format(time.RFC3339))
}

// appendField adds a member to a list-valued field in the one line the
// RateLimit fields are sent in.
func appendField(h http.Header, name, member string) {
	if v := h.Get(name); v != "" {
		member = v + ", " + member
	}
	h.Set(name, member)
}

// Fingerprint identifies a request for Idempotency-Key: its method, route
// pattern and body bytes. A retry must match it to get the stored outcome.
func Fingerprint(method, route string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(method + " " + route + idempotencyFingerprintSep))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// IdempotencyKeyHeader is the request header of idempotent POSTs.
const (
	IdempotencyKeyHeader      = "Idempotency-Key"
	IdempotentReplayedHeader  = "Idempotent-Replayed"
	maxIdempotencyKeyLen      = 255
	idempotencyOwnerIDPrefix  = "req_"
	idempotencyFingerprintSep = "\n"
)

var (
	errBadIdempotencyKey = errs.E(errs.Invalid, "invalid_idempotency_key",
		"the Idempotency-Key header must be 1-255 printable ASCII characters (a UUID is a good choice)")
	errIdempotencyReused = errs.E(errs.Unprocessable, "idempotency_key_reused",
		"this Idempotency-Key was used with a different request; use a new key for a new request")
	errIdempotencyInProgress = errs.E(errs.Conflict, "idempotency_request_in_progress",
		"a request with this Idempotency-Key is still being processed; retry after it finishes")
)

func validIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > maxIdempotencyKeyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// idemState is a claimed idempotency key as the handler sees it.
type idemState struct {
	claim store.IdempotencyClaim
	// completed is set by a handler that stored its outcome itself, in the
	// same write as what it created (generate does).
	completed bool
}

type idemCtxKey struct{}

// idempotency returns the request's claim, or nil when it sent no key.
func idempotency(ctx context.Context) *idemState {
	st, _ := ctx.Value(idemCtxKey{}).(*idemState)
	return st
}

// idempotent runs next under Stripe's Idempotency-Key semantics when the
// request carries the header: the first request with a key claims it; its
// successful (2xx) outcome is kept for store.IdempotencyTTL and replayed
// byte for byte, with Idempotent-Replayed: true, to any later request with
// the same key and the same method, route and body; a different request
// with the key is 422 idempotency_key_reused; one while the first still
// runs is 409 idempotency_request_in_progress. A failed request (4xx, 5xx)
// releases the key, so it can be retried.
func (s *server) idempotent(w http.ResponseWriter, r *http.Request, route string, next func(http.ResponseWriter, *http.Request) error) error {
	vals := r.Header.Values(IdempotencyKeyHeader)
	if len(vals) == 0 {
		return next(w, r)
	}
	if len(vals) > 1 || !validIdempotencyKey(vals[0]) {
		return errBadIdempotencyKey
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	fp := Fingerprint(r.Method, route, body)

	p := info(r.Context()).principal
	st := &idemState{claim: store.IdempotencyClaim{AccountID: p.Account.ID, Key: vals[0], Owner: ids.New(idempotencyOwnerIDPrefix)}}
	rec, err := s.store.BeginIdempotent(r.Context(), st.claim, fp, s.now().UTC())
	if err != nil {
		return internal(err, "begin idempotent request")
	}
	switch {
	case rec != nil && rec.Fingerprint != fp:
		return errIdempotencyReused
	case rec != nil && !rec.Done:
		return errIdempotencyInProgress
	case rec != nil:
		h := w.Header()
		if rec.Location != "" {
			h.Set("Location", rec.Location)
		}
		h.Set(IdempotentReplayedHeader, "true")
		wire.WriteBody(w, rec.Status, "application/json", rec.Body)
		return nil
	}

	tw := &teeWriter{ResponseWriter: w}
	err = next(tw, r.WithContext(context.WithValue(r.Context(), idemCtxKey{}, st)))
	switch {
	case st.completed:
	case err == nil && tw.status >= 200 && tw.status < 300:
		res := store.IdempotentResult{Claim: st.claim, Status: tw.status, Location: w.Header().Get("Location"), Body: tw.body.Bytes(), At: s.now().UTC()}
		if cerr := s.store.CompleteIdempotent(context.WithoutCancel(r.Context()), res); cerr != nil {
			// The response is already on its way; a retry will re-run
			// the request once the claim's lease ends. Log it.
			s.logger.Warn("idempotent outcome not stored", "requestId", wire.Info(r.Context()).ID, "error", cerr.Error())
		}
	default:
		// Release even if the client has gone, so its retry is not blocked
		// until the lease ends.
		if rerr := s.store.ReleaseIdempotent(context.WithoutCancel(r.Context()), st.claim); rerr != nil {
			s.logger.Warn("idempotency claim not released", "requestId", wire.Info(r.Context()).ID, "error", rerr.Error())
		}
	}
	return err
}

// teeWriter passes a response through and keeps a copy of its status and
// body, for storing the outcome of an idempotent request.
type teeWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (t *teeWriter) WriteHeader(code int) {
	if t.status == 0 {
		t.status = code
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *teeWriter) Write(b []byte) (int, error) {
	if t.status == 0 {
		t.status = http.StatusOK
	}
	t.body.Write(b)
	return t.ResponseWriter.Write(b)
}

func (t *teeWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
