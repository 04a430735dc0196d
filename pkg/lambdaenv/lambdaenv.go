// Package lambdaenv builds the dependencies of a Policygen Lambda function
// from its environment: the DynamoDB store, the key authenticator with its
// pepper in Secrets Manager, and a JSON logger. It is what functions/*/main.go
// share: Serve and ServeFallback are each function's whole main.
//
// Cold start: nothing here does network I/O. Loading the AWS configuration
// reads environment variables and local files only, the SDK clients connect
// on their first call, and the pepper is fetched by the first request that
// needs to hash a key. A request that fails the key format check never
// fetches it.
package lambdaenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
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
// read when KEY_CACHE_TTL is unset. It bounds how late a revocation or a plan
// change is seen by a warm function.
const DefaultKeyCacheTTL = auth.DefaultCacheTTL

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

// NewDeps builds the handler dependencies for cfg, logging JSON lines to
// logOut. It does no network I/O.
func NewDeps(ctx context.Context, cfg Config, logOut io.Writer) (api.Deps, error) {
	// Region, credentials and endpoint overrides (AWS_ENDPOINT_URL_DYNAMODB,
	// AWS_ENDPOINT_URL_SECRETS_MANAGER) come from the standard environment.
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return api.Deps{}, fmt.Errorf("lambdaenv: load AWS config: %w", err)
	}
	dynOpts := []func(*dynamodb.Options){dynamo.Tune}
	if cfg.DynamoDBEndpoint != "" {
		// DynamoDB Local under SAM local: any credentials will do.
		dynOpts = append(dynOpts, func(o *dynamodb.Options) {
			o.BaseEndpoint = aws.String(cfg.DynamoDBEndpoint)
			o.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
		})
	}
	st := store.WithDeadline(dynamo.New(dynamodb.NewFromConfig(awsCfg, dynOpts...), cfg.TableName), store.CallTimeout)
	var pepper secrets.Source
	if cfg.Pepper != nil {
		pepper = secrets.NewStatic(cfg.Pepper)
	} else {
		pepper = secrets.NewSecretsManager(secretsmanager.NewFromConfig(awsCfg), cfg.PepperSecretID, PepperCacheTTL)
	}
	return api.Deps{
		Store: st,
		Auth: &auth.Authenticator{
			Store:    st,
			Hasher:   &auth.Hasher{Pepper: pepper},
			Now:      time.Now,
			CacheTTL: cfg.KeyCacheTTL,
		},
		Now:    time.Now,
		Logger: newLogger(logOut, cfg.LogLevel),
	}, nil
}

func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// Serve is the main of the Lambda function for the API route called
// routeName (see api.Routes): it builds the route's handler from the
// environment, exiting with status 1 when the configuration is incomplete,
// and serves HTTP API (payload format 2.0) events until Lambda stops it.
func Serve(routeName string) {
	cfg, err := Load(os.Getenv)
	if err != nil {
		exit(err)
	}
	// Logs go to stdout, where Lambda collects them.
	deps, err := NewDeps(context.Background(), cfg, os.Stdout)
	if err != nil {
		exit(err)
	}
	h, err := api.NewRouteHandler(routeName, deps)
	if err != nil {
		exit(err)
	}
	start(h)
}

// ServeFallback is the main of the function behind the HTTP API's $default
// route (api.NewFallbackHandler). It checks the same configuration as Serve,
// so a misconfigured stack fails every cold start alike, but builds no AWS
// clients: the fallback answers without the store or the pepper.
func ServeFallback() {
	cfg, err := Load(os.Getenv)
	if err != nil {
		exit(err)
	}
	start(api.NewFallbackHandler(api.Deps{Now: time.Now, Logger: newLogger(os.Stdout, cfg.LogLevel)}))
}

func start(h http.Handler) {
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}

// exit reports an init failure as one JSON log line on stderr and exits with
// status 1; Lambda records it as an init error and retries the cold start on
// the next request.
func exit(err error) {
	slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("init failed", "error", err.Error())
	os.Exit(1)
}
