// Package awsfault tells a failure of an AWS call that may pass (the service
// or the network is down, slow or throttling) from one that will not (a
// missing table or secret, a denied call, a bad request). The stores and the
// secrets client report the first kind as errs.Unavailable (503 with
// Retry-After) and the second as an internal error.
package awsfault

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

var (
	retryables = retry.IsErrorRetryables(retry.DefaultRetryables)
	throttles  = retry.IsErrorThrottles(retry.DefaultThrottles)
)

// Transient reports whether err may succeed if tried again later: a
// deadline ran out, the network failed (reset, refused, timeout), the
// service answered a 5xx, or it throttled (ThrottlingException,
// ProvisionedThroughputExceededException, RequestLimitExceeded and the
// other codes of the SDK's retry.DefaultThrottleErrorCodes, or a bare 429),
// or its answer was cut short (io.ErrUnexpectedEOF). pkg/awsjson asks it
// whether an attempt is worth another; the stores and the secrets client,
// once the retries are spent, whether to answer 503.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) && status.HTTPStatusCode() == http.StatusTooManyRequests {
		return true
	}
	if retryables.IsErrorRetryable(err) == aws.TrueTernary || throttles.IsErrorThrottle(err) == aws.TrueTernary {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}
