// Command generate-policy is the Lambda function for POST /v1/policies/generate.
// It is wiring only: pkg/lambdaenv/awsenv builds the pkg/api handler for
// this one route from the environment and serves it.
package main

import "github.com/policygen/policygen/pkg/lambdaenv/awsenv"

func main() { awsenv.Serve("generatePolicy") }
