package awsjson

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/policygen/policygen/pkg/awsfault"
)

func TestEndpointFromEnv(t *testing.T) {
	const svc = "AWS_ENDPOINT_URL_DYNAMODB"
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, ""},
		{map[string]string{EnvGlobalEndpoint: " http://all "}, "http://all"},
		{map[string]string{EnvGlobalEndpoint: "http://all", svc: "http://one"}, "http://one"},
		{map[string]string{EnvGlobalEndpoint: "http://all", svc: "http://one", EnvIgnoreEndpoints: "TRUE"}, ""},
	} {
		if got := EndpointFromEnv(func(k string) string { return c.env[k] }, svc); got != c.want {
			t.Errorf("%v: %q, want %q", c.env, got, c.want)
		}
	}
}

func TestBackoffIsBounded(t *testing.T) {
	c := &Client{BaseBackoff: 10 * time.Millisecond, MaxBackoff: 30 * time.Millisecond}
	for attempt, bound := range map[int]time.Duration{1: 10 * time.Millisecond, 2: 20 * time.Millisecond, 3: 30 * time.Millisecond, 70: 30 * time.Millisecond} {
		var most time.Duration
		for range 200 {
			d := c.backoff(attempt)
			if d < 0 || d > bound {
				t.Fatalf("attempt %d: pause %v, want within [0, %v]", attempt, d, bound)
			}
			most = max(most, d)
		}
		if most < bound/2 {
			t.Errorf("attempt %d: 200 pauses all under %v: not spread up to %v", attempt, most, bound)
		}
	}
}

// TestTransientAttempts: which failed attempts Call tries again.
func TestTransientAttempts(t *testing.T) {
	for err, want := range map[error]bool{
		&APIError{Status: 500, Code: "InternalServerError"}:                    true,
		&APIError{Status: 503, Code: "ServiceUnavailable"}:                     true,
		&APIError{Status: 400, Code: "ThrottlingException"}:                    true,
		&APIError{Status: 400, Code: "ProvisionedThroughputExceededException"}: true,
		&APIError{Status: 429, Code: "Too Many Requests"}:                      true,
		&ChecksumError{Want: 1, Got: 2}:                                        true,
		fmt.Errorf("read: %w", io.ErrUnexpectedEOF):                            true,
		&APIError{Status: 400, Code: "ValidationException"}:                    false,
		&APIError{Status: 400, Code: "ConditionalCheckFailedException"}:        false,
		&APIError{Status: 403, Code: "AccessDeniedException"}:                  false,
		errors.New("encode request"):                                           false,
		context.Canceled:                                                       false,
	} {
		if got := awsfault.Transient(err); got != want {
			t.Errorf("Transient(%v) = %v, want %v", err, got, want)
		}
	}
}

// TestCallStopsWithItsContext: a call that keeps failing in a way that
// may pass (a refused connection) stops when its context ends, not after
// its hour-long pause.
func TestCallStopsWithItsContext(t *testing.T) {
	c := &Client{Service: "dynamodb", TargetPrefix: "DynamoDB_20120810", Version: "1.0", Region: "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		Endpoint:    "http://127.0.0.1:1", MaxAttempts: 100, BaseBackoff: time.Hour, MaxBackoff: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Call(ctx, "GetItem", []byte("{}"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's deadline", err)
	}
	// A correctness bound, not a speed test: the pause is an hour.
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %v", took)
	}
}
