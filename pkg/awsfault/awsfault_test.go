package awsfault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/aws/smithy-go"
)

func TestTransient(t *testing.T) {
	api := func(code string) error {
		return fmt.Errorf("op: %w", &smithy.GenericAPIError{Code: code, Message: "m"})
	}
	for name, c := range map[string]struct {
		err  error
		want bool
	}{
		"nil":                {nil, false},
		"deadline":           {fmt.Errorf("get: %w", context.DeadlineExceeded), true},
		"canceled":           {context.Canceled, false},
		"network":            {&net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		"throttling":         {api("ThrottlingException"), true},
		"provisioned":        {api("ProvisionedThroughputExceededException"), true},
		"request limit":      {api("RequestLimitExceeded"), true},
		"validation":         {api("ValidationException"), false},
		"resource not found": {api("ResourceNotFoundException"), false},
		"access denied":      {api("AccessDeniedException"), false},
		"plain error":        {errors.New("boom"), false},
		"cut short":          {fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		"429":                {status429{}, true},
	} {
		if got := Transient(c.err); got != c.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", name, c.err, got, c.want)
		}
	}
}

// status429 is an answer of 429 with no error code (a proxy's, say).
type status429 struct{}

func (status429) Error() string       { return "429 Too Many Requests" }
func (status429) HTTPStatusCode() int { return 429 }
