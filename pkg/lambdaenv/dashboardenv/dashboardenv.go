// Package dashboardenv is the wiring of the dashboard's Lambda function. It
// is apart from pkg/lambdaenv/awsenv so that only the dashboard's binary
// links pkg/web (html/template and the pages): the API's functions would
// otherwise carry it, and its package inits, to every cold start.
package dashboardenv

import (
	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/lambdaenv"
	"github.com/policygen/policygen/pkg/lambdaenv/awsenv"
	"github.com/policygen/policygen/pkg/web"
)

// Serve is the main of the dashboard's function (template.yaml
// DashboardFunction, the routes of web.Routes): the same store and pepper
// as the API's functions (awsenv.FromEnv), the pages of pkg/web, and the
// API's fallback for any /v1 path that reaches it.
func Serve() {
	d := awsenv.FromEnv()
	dash, err := web.New(web.Deps{Store: d.Store, Hasher: d.Auth.Hasher, Now: d.Now, Logger: d.Logger})
	if err != nil {
		lambdaenv.Exit(err)
	}
	lambdaenv.Start(web.Mount(dash, wire.NewFallbackHandler(d.Logger)))
}
