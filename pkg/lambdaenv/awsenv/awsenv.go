// Package awsenv wires the Policygen Lambda functions that use AWS: the
// DynamoDB store and the key authenticator with its pepper in Secrets
// Manager, built from the function's environment. Serve is the whole main
// of each API route's function; pkg/lambdaenv/dashboardenv wires the
// dashboard's on FromEnv.
//
// Cold start: nothing here does network I/O, and the AWS configuration is
// built from the environment Lambda sets (AWSConfig) rather than by the
// SDK's config.LoadDefaultConfig, whose credential chain links STS, SSO,
// SSO OIDC and sign-in clients (and runs their package inits) that a
// Lambda function never uses. The SDK clients connect on their first call,
// and the pepper is fetched by the first request that needs to hash a key;
// a request that fails the key format check never fetches it.
package awsenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/ddb"
	"github.com/policygen/policygen/pkg/lambdaenv"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/secrets/awssecrets"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
)

// The environment AWSConfig reads: what Lambda sets for every function
// (region and the execution role's credentials), and the SDK's standard
// endpoint overrides, which the tests and DynamoDB Local runs use.
const (
	EnvRegion                    = "AWS_REGION"
	EnvDefaultRegion             = "AWS_DEFAULT_REGION"
	EnvAccessKeyID               = "AWS_ACCESS_KEY_ID"
	EnvSecretAccessKey           = "AWS_SECRET_ACCESS_KEY"
	EnvSessionToken              = "AWS_SESSION_TOKEN"
	EnvEndpointURL               = "AWS_ENDPOINT_URL"
	EnvEndpointDynamoDB          = "AWS_ENDPOINT_URL_DYNAMODB"
	EnvEndpointSecretsManager    = "AWS_ENDPOINT_URL_SECRETS_MANAGER"
	EnvIgnoreConfiguredEndpoints = "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"
)

// Config is the AWS side of a function's configuration: the SDK
// configuration and the per-service endpoint overrides.
type Config struct {
	AWS aws.Config
	// DynamoDBEndpoint and SecretsManagerEndpoint are the service-specific
	// endpoint overrides ("" for none). They win over AWS.BaseEndpoint
	// (AWS_ENDPOINT_URL), as in the SDK's own resolution.
	DynamoDBEndpoint, SecretsManagerEndpoint string
}

// ErrNoCredentials is what an AWS call gets when the environment holds no
// credentials. It is reported on use, not at init: under SAM local
// emulation with DynamoDB Local and PEPPER, no call needs them.
var ErrNoCredentials = errors.New("awsenv: no AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)")

// AWSConfig builds the AWS configuration from the environment Lambda gives
// a function: region from AWS_REGION (or AWS_DEFAULT_REGION), the execution
// role's credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN, and the endpoint overrides AWS_ENDPOINT_URL,
// AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL_SECRETS_MANAGER (ignored
// when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true). Unlike
// config.LoadDefaultConfig it reads no shared config or credentials file
// and knows no profile, SSO, web identity, container or instance
// credentials: a Lambda function has its role's credentials in the
// environment (docs/DECISIONS.md, "The functions build their AWS
// configuration from the environment").
func AWSConfig(getenv func(string) string) (Config, error) {
	region := strings.TrimSpace(getenv(EnvRegion))
	if region == "" {
		region = strings.TrimSpace(getenv(EnvDefaultRegion))
	}
	if region == "" {
		return Config{}, fmt.Errorf("awsenv: %s is not set", EnvRegion)
	}
	cfg := Config{AWS: aws.Config{Region: region}}
	id, secret := getenv(EnvAccessKeyID), getenv(EnvSecretAccessKey)
	if id != "" && secret != "" {
		cfg.AWS.Credentials = credentials.NewStaticCredentialsProvider(id, secret, getenv(EnvSessionToken))
	} else {
		cfg.AWS.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{}, ErrNoCredentials
		})
	}
	if !strings.EqualFold(strings.TrimSpace(getenv(EnvIgnoreConfiguredEndpoints)), "true") {
		if v := strings.TrimSpace(getenv(EnvEndpointURL)); v != "" {
			cfg.AWS.BaseEndpoint = aws.String(v)
		}
		cfg.DynamoDBEndpoint = strings.TrimSpace(getenv(EnvEndpointDynamoDB))
		cfg.SecretsManagerEndpoint = strings.TrimSpace(getenv(EnvEndpointSecretsManager))
	}
	return cfg, nil
}

// NewDeps builds the handler dependencies for cfg, with the AWS
// configuration from getenv (AWSConfig), logging JSON lines to logOut. It
// does no network I/O.
func NewDeps(ctx context.Context, cfg lambdaenv.Config, getenv func(string) string, logOut io.Writer) (api.Deps, error) {
	ac, err := AWSConfig(getenv)
	if err != nil {
		return api.Deps{}, err
	}
	dynCfg, dynEndpoint := ac.AWS, ac.DynamoDBEndpoint
	if cfg.DynamoDBEndpoint != "" {
		// DynamoDB Local under SAM local: any credentials will do.
		dynEndpoint = cfg.DynamoDBEndpoint
		dynCfg.Credentials = credentials.NewStaticCredentialsProvider("local", "local", "")
	}
	st := store.WithDeadline(dynamo.New(ddb.New(dynCfg, dynEndpoint), cfg.TableName), store.CallTimeout)
	var pepper secrets.Source
	if cfg.Pepper != nil {
		pepper = secrets.NewStatic(cfg.Pepper)
	} else {
		sm := awssecrets.Client{Region: ac.AWS.Region, Credentials: ac.AWS.Credentials, Endpoint: ac.SecretsManagerEndpoint}
		if sm.Endpoint == "" && ac.AWS.BaseEndpoint != nil {
			sm.Endpoint = *ac.AWS.BaseEndpoint
		}
		pepper = awssecrets.New(sm, cfg.PepperSecretID, lambdaenv.PepperCacheTTL)
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
		Logger: lambdaenv.NewLogger(logOut, cfg.LogLevel),
	}, nil
}

// FromEnv is the start of a function's main (Serve, dashboardenv.Serve):
// the configuration and the dependencies from the process environment. An
// incomplete configuration is an init failure (lambdaenv.Exit).
func FromEnv() api.Deps {
	cfg, err := lambdaenv.Load(os.Getenv)
	if err != nil {
		lambdaenv.Exit(err)
	}
	// Logs go to stdout, where Lambda collects them.
	d, err := NewDeps(context.Background(), cfg, os.Getenv, os.Stdout)
	if err != nil {
		lambdaenv.Exit(err)
	}
	return d
}

// Serve is the main of the Lambda function for the API route called
// routeName (see api.Routes): it builds the route's handler from the
// environment, exiting with status 1 when the configuration is incomplete,
// and serves HTTP API (payload format 2.0) events until Lambda stops it.
func Serve(routeName string) {
	h, err := api.NewRouteHandler(routeName, FromEnv())
	if err != nil {
		lambdaenv.Exit(err)
	}
	lambdaenv.Start(h)
}
