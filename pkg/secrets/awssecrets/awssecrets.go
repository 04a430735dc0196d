// Package awssecrets is the Secrets Manager Source of pkg/secrets: the
// secret is read with GetSecretValue on first use and cached in process.
// It is a package of its own so that only the binaries that read a secret
// from AWS link the Secrets Manager client (its package inits are
// cold-start time in every Lambda function that links it).
package awssecrets

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/policygen/policygen/pkg/awsfault"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/secrets"
)

// FetchTimeout bounds one read of the secret, retries included, so a silent
// Secrets Manager costs a request at most this long (then 503).
const FetchTimeout = 2 * time.Second

// New returns a Source that reads secretID (a name or ARN) with
// GetSecretValue on first use and keeps the value for ttl. A ttl <= 0 caches
// for the life of the process. The client is only called from Value.
func New(client *secretsmanager.Client, secretID string, ttl time.Duration) secrets.Source {
	return newSource(client, secretID, ttl, time.Now)
}

func newSource(client *secretsmanager.Client, secretID string, ttl time.Duration, now func() time.Time) secrets.Source {
	return secrets.NewCached(func(ctx context.Context) ([]byte, error) {
		ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
		defer cancel()
		out, err := client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(secretID)})
		if err != nil {
			err = fmt.Errorf("secrets: get secret value %q: %w", secretID, err)
			if awsfault.Transient(err) {
				// Secrets Manager down or slow: the key may be fine,
				// and the client may retry.
				return nil, errs.Wrap(err, errs.Unavailable, "service_unavailable",
					"the service cannot verify API keys right now; retry in a few seconds")
			}
			return nil, err
		}
		var v []byte
		switch {
		case out.SecretString != nil:
			v = []byte(*out.SecretString)
		default:
			v = out.SecretBinary
		}
		if len(v) == 0 {
			return nil, fmt.Errorf("secrets: secret %q is empty", secretID)
		}
		return v, nil
	}, ttl, now)
}
