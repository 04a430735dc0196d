package dynamo_test

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/policygen/policygen/pkg/store/dynamo"
)

// TestNewClientSettings: the client NewClient makes has the store's
// retryer and HTTP timeouts (docs/STORAGE.md), whichever way each reaches
// it, and later options still apply.
func TestNewClientSettings(t *testing.T) {
	c := dynamo.NewClient(aws.Config{Region: "eu-west-1"}, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String("http://127.0.0.1:1") })
	o := c.Options()
	if got := o.Retryer.MaxAttempts(); got != dynamo.MaxAttempts {
		t.Errorf("retryer MaxAttempts = %d, want %d", got, dynamo.MaxAttempts)
	}
	// The SDK's default retryer also makes 3 attempts, but waits up to
	// 20 s between them: twenty delays all within MaxBackoff tell the two
	// apart (the default's tenth retry waits under 200 ms one time in a
	// hundred).
	for range 20 {
		if d, err := o.Retryer.RetryDelay(10, errors.New("throttled")); err != nil || d > dynamo.MaxBackoff {
			t.Fatalf("retry delay %v (%v), want at most %v", d, err, dynamo.MaxBackoff)
		}
	}
	if o.BaseEndpoint == nil || *o.BaseEndpoint != "http://127.0.0.1:1" {
		t.Errorf("BaseEndpoint = %v: the caller's option was not applied", o.BaseEndpoint)
	}
	hc, ok := o.HTTPClient.(*awshttp.BuildableClient)
	if !ok {
		t.Fatalf("HTTPClient is %T, want *BuildableClient", o.HTTPClient)
	}
	if got := hc.GetTimeout(); got != dynamo.AttemptTimeout {
		t.Errorf("attempt timeout = %v, want %v", got, dynamo.AttemptTimeout)
	}
	tr := hc.GetTransport()
	if tr.TLSHandshakeTimeout != dynamo.AttemptTimeout || tr.ResponseHeaderTimeout != dynamo.AttemptTimeout {
		t.Errorf("TLS handshake %v, response header %v; want %v each", tr.TLSHandshakeTimeout, tr.ResponseHeaderTimeout, dynamo.AttemptTimeout)
	}
	if tr.DialContext == nil {
		t.Error("the transport has no dialer of its own (DialTimeout)")
	}
}
