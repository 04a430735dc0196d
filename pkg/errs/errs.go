// Package errs is the one error type of Policygen. Every package returns
// *errs.Error for failures a client should see; pkg/api maps Kind to an HTTP
// status in one table and renders RFC 9457 problem details. Anything that is
// not an *errs.Error is an internal error: the client sees "internal error"
// and the cause is logged with the request id.
package errs

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Kind classifies an error; pkg/api maps each Kind to one HTTP status.
type Kind int

const (
	Internal         Kind = iota // 500: a bug
	Invalid                      // 400: the request is malformed (syntax, types, unknown fields)
	Unprocessable                // 422: well-formed, but values are not acceptable
	Unauthenticated              // 401: no usable credentials
	Forbidden                    // 403: authenticated, but not allowed
	NotFound                     // 404
	Conflict                     // 409: a conditional write lost
	MethodNotAllowed             // 405
	TooLarge                     // 413
	UnsupportedMedia             // 415
	TooManyRequests              // 429: a rate limit or quota; Retry-After says when to try again
	Unavailable                  // 503: a dependency is down, slow or throttling; retrying later may work
)

// FieldError names one offending request field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	// Value is the value refused, for an unknown enumeration value.
	Value string `json:"value,omitempty"`
	// Suggestions are up to three accepted values close to Value.
	Suggestions []string `json:"suggestions,omitempty"`
}

// Error is a classified failure with a stable machine-readable code.
type Error struct {
	Kind    Kind
	Code    string // stable, snake_case, part of the API contract
	Message string // safe to show to the client
	Fields  []FieldError
	Err     error // cause; logged, never sent to the client
}

func (e *Error) Error() string {
	msg := e.Code + ": " + e.Message
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// E builds an *Error. A message with no verbs and no arguments is taken as
// it is: most are package-level errors made at init, where formatting them
// was a measurable part of a Lambda function's cold start.
func E(kind Kind, code, format string, args ...any) *Error {
	msg := format
	if len(args) > 0 || strings.IndexByte(format, '%') >= 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &Error{Kind: kind, Code: code, Message: msg}
}

// Wrap builds an *Error that keeps cause for the logs.
func Wrap(cause error, kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message, Err: cause}
}

// As returns the *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// KindOf returns the Kind of err; Internal when err is not classified.
func KindOf(err error) Kind {
	if e := As(err); e != nil {
		return e.Kind
	}
	return Internal
}

// Is reports whether err is classified with kind.
func Is(err error, kind Kind) bool { return err != nil && KindOf(err) == kind }

// Fields collects field errors and turns them into one error.
type Fields []FieldError

// Add records a problem with field.
func (f *Fields) Add(field, message string) {
	*f = append(*f, FieldError{Field: field, Message: message})
}

// AddValue records an unknown value of field, with suggestions.
func (f *Fields) AddValue(field, message, value string, suggestions []string) {
	*f = append(*f, FieldError{Field: field, Message: message, Value: value, Suggestions: suggestions})
}

// Err returns nil when no field errors were added, or one *Error of kind
// listing every field in a stable order.
func (f Fields) Err(kind Kind, code, message string) error {
	if len(f) == 0 {
		return nil
	}
	out := append([]FieldError(nil), f...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return &Error{Kind: kind, Code: code, Message: message, Fields: out}
}
