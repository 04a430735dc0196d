// Package functions holds one Lambda binary per API route, each in its own
// directory (functions/<route>/main.go) and built by the Makefile target
// build-<LogicalId> that template.yaml's BuildMethod: makefile calls.
//
// The tests here check the deployment as a whole: template.yaml against
// pkg/api's route table and the table schema, every make target against the
// bootstrap it must produce, and every built binary, run as a process
// against an in-test Lambda Runtime API, against its events/ sample.
package functions
