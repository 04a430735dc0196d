package wire

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
func statusOf(k errs.Kind) (int, bool) {
	switch k {
	case errs.Internal:
		return http.StatusInternalServerError, true
	case errs.Invalid:
		return http.StatusBadRequest, true
	case errs.Unprocessable:
		return http.StatusUnprocessableEntity, true
	case errs.Unauthenticated:
		return http.StatusUnauthorized, true
	case errs.Forbidden:
		return http.StatusForbidden, true
	case errs.NotFound:
		return http.StatusNotFound, true
	case errs.Conflict:
		return http.StatusConflict, true
	case errs.MethodNotAllowed:
		return http.StatusMethodNotAllowed, true
	case errs.TooLarge:
		return http.StatusRequestEntityTooLarge, true
	case errs.UnsupportedMedia:
		return http.StatusUnsupportedMediaType, true
	case errs.TooManyRequests:
		return http.StatusTooManyRequests, true
	case errs.Unavailable:
		return http.StatusServiceUnavailable, true
	}
	return 0, false
}

// UnavailableRetryAfter is the Retry-After, in seconds, of a 503: long
// enough for a throttled table to recover a little, short enough that a
// retrying client is not kept waiting for nothing.
const UnavailableRetryAfter = 2

// Problem is an RFC 9457 problem details object with Policygen's extension
// members code, requestId and errors.
type Problem struct {
	Type      string            `json:"type"`
	Title     string            `json:"title"`
	Status    int               `json:"status"`
	Detail    string            `json:"detail"`
	Code      string            `json:"code"`
	RequestID string            `json:"requestId"`
	Errors    []errs.FieldError `json:"errors,omitempty"`
}

// WriteError renders err as problem+json. Only *errs.Error values of a
// non-internal kind reach the client as they are; everything else is
// "internal error", and its cause is logged to logger (slog.Default() when
// nil) with the request id.
func WriteError(logger *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	status, p := ProblemOf(logger, w, r, err)
	WriteJSON(w, status, "application/problem+json", p)
}

// ProblemOf is the status and problem body for err, logged as WriteError
// logs it; w gets Retry-After for an outage (nil: none).
func ProblemOf(logger *slog.Logger, w http.ResponseWriter, r *http.Request, err error) (int, Problem) {
	logger = orDefault(logger)
	p := Problem{RequestID: Info(r.Context()).ID}
	e := errs.As(err)
	status, ok := 0, false
	if e != nil {
		status, ok = statusOf(e.Kind)
	}
	switch {
	case ok && e.Kind == errs.Unavailable:
		// An outage is not a bug: the client gets a retryable answer,
		// the log gets the cause.
		if w != nil && w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", strconv.Itoa(UnavailableRetryAfter))
		}
		p.Code, p.Detail = e.Code, e.Message
		logger.LogAttrs(r.Context(), slog.LevelWarn, "dependency unavailable",
			slog.String("requestId", p.RequestID),
			slog.String("method", r.Method),
			slog.String("path", RoutePath(r)),
			slog.String("error", err.Error()))
	case !ok || status >= 500:
		status = http.StatusInternalServerError
		p.Code, p.Detail = "internal_error", "internal error"
		logger.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("requestId", p.RequestID),
			slog.String("method", r.Method),
			slog.String("path", RoutePath(r)),
			slog.String("error", err.Error()))
	default:
		p.Code, p.Detail, p.Errors = e.Code, e.Message, e.Fields
	}
	p.Type = ProblemTypeBase + p.Code
	p.Title = http.StatusText(status)
	p.Status = status
	return status, p
}

// WriteJSON writes v as the whole response body. HTML escaping is off: the
// body is never embedded in HTML, and policy content keeps its < and >.
func WriteJSON(w http.ResponseWriter, status int, contentType string, v any) {
	WriteBody(w, status, contentType, EncodeJSON(v))
}

// EncodeJSON is the one JSON encoding of response bodies (pkg/api's
// encodePolicy writes the same bytes faster for a policy).
func EncodeJSON(v any) []byte { return EncodeJSONSized(v, 0) }

// EncodeJSONSized is EncodeJSON into a buffer of size bytes to begin with:
// a policy's summary is several KB, which a growing buffer would copy
// several times on the way.
func EncodeJSONSized(v any, size int) []byte {
	buf := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only our own response types reach here; they always encode.
		panic(err)
	}
	return buf.Bytes()
}

// WriteBody writes body as the whole response.
func WriteBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
