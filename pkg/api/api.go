// Package api is Policygen's HTTP interface: the handlers for each route of
// the route table and the per-route middleware (authentication and plan
// check, rate limits and quota, idempotency, body limits). What every answer
// shares (the route table, request ids, the access log, panic recovery and
// errors rendered in one place as RFC 9457 problem details) is
// pkg/api/wire.
//
// The same handlers serve every deployment: NewServer mounts all routes for
// cmd/policyd and tests; NewRouteHandler mounts one route for the Lambda
// function of that route; wire.NewFallbackHandler answers requests no route
// matched (API Gateway's $default route) without them.
package api

import (
	"log/slog"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/store"
)

// Deps are what the handlers need. Store and Auth are required; Now
// defaults to time.Now and Logger to slog.Default().
type Deps struct {
	Store  store.Store
	Auth   *auth.Authenticator
	Now    func() time.Time
	Logger *slog.Logger
	// Limits gives a plan's quota and rate; nil means account.Plan.Limits
	// (docs/LIMITS.md). Tests set small limits.
	Limits func(account.Plan) account.Limits
}

// Limits that are part of the API contract (docs/API.md, openapi.yaml).
const (
	// MaxBodyBytes bounds a request body; a larger one is answered with 413.
	MaxBodyBytes = 64 << 10
	// MaxBulkBodyBytes bounds a bulk request (up to MaxBulkItems requests).
	MaxBulkBodyBytes = 1 << 20
	// MaxBulkItems bounds the items of one bulk request.
	MaxBulkItems = 100
	// DefaultListLimit is the page size of GET /v1/policies without limit.
	DefaultListLimit = 20
	// MaxListLimit is the largest accepted limit.
	MaxListLimit = store.MaxListLimit
)

// server holds the resolved dependencies shared by handlers and middleware.
type server struct {
	store  store.Store
	auth   *auth.Authenticator
	now    func() time.Time
	logger *slog.Logger
	limits func(account.Plan) account.Limits
}

func newServer(d Deps) *server {
	s := &server{store: d.Store, auth: d.Auth, now: d.Now, logger: d.Logger, limits: d.Limits}
	if s.limits == nil {
		s.limits = account.Plan.Limits
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	return s
}
