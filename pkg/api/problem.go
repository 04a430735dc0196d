package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/policygen/policygen/pkg/errs"
)

// ProblemTypeBase prefixes a problem's code to form its RFC 9457 type URI,
// e.g. https://policygen.dev/problems/validation_failed. The URI identifies
// the problem type; clients should branch on code, which is the same string.
const ProblemTypeBase = "https://policygen.dev/problems/"

// statusOf is the one mapping from error kinds to HTTP statuses.
var statusOf = map[errs.Kind]int{
	errs.Internal:         http.StatusInternalServerError,
	errs.Invalid:          http.StatusBadRequest,
	errs.Unprocessable:    http.StatusUnprocessableEntity,
	errs.Unauthenticated:  http.StatusUnauthorized,
	errs.Forbidden:        http.StatusForbidden,
	errs.NotFound:         http.StatusNotFound,
	errs.Conflict:         http.StatusConflict,
	errs.MethodNotAllowed: http.StatusMethodNotAllowed,
	errs.TooLarge:         http.StatusRequestEntityTooLarge,
	errs.UnsupportedMedia: http.StatusUnsupportedMediaType,
	errs.TooManyRequests:  http.StatusTooManyRequests,
	errs.Unavailable:      http.StatusServiceUnavailable,
}

// UnavailableRetryAfter is the Retry-After, in seconds, of a 503: long
// enough for a throttled table to recover a little, short enough that a
// retrying client is not kept waiting for nothing.
const UnavailableRetryAfter = 2

// problem is an RFC 9457 problem details object with Policygen's extension
// members code, requestId and errors.
type problem struct {
	Type      string            `json:"type"`
	Title     string            `json:"title"`
	Status    int               `json:"status"`
	Detail    string            `json:"detail"`
	Code      string            `json:"code"`
	RequestID string            `json:"requestId"`
	Errors    []errs.FieldError `json:"errors,omitempty"`
}

// handlerFunc is a handler that reports failure by returning an error; the
// error is written by handle, the one place errors become responses.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc to http.Handler.
func (s *server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// writeError renders err as problem+json. Only *errs.Error values of a
// non-internal kind reach the client as they are; everything else is
// "internal error", and its cause is logged with the request id.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, p := s.problemOf(w, r, err)
	writeJSON(w, status, "application/problem+json", p)
}

// problemOf is the status and problem body for err, logged as writeError
// logs it; w gets Retry-After for an outage (nil: none).
func (s *server) problemOf(w http.ResponseWriter, r *http.Request, err error) (int, problem) {
	p := problem{RequestID: requestID(r.Context())}
	e := errs.As(err)
	status, ok := 0, false
	if e != nil {
		status, ok = statusOf[e.Kind]
	}
	switch {
	case ok && e.Kind == errs.Unavailable:
		// An outage is not a bug: the client gets a retryable answer,
		// the log gets the cause.
		if w != nil && w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", strconv.Itoa(UnavailableRetryAfter))
		}
		p.Code, p.Detail = e.Code, e.Message
		s.logger.LogAttrs(r.Context(), slog.LevelWarn, "dependency unavailable",
			slog.String("requestId", p.RequestID),
			slog.String("method", r.Method),
			slog.String("path", routePath(r)),
			slog.String("error", err.Error()))
	case !ok || status >= 500:
		status = http.StatusInternalServerError
		p.Code, p.Detail = "internal_error", "internal error"
		s.logger.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("requestId", p.RequestID),
			slog.String("method", r.Method),
			slog.String("path", routePath(r)),
			slog.String("error", err.Error()))
	default:
		p.Code, p.Detail, p.Errors = e.Code, e.Message, e.Fields
	}
	p.Type = ProblemTypeBase + p.Code
	p.Title = http.StatusText(status)
	p.Status = status
	return status, p
}

// writeJSON writes v as the whole response body. HTML escaping is off: the
// body is never embedded in HTML, and policy content keeps its < and >.
func writeJSON(w http.ResponseWriter, status int, contentType string, v any) {
	writeBody(w, status, contentType, encodeJSON(v))
}

// encodeJSON is the one JSON encoding of response bodies (encodePolicy
// writes the same bytes faster for a policy).
func encodeJSON(v any) []byte { return encodeJSONSized(v, 0) }

// encodeJSONSized is encodeJSON into a buffer of size bytes to begin with:
// a policy's summary is several KB, which a growing buffer would copy
// several times on the way.
func encodeJSONSized(v any, size int) []byte {
	buf := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only our own response types reach here; they always encode.
		panic(err)
	}
	return buf.Bytes()
}

// writeBody writes body as the whole response.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
