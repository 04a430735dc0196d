// Package awssecrets is the Secrets Manager Source of pkg/secrets: the
// secret is read with GetSecretValue on first use and cached in process.
//
// It speaks the one call it needs (Secrets Manager's JSON 1.1 protocol,
// signed with the SDK's SigV4 signer) instead of linking the SDK's
// service/secretsmanager client, whose generated schemas and endpoint
// tables are built by package inits at every Lambda cold start (about
// 0.3 ms and 0.2 MB) for a call made once per execution environment.
// It is a package of its own so that only the binaries that read a
// secret from AWS link it.
package awssecrets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

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

// The endpoint override variables, as the SDK names them.
const (
	EnvEndpoint        = "AWS_ENDPOINT_URL_SECRETS_MANAGER"
	EnvGlobalEndpoint  = "AWS_ENDPOINT_URL"
	EnvIgnoreEndpoints = "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"
)

// EndpointFromEnv is the endpoint override the environment sets, as the
// SDK reads it: AWS_ENDPOINT_URL_SECRETS_MANAGER, else AWS_ENDPOINT_URL,
// neither when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true; "" for none.
func EndpointFromEnv(getenv func(string) string) string {
	if strings.EqualFold(strings.TrimSpace(getenv(EnvIgnoreEndpoints)), "true") {
		return ""
	}
	if v := strings.TrimSpace(getenv(EnvEndpoint)); v != "" {
		return v
	}
	return strings.TrimSpace(getenv(EnvGlobalEndpoint))
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
			if transient(err) {
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
type APIError struct {
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s (HTTP %d): %s", e.Code, e.Status, e.Message)
}

// throttles are the error codes of a service asking the caller to slow
// down (the SDK's retry.DefaultThrottleErrorCodes that Secrets Manager
// uses).
var throttles = map[string]bool{
	"Throttling": true, "ThrottlingException": true, "ThrottledException": true,
	"RequestThrottledException": true, "TooManyRequestsException": true,
	"RequestLimitExceeded": true, "LimitExceededException": true,
}

// retryable: worth another attempt.
func (e *APIError) retryable() bool {
	return e.Status >= 500 || e.Status == http.StatusTooManyRequests || throttles[e.Code]
}

// transient reports whether err may pass if tried again later: a deadline
// ran out, the network failed, or Secrets Manager answered 5xx or
// throttled.
func transient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.retryable()
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF)
}

func (c Client) getSecretValue(ctx context.Context, secretID string) ([]byte, error) {
	body, err := json.Marshal(struct{ SecretId string }{secretID})
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := range MaxAttempts {
		if attempt > 0 {
			// Full jitter on 50, 100 ms, as the SDK's standard retryer.
			backoff := time.Duration(rand.Int64N(int64(50 * time.Millisecond << (attempt - 1))))
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return nil, errors.Join(lastErr, ctx.Err())
			}
		}
		v, err := c.call(ctx, body)
		if err == nil {
			return v, nil
		}
		lastErr = err
		if ctx.Err() != nil || !transient(err) {
			break
		}
	}
	return nil, lastErr
}

func (c Client) call(ctx context.Context, body []byte) ([]byte, error) {
	endpoint := c.Endpoint
	if endpoint == "" {
		endpoint = "https://secretsmanager." + c.Region + "." + dnsSuffix(c.Region)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(endpoint, "/")+"/", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "secretsmanager.GetSecretValue")
	if c.Credentials == nil {
		return nil, errors.New("no credentials")
	}
	creds, err := c.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "secretsmanager", c.Region, time.Now()); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	// A secret is at most 64 KB; the answer carries it once.
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, apiError(resp, raw)
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

// apiError reads an AWS JSON protocol error: its type in X-Amzn-ErrorType
// or the body's __type (either may carry a namespace or a ":" suffix), its
// message in message or Message.
func apiError(resp *http.Response, raw []byte) *APIError {
	var body struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
		Upper   string `json:"Message"`
	}
	json.Unmarshal(raw, &body)
	code := resp.Header.Get("X-Amzn-ErrorType")
	if code == "" {
		code = body.Type
	}
	code, _, _ = strings.Cut(code, ":")
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	if code == "" {
		code = http.StatusText(resp.StatusCode)
	}
	msg := body.Message
	if msg == "" {
		msg = body.Upper
	}
	return &APIError{Status: resp.StatusCode, Code: code, Message: msg}
}

// dnsSuffix is the domain of region's partition: aws-cn or aws (which
// includes GovCloud); the isolated partitions are not supported.
func dnsSuffix(region string) string {
	if strings.HasPrefix(region, "cn-") {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
}
