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
	"github.com/aws/smithy-go"

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

// Tune applies the retry and timeout settings; pass it to
// dynamodb.NewFromConfig. NewClient and the Lambda wiring both use it.
func Tune(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = MaxAttempts
		so.MaxBackoff = MaxBackoff
	})
	o.HTTPClient = awshttp.NewBuildableClient().
		WithTimeout(AttemptTimeout).
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = DialTimeout }).
		WithTransportOptions(func(tr *http.Transport) {
			tr.TLSHandshakeTimeout = AttemptTimeout
			tr.ResponseHeaderTimeout = AttemptTimeout
		})
}

// unavailableCodes are the DynamoDB error codes that mean "not now": the
// table or account is throttled, or the service failed on its side.
var unavailableCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"RequestLimitExceeded":                   true,
	"ThrottlingException":                    true,
	"InternalServerError":                    true,
	"ServiceUnavailable":                     true,
}

// transient reports whether err means DynamoDB could not be reached or would
// not serve now, once the SDK's own retries are spent: a throttling or
// server-side error code, a network failure, or a timeout.
func transient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ae smithy.APIError
	if errors.As(err, &ae) && unavailableCodes[ae.ErrorCode()] {
		return true
	}
	if retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err) == aws.TrueTernary {
		return true // connection reset or refused, 5xx, timeouts
	}
	var ne net.Error
	return errors.As(err, &ne)
}

func (s *Store) internal(op string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	err = fmt.Errorf("dynamo store %s: %s: %w", s.table, op, err)
	if transient(err) {
		return store.Unavailable(err)
	}
	return err
}
