// Command fallback is the Lambda function behind the HTTP API's $default
// route: every request that matches no route gets pkg/api's problem+json 404,
// or 405 with Allow when the path exists under another method. API Gateway's
// own 404 is not problem+json.
package main

import "github.com/policygen/policygen/pkg/lambdaenv"

func main() { lambdaenv.ServeFallback() }
