// Command list-policies is the Lambda function for GET /v1/policies.
// It is wiring only: pkg/lambdaenv/awsenv builds the pkg/api handler for
// this one route from the environment and serves it.
package main

import "github.com/policygen/policygen/pkg/lambdaenv/awsenv"

func main() { awsenv.Serve("listPolicies") }
