// Command delete-policy is the Lambda function for DELETE /v1/policies/{id}.
// It is wiring only: configuration from the environment (pkg/lambdaenv), the
// pkg/api handler for this one route, and the HTTP API v2 adapter.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/lambdaenv"
)

func main() {
	deps, err := lambdaenv.FromEnv(context.Background(), os.Getenv)
	if err != nil {
		lambdaenv.Exit(err)
	}
	h, err := api.NewRouteHandler("deletePolicy", deps)
	if err != nil {
		lambdaenv.Exit(err)
	}
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
