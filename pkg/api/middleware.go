package api

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/errs"
)

// routeInfo is what the per-route middleware learns about a request: the
// handlers read it.
type routeInfo struct {
	principal auth.Principal // the authenticated caller
	maxBody   int64          // the matched route's body limit
}

type routeKey struct{}

func info(ctx context.Context) *routeInfo {
	if ri, ok := ctx.Value(routeKey{}).(*routeInfo); ok {
		return ri
	}
	return &routeInfo{}
}

// routeHandler wraps a route's handler in the per-route middleware:
// authentication, the plan check, and for routes with a body the media type
// check and the size limit.
func (s *server) routeHandler(rt route) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		wi := wire.Info(r.Context())
		wi.Route = rt.Path
		ri := &routeInfo{}
		r = r.WithContext(context.WithValue(r.Context(), routeKey{}, ri))
		// Several Authorization headers are joined as API Gateway joins
		// them, so they fail here as they do behind it, rather than the
		// first one winning.
		p, err := s.auth.Authenticate(r.Context(), strings.Join(r.Header.Values("Authorization"), ","))
		if err != nil {
			if errs.Is(err, errs.Unauthenticated) {
				w.Header().Set("WWW-Authenticate", auth.Challenge(err))
			}
			return err
		}
		ri.principal, wi.AccountID = p, p.Account.ID
		if !rt.anyPlan {
			if err := auth.RequireAPIAccess(p); err != nil {
				return err
			}
		}
		if err := s.limitRate(w, r, p); err != nil {
			return err
		}
		ri.maxBody = rt.bodyLimit()
		if rt.jsonBody {
			mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			// JSON is UTF-8 (RFC 8259 §8.1); a body declared in another
			// charset would be misread, its non-ASCII text silently
			// replaced, so it is refused rather than guessed at.
			cs, hasCharset := params["charset"]
			if err != nil || mt != "application/json" || hasCharset && !strings.EqualFold(cs, "utf-8") {
				return errs.E(errs.UnsupportedMedia, "unsupported_media_type",
					"the request body must be UTF-8 JSON, sent with Content-Type: application/json")
			}
			if r.ContentLength > ri.maxBody {
				return tooLarge(ri.maxBody)
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, ri.maxBody)
		handler := func(w http.ResponseWriter, r *http.Request) error { return rt.handler(s, w, r) }
		if r.Method == http.MethodPost {
			return s.idempotent(w, r, rt.Path, handler)
		}
		return handler(w, r)
	})
}

// tooLarge is the 413 for a body over limit bytes.
func tooLarge(limit int64) error {
	return errs.E(errs.TooLarge, "request_too_large", "the request body must be at most %d bytes", limit)
}

// readBody reads a route's whole body: 413 past its limit, 400 if the
// connection fails.
func readBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if isTooLarge(err) {
			return nil, tooLarge(info(r.Context()).maxBody)
		}
		return nil, errs.Wrap(err, errs.Invalid, "invalid_body", "the request body could not be read")
	}
	return body, nil
}

// isTooLarge reports whether err came from reading past MaxBodyBytes.
func isTooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}
