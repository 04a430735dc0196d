// Package lambdaenv is what every Policygen Lambda function shares: its
// configuration read from the environment (Load), its JSON logger, serving an
// http.Handler to the Lambda Runtime API (Start), init failures (Exit), and
// the whole main of the fallback function (ServeFallback).
//
// It links no AWS SDK, so neither does the fallback function: package inits
// run at every cold start, before the first request. The functions that use
// DynamoDB and Secrets Manager are wired by pkg/lambdaenv/awsenv.
package lambdaenv

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/gcpolicy"
)

// Environment variables a function reads (set by template.yaml).
const (
	EnvTableName      = "TABLE_NAME"
	EnvPepperSecretID = "PEPPER_SECRET_ID"
	EnvKeyCacheTTL    = "KEY_CACHE_TTL"
	EnvLogLevel       = "LOG_LEVEL"
	// Under SAM's local emulation only (sam local start-api / invoke, which
	// set AWS_SAM_LOCAL=true), the pepper may come from PEPPER and the table
	// may live in DynamoDB Local at DYNAMODB_ENDPOINT (make sam-local-env
	// writes both into env.json). A deployed function refuses them.
	EnvPepper           = "PEPPER"
	EnvDynamoDBEndpoint = "DYNAMODB_ENDPOINT"
	EnvSAMLocal         = "AWS_SAM_LOCAL"
)

// DefaultKeyCacheTTL is how long a verified key is trusted without a store
// read when KEY_CACHE_TTL is unset; it bounds how late a revocation or a
// plan change is seen by a warm function. It is auth.DefaultCacheTTL,
// written out rather than imported so that the fallback, which imports this
// package, links none of the domain (docs/DECISIONS.md 41); a test holds the
// two equal.
const DefaultKeyCacheTTL = 5 * time.Second

// MaxKeyCacheTTL caps KEY_CACHE_TTL, so a typo cannot make revocations
// take effect hours late.
const MaxKeyCacheTTL = 10 * time.Minute

// PepperCacheTTL is how long the pepper is kept after it is read. Zero keeps
// it for the life of the execution environment: the pepper never changes
// while keys hashed with it are valid.
const PepperCacheTTL time.Duration = 0

// Config is a function's configuration.
type Config struct {
	TableName      string
	PepperSecretID string // secret name or ARN
	KeyCacheTTL    time.Duration
	LogLevel       slog.Level
	// Pepper and DynamoDBEndpoint are set only under SAM local emulation.
	Pepper           []byte
	DynamoDBEndpoint string
}

// Load reads the configuration through getenv (os.Getenv in a function). It
// reports every missing or malformed variable at once.
func Load(getenv func(string) string) (Config, error) {
	cfg := Config{
		TableName:      strings.TrimSpace(getenv(EnvTableName)),
		PepperSecretID: strings.TrimSpace(getenv(EnvPepperSecretID)),
		KeyCacheTTL:    DefaultKeyCacheTTL,
		LogLevel:       slog.LevelInfo,
	}
	var problems []error
	if cfg.TableName == "" {
		problems = append(problems, fmt.Errorf("%s is not set", EnvTableName))
	}
	samLocal := getenv(EnvSAMLocal) == "true"
	if v := strings.TrimSpace(getenv(EnvPepper)); v != "" {
		switch {
		case !samLocal:
			problems = append(problems, fmt.Errorf("%s is read only under SAM local emulation (%s=true); a deployed function reads the pepper from Secrets Manager (%s)", EnvPepper, EnvSAMLocal, EnvPepperSecretID))
		case len(v) < 16:
			problems = append(problems, fmt.Errorf("%s holds %d bytes, want at least 16", EnvPepper, len(v)))
		default:
			cfg.Pepper = []byte(v)
		}
	}
	if v := strings.TrimSpace(getenv(EnvDynamoDBEndpoint)); v != "" {
		if !samLocal {
			problems = append(problems, fmt.Errorf("%s is read only under SAM local emulation (%s=true)", EnvDynamoDBEndpoint, EnvSAMLocal))
		} else {
			cfg.DynamoDBEndpoint = v
		}
	}
	if cfg.PepperSecretID == "" && cfg.Pepper == nil {
		problems = append(problems, fmt.Errorf("%s is not set", EnvPepperSecretID))
	}
	if v := strings.TrimSpace(getenv(EnvKeyCacheTTL)); v != "" {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			problems = append(problems, fmt.Errorf("%s=%q is not a Go duration such as 30s", EnvKeyCacheTTL, v))
		case d < 0 || d > MaxKeyCacheTTL:
			problems = append(problems, fmt.Errorf("%s=%q is outside 0s..%s", EnvKeyCacheTTL, v, MaxKeyCacheTTL))
		default:
			cfg.KeyCacheTTL = d
		}
	}
	if v := strings.TrimSpace(getenv(EnvLogLevel)); v != "" {
		if err := cfg.LogLevel.UnmarshalText([]byte(v)); err != nil {
			problems = append(problems, fmt.Errorf("%s=%q is not one of DEBUG, INFO, WARN, ERROR", EnvLogLevel, v))
		}
	}
	if len(problems) > 0 {
		return Config{}, fmt.Errorf("lambdaenv: %w", errors.Join(problems...))
	}
	return cfg, nil
}

// NewLogger is a function's logger: JSON lines on w (stdout in Lambda,
// which collects them) at level and above.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// ServeFallback is the main of the function behind the HTTP API's $default
// route (wire.NewFallbackHandler). It checks the same configuration as the
// route functions (awsenv.Serve), so a misconfigured stack fails every cold
// start alike, but builds no AWS clients and links no AWS SDK: the fallback
// answers without the store or the pepper.
func ServeFallback() {
	cfg, err := Load(os.Getenv)
	if err != nil {
		Exit(err)
	}
	Start(wire.NewFallbackHandler(NewLogger(os.Stdout, cfg.LogLevel)))
}

// Start serves h to HTTP API (payload format 2.0) events until Lambda stops
// the process, with the collector set as for every long-running process of
// Policygen (gcpolicy.Set: GOGC 400 and a soft memory limit of seven
// eighths of the function's memory, unless the environment sets them).
func Start(h http.Handler) {
	gcpolicy.Set(os.Getenv)
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}

// Exit reports an init failure as one JSON log line on stderr and exits with
// status 1; Lambda records it as an init error and retries the cold start on
// the next request.
func Exit(err error) {
	slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("init failed", "error", err.Error())
	os.Exit(1)
}
