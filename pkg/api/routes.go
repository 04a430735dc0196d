package api

import "net/http"

// Route is one operation of the API. Path is in API Gateway form
// (/v1/policies/{id}), which is also the net/http ServeMux pattern syntax.
type Route struct {
	Name   string // operationId in openapi.yaml; selects the handler in NewRouteHandler
	Method string
	Path   string
}

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

// routes is the one route table: everything that serves or describes the API
// (NewServer, NewRouteHandler, template.yaml's test, openapi.yaml's test)
// derives from it.
var routes = []route{
	{Route: Route{"generatePolicy", "POST", "/v1/policies/generate"}, jsonBody: true, handler: (*server).handleGenerate},
	{Route: Route{"bulkGeneratePolicies", "POST", "/v1/policies/bulk"}, jsonBody: true, maxBody: MaxBulkBodyBytes, handler: (*server).handleBulk},
	{Route: Route{"listPolicies", "GET", "/v1/policies"}, handler: (*server).handleList},
	{Route: Route{"getPolicy", "GET", "/v1/policies/{id}"}, handler: (*server).handleGet},
	{Route: Route{"deletePolicy", "DELETE", "/v1/policies/{id}"}, handler: (*server).handleDelete},
	{Route: Route{"getProfile", "GET", "/v1/auth/profile"}, handler: (*server).handleProfile},
	{Route: Route{"getCatalog", "GET", "/v1/catalog"}, anyPlan: true, handler: (*server).handleCatalog},
}

// Routes lists every route of the API.
func Routes() []Route {
	out := make([]Route, len(routes))
	for i, r := range routes {
		out[i] = r.Route
	}
	return out
}

func (rt route) bodyLimit() int64 {
	if rt.maxBody > 0 {
		return rt.maxBody
	}
	return MaxBodyBytes
}
