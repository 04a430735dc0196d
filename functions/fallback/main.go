// Command fallback is the Lambda function behind the HTTP API's $default
// route: every request that matches no route gets pkg/api's problem+json 404,
// or 405 with Allow when the path exists under another method. API Gateway's
// own 404 is not problem+json.
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
	lambda.Start(httpadapter.NewV2(api.NewFallbackHandler(deps)).ProxyWithContext)
}
