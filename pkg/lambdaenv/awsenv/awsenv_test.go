package awsenv_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/policygen/policygen/pkg/lambdaenv"
	"github.com/policygen/policygen/pkg/lambdaenv/awsenv"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// TestNewDepsDoesNoNetworkIO points both AWS endpoints at a server that
// counts requests: building the dependencies (the cold start) must not call
// it, and neither may a request with a malformed key.
func TestNewDepsDoesNoNetworkIO(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "unexpected call", http.StatusTeapot)
	}))
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", srv.URL)
	t.Setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", srv.URL)
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")

	cfg, err := lambdaenv.Load(env(map[string]string{"TABLE_NAME": "t", "PEPPER_SECRET_ID": "s"}))
	if err != nil {
		t.Fatal(err)
	}
	deps, err := awsenv.NewDeps(context.Background(), cfg, os.Getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if deps.Store == nil || deps.Auth == nil || deps.Now == nil || deps.Logger == nil {
		t.Fatalf("incomplete deps: %+v", deps)
	}
	for _, header := range []string{"", "Bearer nope", "Bearer pol_live_0000000000000000000000000000000000000A"} {
		if _, err := deps.Auth.Authenticate(context.Background(), header); err == nil {
			t.Errorf("Authenticate(%q) succeeded", header)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d network calls during init and failed authentication, want 0", n)
	}
}

func TestAWSConfig(t *testing.T) {
	ctx := context.Background()
	lambda := map[string]string{
		"AWS_REGION":            "eu-west-1",
		"AWS_DEFAULT_REGION":    "eu-west-1",
		"AWS_ACCESS_KEY_ID":     "ASIAEXAMPLE",
		"AWS_SECRET_ACCESS_KEY": "secret",
		"AWS_SESSION_TOKEN":     "token",
	}
	cfg, err := awsenv.AWSConfig(env(lambda))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AWS.Region != "eu-west-1" || cfg.AWS.BaseEndpoint != nil || cfg.DynamoDBEndpoint != "" || cfg.SecretsManagerEndpoint != "" {
		t.Errorf("config = %+v", cfg)
	}
	creds, err := cfg.AWS.Credentials.Retrieve(ctx)
	if err != nil || creds.AccessKeyID != "ASIAEXAMPLE" || creds.SecretAccessKey != "secret" || creds.SessionToken != "token" {
		t.Errorf("credentials = %+v, %v", creds, err)
	}

	// AWS_DEFAULT_REGION alone; endpoint overrides as the SDK reads them.
	cfg, err = awsenv.AWSConfig(env(map[string]string{
		"AWS_DEFAULT_REGION":               "us-east-1",
		"AWS_ENDPOINT_URL":                 "http://127.0.0.1:1",
		"AWS_ENDPOINT_URL_DYNAMODB":        "http://127.0.0.1:8000",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER": "http://127.0.0.1:9000",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AWS.Region != "us-east-1" || aws.ToString(cfg.AWS.BaseEndpoint) != "http://127.0.0.1:1" ||
		cfg.DynamoDBEndpoint != "http://127.0.0.1:8000" || cfg.SecretsManagerEndpoint != "http://127.0.0.1:9000" {
		t.Errorf("config = %+v", cfg)
	}
	// No credentials: an error on use, not at init (SAM local with
	// DynamoDB Local and PEPPER needs none).
	if _, err := cfg.AWS.Credentials.Retrieve(ctx); !errors.Is(err, awsenv.ErrNoCredentials) {
		t.Errorf("credentials error = %v, want ErrNoCredentials", err)
	}

	cfg, err = awsenv.AWSConfig(env(map[string]string{
		"AWS_REGION":                          "us-east-1",
		"AWS_ENDPOINT_URL_DYNAMODB":           "http://127.0.0.1:8000",
		"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true",
	}))
	if err != nil || cfg.DynamoDBEndpoint != "" {
		t.Errorf("ignored endpoints: %+v, %v", cfg, err)
	}

	if _, err := awsenv.AWSConfig(env(map[string]string{})); err == nil {
		t.Error("no region: no error")
	}
}

// TestNewDepsEndpoints: the per-service endpoint variables reach the
// clients, so the store and the pepper are read where the tests (and
// DynamoDB Local runs) point them.
func TestNewDepsEndpoints(t *testing.T) {
	var dynamoCalls, smCalls atomic.Int32
	dyn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dynamoCalls.Add(1)
		http.Error(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"no table"}`, http.StatusBadRequest)
	}))
	defer dyn.Close()
	sm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		smCalls.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		io.WriteString(w, `{"Name":"s","SecretString":"0123456789abcdef0123456789abcdef"}`)
	}))
	defer sm.Close()
	getenv := env(map[string]string{
		"AWS_REGION":                       "eu-west-1",
		"AWS_ACCESS_KEY_ID":                "test",
		"AWS_SECRET_ACCESS_KEY":            "test",
		"AWS_ENDPOINT_URL_DYNAMODB":        dyn.URL,
		"AWS_ENDPOINT_URL_SECRETS_MANAGER": sm.URL,
	})
	cfg, err := lambdaenv.Load(env(map[string]string{"TABLE_NAME": "t", "PEPPER_SECRET_ID": "s"}))
	if err != nil {
		t.Fatal(err)
	}
	deps, err := awsenv.NewDeps(context.Background(), cfg, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := deps.Auth.Hasher.Hash(context.Background(), "pol_live_x"); err != nil {
		t.Errorf("hash with the pepper from the fake Secrets Manager: %v", err)
	}
	if _, err := deps.Store.Account(context.Background(), "acct_x"); err == nil {
		t.Error("Account on a missing table succeeded")
	}
	if smCalls.Load() != 1 || dynamoCalls.Load() == 0 {
		t.Errorf("Secrets Manager calls %d (want 1), DynamoDB calls %d (want some)", smCalls.Load(), dynamoCalls.Load())
	}
}
