package api

import (
	"net/http"

	"github.com/policygen/policygen/pkg/api/wire"
)

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

// writeError renders err as problem+json (wire.WriteError, the one place
// an error becomes a response), logging to the server's logger.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	wire.WriteError(s.logger, w, r, err)
}
