// Package awsjson calls AWS services over their JSON protocols (awsJson1_0
// and awsJson1_1): each operation is one POST to the service's endpoint,
// named by X-Amz-Target, signed with the SDK's SigV4 signer, and tried again
// with jittered backoff when it fails in a way that may pass.
//
// It is what pkg/secrets/awssecrets and pkg/ddb share in place of the SDK's
// generated clients for Secrets Manager and DynamoDB, whose package inits
// (endpoint tables compiled from regular expressions, serialization
// schemas) run at every Lambda cold start (docs/DECISIONS.md 27 and 44).
package awsjson

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"

	"github.com/policygen/policygen/pkg/awsfault"
)

// Defaults for the Client fields left zero.
const (
	DefaultMaxAttempts = 3
	// DefaultBaseBackoff is the first retry's bound; each later retry's
	// doubles it (full jitter: the pause is uniform below the bound).
	DefaultBaseBackoff = 50 * time.Millisecond
	DefaultMaxBackoff  = 200 * time.Millisecond
	// DefaultMaxResponse bounds the answer read into memory.
	DefaultMaxResponse = 16 << 20
)

// signer is shared by every call: it keeps the signing keys it derives
// (one a day per region and service) rather than deriving them per call.
var signer = sync.OnceValue(func() *v4.Signer { return v4.NewSigner() })

// UserAgent names the caller in AWS's logs (and to AWS support).
const UserAgent = "policygen (pkg/awsjson)"

// Client calls one AWS service.
type Client struct {
	// Service is the endpoint prefix and the SigV4 signing name, such as
	// "dynamodb" or "secretsmanager".
	Service string
	// TargetPrefix is X-Amz-Target's part before the operation, such as
	// "DynamoDB_20120810" or "secretsmanager".
	TargetPrefix string
	// Version is the protocol's version, "1.0" or "1.1" (Content-Type
	// application/x-amz-json-<Version>).
	Version     string
	Region      string
	Credentials aws.CredentialsProvider
	// Endpoint overrides https://<Service>.<Region>.amazonaws.com
	// (amazonaws.com.cn in China). The isolated partitions and FIPS
	// endpoints are not known here; they can be given as an Endpoint.
	Endpoint string
	// HTTPClient is http.DefaultClient when nil.
	HTTPClient *http.Client
	// MaxAttempts, BaseBackoff, MaxBackoff and MaxResponse take the
	// defaults above when zero.
	MaxAttempts             int
	BaseBackoff, MaxBackoff time.Duration
	MaxResponse             int64
	// CheckCRC32 verifies the x-amz-crc32 header DynamoDB sends with each
	// answer (the CRC-32 of the body) and retries an answer that fails it.
	CheckCRC32 bool
}

// APIError is an error answer from the service, such as
// ResourceNotFoundException or ValidationException. It implements
// smithy.APIError and reports its HTTP status, so the SDK's retry
// classifiers (and pkg/awsfault) read it as they read the SDK's own.
type APIError struct {
	Status  int
	Code    string
	Message string
	// Body is the answer as sent, for errors that carry more than a
	// message (DynamoDB's cancellation reasons, the item that failed a
	// condition).
	Body []byte
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s (HTTP %d): %s", e.Code, e.Status, e.Message)
}

// ErrorCode, ErrorMessage and ErrorFault implement smithy.APIError.
func (e *APIError) ErrorCode() string    { return e.Code }
func (e *APIError) ErrorMessage() string { return e.Message }
func (e *APIError) ErrorFault() smithy.ErrorFault {
	if e.Status >= 500 {
		return smithy.FaultServer
	}
	return smithy.FaultClient
}

// HTTPStatusCode is the answer's status, for the SDK's retry classifiers.
func (e *APIError) HTTPStatusCode() int { return e.Status }

// ChecksumError is an answer whose body does not match its x-amz-crc32
// header: damaged on the way, and worth another attempt.
type ChecksumError struct{ Want, Got uint32 }

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("answer body CRC-32 %08x, header says %08x", e.Got, e.Want)
}

// RetryableError tells the SDK's retry classifiers to try again.
func (e *ChecksumError) RetryableError() bool { return true }

// Call makes operation op with the JSON request body and returns the
// answer's body. A non-2xx answer is an *APIError; an attempt that fails in
// a way that may pass (awsfault.Transient: the network, a 5xx or 429, a
// throttle, a damaged or cut-short answer) is tried again, up to MaxAttempts in all,
// while ctx allows.
func (c *Client) Call(ctx context.Context, op string, body []byte) ([]byte, error) {
	attempts := c.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	var lastErr error
	for attempt := range attempts {
		if attempt > 0 {
			select {
			case <-time.After(c.backoff(attempt)):
			case <-ctx.Done():
				return nil, errors.Join(lastErr, ctx.Err())
			}
		}
		out, err := c.attempt(ctx, op, body)
		if err == nil {
			return out, nil
		}
		lastErr = err
		if ctx.Err() != nil || !awsfault.Transient(err) {
			break
		}
	}
	return nil, lastErr
}

// backoff is the pause before retry number attempt (1, 2, ...): uniform
// below BaseBackoff doubled attempt-1 times, capped at MaxBackoff.
func (c *Client) backoff(attempt int) time.Duration {
	base, most := c.BaseBackoff, c.MaxBackoff
	if base <= 0 {
		base = DefaultBaseBackoff
	}
	if most <= 0 {
		most = DefaultMaxBackoff
	}
	bound := most
	if attempt-1 < 16 {
		bound = min(most, base<<(attempt-1))
	}
	return time.Duration(rand.Int64N(int64(bound) + 1))
}

// URL is where the client sends its calls.
func (c *Client) URL() string {
	if c.Endpoint != "" {
		return strings.TrimSuffix(c.Endpoint, "/") + "/"
	}
	return "https://" + c.Service + "." + c.Region + "." + DNSSuffix(c.Region) + "/"
}

func (c *Client) attempt(ctx context.Context, op string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-"+c.Version)
	req.Header.Set("X-Amz-Target", c.TargetPrefix+"."+op)
	req.Header.Set("User-Agent", UserAgent)
	// The checksum is of the bytes as sent; asking for them unencoded
	// keeps the transport from decompressing them out of its reach.
	req.Header.Set("Accept-Encoding", "identity")
	if c.Credentials == nil {
		return nil, errors.New("no credentials")
	}
	creds, err := c.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := signer().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), c.Service, c.Region, time.Now()); err != nil {
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
	limit := c.MaxResponse
	if limit <= 0 {
		limit = DefaultMaxResponse
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("%s answer is over %d bytes", op, limit)
	}
	if c.CheckCRC32 {
		if h := resp.Header.Get("X-Amz-Crc32"); h != "" {
			want, err := strconv.ParseUint(h, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("x-amz-crc32 header %q: %w", h, err)
			}
			if got := crc32.ChecksumIEEE(raw); got != uint32(want) {
				return nil, &ChecksumError{Want: uint32(want), Got: got}
			}
		}
	}
	if resp.StatusCode/100 != 2 {
		return nil, apiError(resp, raw)
	}
	return raw, nil
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
	return &APIError{Status: resp.StatusCode, Code: code, Message: msg, Body: raw}
}

// DNSSuffix is the domain of region's partition: aws-cn or aws (which
// includes GovCloud); the isolated partitions are not supported.
func DNSSuffix(region string) string {
	if strings.HasPrefix(region, "cn-") {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
}

// The endpoint variables every service shares, as the SDK names them.
const (
	EnvGlobalEndpoint  = "AWS_ENDPOINT_URL"
	EnvIgnoreEndpoints = "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"
)

// EndpointFromEnv is the endpoint override the environment sets for a
// service, as the SDK reads it: the service's own variable (serviceVar,
// such as AWS_ENDPOINT_URL_DYNAMODB), else AWS_ENDPOINT_URL, neither when
// AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true; "" for none.
func EndpointFromEnv(getenv func(string) string, serviceVar string) string {
	if strings.EqualFold(strings.TrimSpace(getenv(EnvIgnoreEndpoints)), "true") {
		return ""
	}
	if v := strings.TrimSpace(getenv(serviceVar)); v != "" {
		return v
	}
	return strings.TrimSpace(getenv(EnvGlobalEndpoint))
}
