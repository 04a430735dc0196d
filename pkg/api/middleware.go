package api

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/errs"
)

// RequestIDHeader carries the request id in both directions.
const RequestIDHeader = "X-Request-Id"

// requestInfo is what the middleware learns about a request as it passes
// through; the access log reads it at the end.
type requestInfo struct {
	id        string
	route     string         // the route's path pattern, once matched
	principal auth.Principal // once authenticated; the access log names its account
	maxBody   int64          // the matched route's body limit
}

type ctxKey struct{}

func info(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(ctxKey{}).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

func requestID(ctx context.Context) string { return info(ctx).id }

// routePath is what logs say instead of the raw path: the route pattern,
// never ids or anything else the client put in the path.
func routePath(r *http.Request) string {
	if rp := info(r.Context()).route; rp != "" {
		return rp
	}
	return "unmatched"
}

// outer wraps h in the middleware every request passes through, matched or
// not: request id, security headers, access log and panic recovery.
func (s *server) outer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := &requestInfo{id: RequestID(r)}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, ri))
		hdr := w.Header()
		hdr.Set(RequestIDHeader, ri.id)
		hdr.Set("Cache-Control", "no-store")
		hdr.Set("X-Content-Type-Options", "nosniff")

		sw := &statusWriter{ResponseWriter: w}
		start := time.Now()
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				if sw.status == 0 {
					// Drop what the handler had set (Location, say) for its
					// success response; keep the common headers.
					for k := range hdr {
						if k != RequestIDHeader && k != "Cache-Control" && k != "X-Content-Type-Options" {
							delete(hdr, k)
						}
					}
					s.writeError(sw, r, fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
				} else {
					s.logger.LogAttrs(r.Context(), slog.LevelError, "panic after response started",
						slog.String("requestId", ri.id), slog.String("panic", fmt.Sprint(v)),
						slog.String("stack", string(debug.Stack())))
				}
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", routePath(r)),
				slog.Int("status", status),
				slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000),
				slog.Int64("bytes", sw.bytes),
				slog.String("requestId", ri.id),
			}
			if id := ri.principal.Account.ID; id != "" {
				attrs = append(attrs, slog.String("accountId", id))
			}
			s.logger.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
		}()
		h.ServeHTTP(sw, r)
	})
}

// lambdaRequestID is API Gateway's id of the request when it arrived through
// aws-lambda-go-api-proxy: the id in API Gateway's own access logs wins, so
// one id traces a request through both.
// RequestID is the id a request is logged and answered under: API
// Gateway's request id in Lambda, else the client's X-Request-Id when it is
// safe to echo, else a new one. The dashboard uses it too.
func RequestID(r *http.Request) string {
	if id := lambdaRequestID(r.Context()); id != "" {
		return id
	}
	if id := incomingRequestID(r.Header.Get(RequestIDHeader)); id != "" {
		return id
	}
	return newRequestID()
}

func lambdaRequestID(ctx context.Context) string {
	if gw, ok := core.GetAPIGatewayV2ContextFromContext(ctx); ok {
		return incomingRequestID(gw.RequestID)
	}
	return ""
}

// incomingRequestID accepts a client's request id when it is short and made
// of safe characters, so a caller can correlate its logs with ours; anything
// else is replaced by a fresh id.
func incomingRequestID(s string) string {
	if len(s) == 0 || len(s) > 128 {
		return ""
	}
	for _, c := range []byte(s) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == ':' || c == '='
		if !ok {
			return ""
		}
	}
	return s
}

func newRequestID() string { return "req_" + strings.ToLower(rand.Text()) }

// statusWriter records the status and size of a response for the access
// log, and whether the header was sent (so a panic can still get a 500).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// routeHandler wraps a route's handler in the per-route middleware:
// authentication, the plan check, and for routes with a body the media type
// check and the size limit.
func (s *server) routeHandler(rt route) http.Handler {
	return s.handle(func(w http.ResponseWriter, r *http.Request) error {
		ri := info(r.Context())
		ri.route = rt.Path
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
		ri.principal = p
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
