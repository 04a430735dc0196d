// Package secrets supplies secret bytes (the API key pepper) to the rest of
// Policygen. In AWS the value lives in Secrets Manager and is fetched on first
// use, then cached in process; on a laptop it lives in a local file that is
// created on first use. Nothing here does I/O at construction, so a Lambda
// function can build its Source at init without paying for a network call,
// and a request that never needs the secret never fetches it.
package secrets

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/policygen/policygen/pkg/awsfault"
	"github.com/policygen/policygen/pkg/errs"
)

// Source yields a secret value. Implementations are safe for concurrent use.
// Callers must not modify the returned slice.
type Source interface {
	Value(ctx context.Context) ([]byte, error)
}

// NewStatic returns a Source that always yields b (for tests).
func NewStatic(b []byte) Source { return static(append([]byte(nil), b...)) }

type static []byte

func (s static) Value(context.Context) ([]byte, error) { return s, nil }

// NewSecretsManager returns a Source that reads secretID (a name or ARN) with
// GetSecretValue on first use and keeps the value for ttl. A ttl <= 0 caches
// for the life of the process. The client is only called from Value.
func NewSecretsManager(client *secretsmanager.Client, secretID string, ttl time.Duration) Source {
	return newSecretsManager(client, secretID, ttl, time.Now)
}

func newSecretsManager(client *secretsmanager.Client, secretID string, ttl time.Duration, now func() time.Time) *cached {
	return &cached{
		ttl: ttl,
		now: now,
		sem: make(chan struct{}, 1),
		fetch: func(ctx context.Context) ([]byte, error) {
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
		},
	}
}

// cached wraps a fetch function with a TTL cache. At most one fetch runs at a
// time: concurrent first callers wait for the one fetch in flight instead of
// each calling the backend (no thundering herd on a cold start under load),
// and while a stale value is being refreshed other callers get the stale
// value without waiting.
type cached struct {
	ttl   time.Duration
	now   func() time.Time
	fetch func(context.Context) ([]byte, error)
	sem   chan struct{} // capacity 1: held while fetching

	mu        sync.RWMutex
	val       []byte
	fetchedAt time.Time
	// retryAt, after a failed refresh, is when the stale value stops being
	// served without trying again: during an outage only one request per
	// retryDelay waits for a fetch.
	retryAt time.Time
}

// retryDelay spaces out refresh attempts while a stale value is served.
const retryDelay = 5 * time.Second

// FetchTimeout bounds one read of the secret, retries included, so a silent
// Secrets Manager costs a request at most this long (then 503).
const FetchTimeout = 2 * time.Second

func (c *cached) fresh(now time.Time) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.val == nil {
		return nil, false
	}
	if c.ttl <= 0 || now.Sub(c.fetchedAt) < c.ttl || now.Before(c.retryAt) {
		return c.val, true
	}
	return c.val, false
}

func (c *cached) Value(ctx context.Context) ([]byte, error) {
	v, ok := c.fresh(c.now())
	if ok {
		return v, nil
	}
	if v != nil {
		// Stale: refresh unless another caller already is, in which case
		// the stale value is good enough for this request.
		select {
		case c.sem <- struct{}{}:
		default:
			return v, nil
		}
	} else {
		// Nothing yet: wait for the fetch in flight, or start one. A
		// channel rather than a mutex so that a caller whose context ends
		// while another fetch is slow can give up.
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	defer func() { <-c.sem }()
	// Another caller may have refreshed the value while we waited.
	stale, ok := c.fresh(c.now())
	if ok {
		return stale, nil
	}
	v, err := c.fetch(ctx)
	if err != nil {
		// Serving the previous value keeps requests working through a
		// transient Secrets Manager outage; the pepper changes only by a
		// deliberate (and key-invalidating) rotation.
		if stale != nil && !errors.Is(err, context.Canceled) {
			c.mu.Lock()
			c.retryAt = c.now().Add(retryDelay)
			c.mu.Unlock()
			return stale, nil
		}
		return nil, err
	}
	c.mu.Lock()
	c.val, c.fetchedAt = v, c.now()
	c.mu.Unlock()
	return v, nil
}
