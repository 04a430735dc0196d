package dynamo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/policygen/policygen/pkg/awsfault"
	"github.com/policygen/policygen/pkg/store"
)

// The client's retry and timeout settings (docs/STORAGE.md). Every store
// call also runs under store.CallTimeout (2 s), which ends retries early.
const (
	// MaxAttempts: the first try and two retries. DynamoDB answers in
	// milliseconds; a third failure in a row is an outage, not a blip, and
	// the client is better told to come back (503, Retry-After).
	MaxAttempts = 3
	// MaxBackoff caps the jittered pause between attempts (the SDK's
	// default of 20 s would outlive the request).
	MaxBackoff = 200 * time.Millisecond
	// AttemptTimeout bounds one HTTP attempt, connect to last byte, so a
	// silent connection is abandoned and the attempt retried while the
	// call's deadline still allows it.
	AttemptTimeout = 900 * time.Millisecond
	// DialTimeout bounds the TCP connect alone.
	DialTimeout = 500 * time.Millisecond
)

// NewClient is a DynamoDB client for cfg with the retry and timeout
// settings above, then optFns applied. backend.DynamoClient and the Lambda
// wiring both use it.
//
// The retryer is given in cfg (cfg.Retryer) rather than by an option:
// the client makes its default retryer before it applies options, and
// only skips that for one from the configuration (DECISIONS.md 42). The
// dialer is set with the transport's other settings, in one option.
func NewClient(cfg aws.Config, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	cfg.Retryer = newRetryer
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){tuneHTTP}, optFns...)...)
}

func newRetryer() aws.Retryer {
	return retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = MaxAttempts
		so.MaxBackoff = MaxBackoff
	})
}

// tuneHTTP sets the HTTP client, after the client's own resolution of it,
// so that no defaults mode replaces the dialer.
func tuneHTTP(o *dynamodb.Options) {
	dialer := &net.Dialer{Timeout: DialTimeout, KeepAlive: awshttp.DefaultDialKeepAliveTimeout}
	o.HTTPClient = awshttp.NewBuildableClient().
		WithTransportOptions(func(tr *http.Transport) {
			tr.DialContext = dialer.DialContext
			tr.TLSHandshakeTimeout = AttemptTimeout
			tr.ResponseHeaderTimeout = AttemptTimeout
		}).
		WithTimeout(AttemptTimeout)
}

func (s *Store) internal(op string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	err = fmt.Errorf("dynamo store %s: %s: %w", s.table, op, err)
	if awsfault.Transient(err) {
		return store.Unavailable(err)
	}
	return err
}
