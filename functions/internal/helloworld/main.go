// Command helloworld is the cold-start baseline: the smallest aws-lambda-go
// function, a plain lambda.Start with a trivial handler, built like the
// real functions (Makefile target build-HelloWorldBaseline, LAMBDA_BUILD).
// BenchmarkInit measures each function's init against it in the same run.
// It is not deployed (template.yaml has no such function).
package main

import "github.com/aws/aws-lambda-go/lambda"

func main() {
	lambda.Start(func() (string, error) { return "hello", nil })
}
