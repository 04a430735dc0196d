// Package wire is what every answer of the API has in common, whatever
// serves it: the route table, request ids, the access log and panic
// recovery (Outer), errors rendered as RFC 9457 problem details (the one
// place an error becomes a response: WriteError), and the 404 and 405
// answers for requests no route serves (Router). pkg/api builds its
// handlers on it; the Lambda function behind API Gateway's $default route
// uses it alone (NewFallbackHandler), so that it links none of the domain
// to answer 404 (docs/DECISIONS.md 41).
package wire

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
)

// RequestIDHeader carries the request id in both directions.
const RequestIDHeader = "X-Request-Id"

// RequestInfo is what the middleware learns about a request as it passes
// through; the access log reads it at the end.
type RequestInfo struct {
	ID        string
	Route     string // the route's path pattern, once matched
	AccountID string // once authenticated: the access log names the account
}

type ctxKey struct{}

// Info is the request's RequestInfo (an empty one outside Outer).
func Info(ctx context.Context) *RequestInfo {
	if ri, ok := ctx.Value(ctxKey{}).(*RequestInfo); ok {
		return ri
	}
	return &RequestInfo{}
}

// WithInfo returns ctx carrying ri, as Outer sets it (for tests).
func WithInfo(ctx context.Context, ri *RequestInfo) context.Context {
	return context.WithValue(ctx, ctxKey{}, ri)
}

// RoutePath is what logs say instead of the raw path: the route pattern,
// never ids or anything else the client put in the path.
func RoutePath(r *http.Request) string {
	if rp := Info(r.Context()).Route; rp != "" {
		return rp
	}
	return "unmatched"
}

// Outer wraps h in the middleware every request passes through, matched or
// not: request id, security headers, access log (to logger, or
// slog.Default() when nil) and panic recovery.
func Outer(logger *slog.Logger, h http.Handler) http.Handler {
	logger = orDefault(logger)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := &RequestInfo{ID: RequestID(r)}
		r = r.WithContext(WithInfo(r.Context(), ri))
		hdr := w.Header()
		hdr.Set(RequestIDHeader, ri.ID)
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
					WriteError(logger, sw, r, fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
				} else {
					logger.LogAttrs(r.Context(), slog.LevelError, "panic after response started",
						slog.String("requestId", ri.ID), slog.String("panic", fmt.Sprint(v)),
						slog.String("stack", string(debug.Stack())))
				}
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("path", RoutePath(r)),
				slog.Int("status", status),
				slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000),
				slog.Int64("bytes", sw.bytes),
				slog.String("requestId", ri.ID),
			}
			if ri.AccountID != "" {
				attrs = append(attrs, slog.String("accountId", ri.AccountID))
			}
			logger.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
		}()
		h.ServeHTTP(sw, r)
	})
}

// orDefault is logger, or slog.Default() when it is nil.
func orDefault(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return slog.Default()
	}
	return logger
}

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

// lambdaRequestID is API Gateway's id of the request when it arrived through
// aws-lambda-go-api-proxy: the id in API Gateway's own access logs wins, so
// one id traces a request through both.
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
