// Command get-catalog is the Lambda function for GET /v1/catalog.
// It is wiring only: pkg/lambdaenv builds the pkg/api handler for this one
// route from the environment and serves it.
package main

import "github.com/policygen/policygen/pkg/lambdaenv"

func main() { lambdaenv.Serve("getCatalog") }
