package api

import (
	"net/http"

	"github.com/policygen/policygen/pkg/api/wire"
)

// Route is one operation of the API (wire.Route).
type Route = wire.Route

// route binds a Route to its handler.
type route struct {
	Route
	// jsonBody marks routes that read a JSON request body: they require
	// Content-Type: application/json.
	jsonBody bool
	// anyPlan marks routes any plan's key may call (the catalog); the rest
	// need a plan with API access.
	anyPlan bool
	// maxBody bounds the request body; 0 means MaxBodyBytes.
	maxBody int64
	handler func(s *server, w http.ResponseWriter, r *http.Request) error
}

// routes binds a handler to each route of wire's route table, by name
// (TestEveryRouteHasOneHandler).
var routes = []route{
	{Route: wire.RouteNamed("generatePolicy"), jsonBody: true, handler: (*server).handleGenerate},
	{Route: wire.RouteNamed("bulkGeneratePolicies"), jsonBody: true, maxBody: MaxBulkBodyBytes, handler: (*server).handleBulk},
	{Route: wire.RouteNamed("listPolicies"), handler: (*server).handleList},
	{Route: wire.RouteNamed("getPolicy"), handler: (*server).handleGet},
	{Route: wire.RouteNamed("deletePolicy"), handler: (*server).handleDelete},
	{Route: wire.RouteNamed("getProfile"), handler: (*server).handleProfile},
	{Route: wire.RouteNamed("getCatalog"), anyPlan: true, handler: (*server).handleCatalog},
}

// Routes lists every route of the API (wire.Routes).
func Routes() []Route { return wire.Routes() }

func (rt route) bodyLimit() int64 {
	if rt.maxBody > 0 {
		return rt.maxBody
	}
	return MaxBodyBytes
}
