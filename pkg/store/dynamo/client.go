package dynamo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

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

// Tune applies the retry and timeout settings; pass it to
// dynamodb.NewFromConfig. backend.DynamoClient and the Lambda wiring both use it.
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
