package lambdaenv

import (
	"context"
	"os"

	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/web"
)

// ServeDashboard is the main of the dashboard's function (template.yaml
// DashboardFunction, the routes of web.Routes): the same store and pepper
// as the API's functions, the pages of pkg/web, and the API's fallback for
// any /v1 path that reaches it.
func ServeDashboard() {
	cfg, err := Load(os.Getenv)
	if err != nil {
		exit(err)
	}
	deps, err := NewDeps(context.Background(), cfg, os.Stdout)
	if err != nil {
		exit(err)
	}
	dash, err := web.New(web.Deps{Store: deps.Store, Hasher: deps.Auth.Hasher, Now: deps.Now, Logger: deps.Logger})
	if err != nil {
		exit(err)
	}
	start(web.Mount(dash, api.NewFallbackHandler(deps)))
}
