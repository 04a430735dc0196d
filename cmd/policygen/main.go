// Command policygen is the Policygen API's command-line client for
// customers: generate, list, get, delete, profile, bulk generation from a
// CSV file, and detection of the third-party services a web page loads.
// It is wiring only; run.go holds the commands.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
