// Package ddb is a DynamoDB client for the calls Policygen makes: the six
// item operations pkg/store/dynamo uses, and the table set-up of
// CreateTable. It speaks DynamoDB's JSON 1.0 protocol through pkg/awsjson
// (SigV4-signed POSTs, retries with jittered backoff, the x-amz-crc32
// check) and uses the SDK's own types (service/dynamodb/types) for
// attribute values, transaction items and the errors the store tells
// apart, so code written against the SDK's client reads the same.
//
// It replaces the SDK's service/dynamodb client in every binary because
// that package's init compiles its endpoint table's regular expressions
// and its client construction resolves endpoint rules, retryers and auth
// schemes: together about 0.75 ms of every Lambda cold start on the
// machine issue 9 was measured on, half of the budget (docs/DECISIONS.md
// 44). The SDK's client stays a test dependency, for comparison.
package ddb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/awsjson"
)

// The client's retry and timeout settings (docs/STORAGE.md). Every store
// call also runs under store.CallTimeout (2 s), which ends retries early.
const (
	// MaxAttempts: the first try and two retries. DynamoDB answers in
	// milliseconds; a third failure in a row is an outage, not a blip, and
	// the caller is better told to come back (503, Retry-After).
	MaxAttempts = 3
	// MaxBackoff caps the jittered pause between attempts.
	MaxBackoff = 200 * time.Millisecond
	// AttemptTimeout bounds one HTTP attempt, connect to last byte, so a
	// silent connection is abandoned and the attempt retried while the
	// call's deadline still allows it.
	AttemptTimeout = 900 * time.Millisecond
	// DialTimeout bounds the TCP connect alone.
	DialTimeout = 500 * time.Millisecond
)

// Client calls DynamoDB.
type Client struct {
	c awsjson.Client
}

// New is a client for the region and credentials of cfg, at endpoint
// ("" for the region's own, https://dynamodb.<region>.amazonaws.com), with
// the retry and timeout settings above.
func New(cfg aws.Config, endpoint string) *Client {
	if endpoint == "" && cfg.BaseEndpoint != nil {
		endpoint = *cfg.BaseEndpoint
	}
	dialer := &net.Dialer{Timeout: DialTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   10,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   AttemptTimeout,
		ResponseHeaderTimeout: AttemptTimeout,
		ExpectContinueTimeout: time.Second,
	}
	return &Client{c: awsjson.Client{
		Service:      "dynamodb",
		TargetPrefix: "DynamoDB_20120810",
		Version:      "1.0",
		Region:       cfg.Region,
		Credentials:  cfg.Credentials,
		Endpoint:     endpoint,
		HTTPClient:   &http.Client{Transport: tr, Timeout: AttemptTimeout},
		MaxAttempts:  MaxAttempts,
		MaxBackoff:   MaxBackoff,
		CheckCRC32:   true,
	}}
}

// Endpoint is the URL the client sends its calls to, without the
// trailing slash (as AWS_ENDPOINT_URL_DYNAMODB would give it).
func (c *Client) Endpoint() string { return strings.TrimSuffix(c.c.URL(), "/") }

// HTTPClient is the client's HTTP client (its timeouts are the settings
// above).
func (c *Client) HTTPClient() *http.Client { return c.c.HTTPClient }

// Do makes operation op: in is marshalled to JSON as the request
// (attribute values as Item), and the answer decoded into out (nil to
// discard it). DynamoDB's errors that callers tell apart come back as the
// SDK's types (ConditionalCheckFailedException,
// TransactionCanceledException, ResourceInUseException,
// ResourceNotFoundException); the rest as *awsjson.APIError. The item
// operations below and the table set-up (pkg/store/dynamo.CreateTable)
// use it.
func (c *Client) Do(ctx context.Context, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("dynamodb %s: encode request: %w", op, err)
	}
	raw, err := c.c.Call(ctx, op, body)
	if err != nil {
		return fmt.Errorf("dynamodb %s: %w", op, typedError(err))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("dynamodb %s: decode answer: %w", op, err)
	}
	return nil
}

// typedError turns DynamoDB's error answers that the store tells apart
// into the SDK's types, with what they carry (the item that failed a
// condition, the cancellation reasons), keeping the HTTP status reachable
// through errors.As.
func typedError(err error) error {
	var ae *awsjson.APIError
	if !errors.As(err, &ae) {
		return err
	}
	msg := aws.String(ae.Message)
	var typed error
	switch ae.Code {
	case "ConditionalCheckFailedException":
		var body struct{ Item map[string]AV }
		json.Unmarshal(ae.Body, &body)
		typed = &types.ConditionalCheckFailedException{Message: msg, Item: fromWireMap(body.Item)}
	case "TransactionCanceledException":
		var body struct {
			CancellationReasons []struct {
				Code, Message *string
				Item          map[string]AV
			}
		}
		json.Unmarshal(ae.Body, &body)
		e := &types.TransactionCanceledException{Message: msg}
		for _, r := range body.CancellationReasons {
			e.CancellationReasons = append(e.CancellationReasons, types.CancellationReason{Code: r.Code, Message: r.Message, Item: fromWireMap(r.Item)})
		}
		typed = e
	case "ResourceInUseException":
		typed = &types.ResourceInUseException{Message: msg}
	case "ResourceNotFoundException":
		typed = &types.ResourceNotFoundException{Message: msg}
	default:
		return err
	}
	return &withStatus{typed: typed, api: ae}
}

// withStatus is a typed DynamoDB error that still answers errors.As for
// the *awsjson.APIError it came from (status, code, body).
type withStatus struct {
	typed error
	api   *awsjson.APIError
}

func (e *withStatus) Error() string   { return e.typed.Error() }
func (e *withStatus) Unwrap() []error { return []error{e.typed, e.api} }
