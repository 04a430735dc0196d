package awsfault

import (
	"context"
	"errors"
	"fmt"
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
	} {
		if got := Transient(c.err); got != c.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", name, c.err, got, c.want)
		}
	}
}
