package awsenv

import (
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/lambdaenv"
	"github.com/policygen/policygen/pkg/web"
)

// ServeDashboard is the main of the dashboard's function (template.yaml
// DashboardFunction, the routes of web.Routes): the same store and pepper
// as the API's functions, the pages of pkg/web, and the API's fallback for
// any /v1 path that reaches it.
func ServeDashboard() {
	d := deps()
	dash, err := web.New(web.Deps{Store: d.Store, Hasher: d.Auth.Hasher, Now: d.Now, Logger: d.Logger})
	if err != nil {
		lambdaenv.Exit(err)
	}
	lambdaenv.Start(web.Mount(dash, api.NewFallbackHandler(d)))
}
