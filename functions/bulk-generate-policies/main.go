// Command bulk-generate-policies is the Lambda function for
// POST /v1/policies/bulk. It is wiring only: pkg/lambdaenv/awsenv builds the
// pkg/api handler for this one route from the environment and serves it.
package main

import "github.com/policygen/policygen/pkg/lambdaenv/awsenv"

func main() { awsenv.Serve("bulkGeneratePolicies") }
