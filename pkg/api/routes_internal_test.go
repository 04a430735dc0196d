package api

import (
	"testing"

	"github.com/policygen/policygen/pkg/api/wire"
)

// TestEveryRouteHasOneHandler: the route table lives in wire (the fallback
// needs it without the handlers); every route in it has exactly one
// handler here, and no handler is bound to a route it lacks (RouteNamed
// would panic at init).
func TestEveryRouteHasOneHandler(t *testing.T) {
	bound := map[string]int{}
	for _, r := range routes {
		bound[r.Name]++
		if r.handler == nil {
			t.Errorf("route %s has no handler", r.Name)
		}
	}
	for _, r := range wire.Routes() {
		if bound[r.Name] != 1 {
			t.Errorf("route %s (%s %s) has %d handlers, want 1", r.Name, r.Method, r.Path, bound[r.Name])
		}
		delete(bound, r.Name)
	}
	for name := range bound {
		t.Errorf("a handler is bound to %s, which wire's table lacks", name)
	}
}
