package api

import (
	"fmt"
	"net/http"

	"github.com/policygen/policygen/pkg/api/wire"
)

// NewServer returns the handler for the whole API: every route, plus
// problem+json answers for unknown routes (404) and wrong methods (405).
func NewServer(d Deps) http.Handler {
	s := newServer(d)
	return wire.Outer(s.logger, s.router(routes))
}

// NewRouteHandler returns the handler for the one route called name (see
// Routes), with the same middleware as NewServer. Any other path answers
// 404 and any other method 405, so the handler also works when mounted
// where it receives every request.
func NewRouteHandler(name string, d Deps) (http.Handler, error) {
	for _, rt := range routes {
		if rt.Name == name {
			// Every route is known, so a request API Gateway sends here
			// that belongs to another route (GET /v1/policies/generate
			// reaches the GET /v1/policies/{id} function) gets the same
			// 405 or 404 as from NewServer.
			s := newServer(d)
			return wire.Outer(s.logger, s.router([]route{rt})), nil
		}
	}
	return nil, fmt.Errorf("api: no route named %q", name)
}

// router serves the routes given and knows every route, for the 404 and
// 405 answers (wire.Router).
func (s *server) router(served []route) *wire.Router {
	rt := wire.NewRouter(s.logger, Routes())
	for _, r := range served {
		rt.Handle(r.Route, s.routeHandler(r))
	}
	return rt
}
