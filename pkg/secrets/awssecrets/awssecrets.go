// Package awssecrets is the Secrets Manager Source of pkg/secrets: the
// secret is read with GetSecretValue on first use and cached in process.
//
// It speaks the one call it needs (Secrets Manager's JSON 1.1 protocol,
// through pkg/awsjson, signed with the SDK's SigV4 signer) instead of
// linking the SDK's service/secretsmanager client, whose generated schemas
// and endpoint tables are built by package inits at every Lambda cold
// start (about 0.3 ms and 0.2 MB) for a call made once per execution
// environment.
// It is a package of its own so that only the binaries that read a
// secret from AWS link it.
package awssecrets

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/policygen/policygen/pkg/awsfault"
	"github.com/policygen/policygen/pkg/awsjson"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/secrets"
)

// FetchTimeout bounds one read of the secret, retries included, so a silent
// Secrets Manager costs a request at most this long (then 503).
const FetchTimeout = 2 * time.Second

// MaxAttempts is how many times one read tries Secrets Manager when it
// fails in a way that may pass (network, 5xx, throttling), within
// FetchTimeout.
const MaxAttempts = 3

// EnvEndpoint is the SDK's endpoint override variable for Secrets Manager.
const EnvEndpoint = "AWS_ENDPOINT_URL_SECRETS_MANAGER"

// EndpointFromEnv is the endpoint override the environment sets, as the
// SDK reads it: AWS_ENDPOINT_URL_SECRETS_MANAGER, else AWS_ENDPOINT_URL,
// neither when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true; "" for none.
func EndpointFromEnv(getenv func(string) string) string {
	return awsjson.EndpointFromEnv(getenv, EnvEndpoint)
}

// Client is what a read needs: where Secrets Manager is and whose
// credentials sign the call.
type Client struct {
	Region      string
	Credentials aws.CredentialsProvider
	// Endpoint overrides https://secretsmanager.<Region>.amazonaws.com
	// (for tests; EndpointFromEnv).
	Endpoint string
	// HTTPClient is http.DefaultClient when nil; FetchTimeout bounds every
	// read whatever the client's own timeouts.
	HTTPClient *http.Client
}

// ClientFromConfig is the Client for an SDK configuration (its region and
// credentials; policyctl's comes from config.LoadDefaultConfig, a
// function's from awsenv.AWSConfig), at the endpoint the environment
// names (EndpointFromEnv), else cfg.BaseEndpoint, else the region's.
func ClientFromConfig(cfg aws.Config, getenv func(string) string) Client {
	c := Client{Region: cfg.Region, Credentials: cfg.Credentials, Endpoint: EndpointFromEnv(getenv)}
	if c.Endpoint == "" && cfg.BaseEndpoint != nil {
		c.Endpoint = *cfg.BaseEndpoint
	}
	return c
}

// New returns a Source that reads secretID (a name or ARN) with
// GetSecretValue on first use and keeps the value for ttl. A ttl <= 0 caches
// for the life of the process. Nothing is called before Value.
func New(c Client, secretID string, ttl time.Duration) secrets.Source {
	return newSource(c, secretID, ttl, time.Now)
}

func newSource(c Client, secretID string, ttl time.Duration, now func() time.Time) secrets.Source {
	return secrets.NewCached(func(ctx context.Context) ([]byte, error) {
		ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
		defer cancel()
		v, err := c.getSecretValue(ctx, secretID)
		if err != nil {
			err = fmt.Errorf("secrets: get secret value %q: %w", secretID, err)
			if awsfault.Transient(err) {
				// Secrets Manager down or slow: the key may be fine,
				// and the client may retry.
				return nil, errs.Wrap(err, errs.Unavailable, "service_unavailable",
					"the service cannot verify API keys right now; retry in a few seconds")
			}
			return nil, err
		}
		if len(v) == 0 {
			return nil, fmt.Errorf("secrets: secret %q is empty", secretID)
		}
		return v, nil
	}, ttl, now)
}

// APIError is an error answer from Secrets Manager, such as
// ResourceNotFoundException or AccessDeniedException.
type APIError = awsjson.APIError

func (c Client) getSecretValue(ctx context.Context, secretID string) ([]byte, error) {
	body, err := json.Marshal(struct{ SecretId string }{secretID})
	if err != nil {
		return nil, err
	}
	call := awsjson.Client{
		Service:      "secretsmanager",
		TargetPrefix: "secretsmanager",
		Version:      "1.1",
		Region:       c.Region,
		Credentials:  c.Credentials,
		Endpoint:     c.Endpoint,
		HTTPClient:   c.HTTPClient,
		MaxAttempts:  MaxAttempts,
		// A secret is at most 64 KB; the answer carries it once.
		MaxResponse: 1 << 20,
	}
	raw, err := call.Call(ctx, "GetSecretValue", body)
	if err != nil {
		return nil, err
	}
	var out struct {
		SecretString *string
		SecretBinary []byte // base64 in JSON
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode answer: %w", err)
	}
	if out.SecretString != nil {
		return []byte(*out.SecretString), nil
	}
	return out.SecretBinary, nil
}
