// Command dashboard is the Lambda function of the web dashboard's pages
// (pkg/web). It is wiring only: pkg/lambdaenv/dashboardenv builds the
// handler from the environment and serves it.
package main

import "github.com/policygen/policygen/pkg/lambdaenv/dashboardenv"

func main() { dashboardenv.Serve() }
