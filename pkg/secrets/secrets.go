// Package secrets supplies secret bytes (the API key pepper) to the rest of
// Policygen. In AWS the value lives in Secrets Manager and is fetched on first
// use, then cached in process (pkg/secrets/awssecrets, on NewCached); on a
// laptop it lives in a local file that is created on first use. Nothing here
// does I/O at construction, so a Lambda function can build its Source at init
// without paying for a network call, and a request that never needs the
// secret never fetches it.
//
// This package links no AWS SDK: every function binary imports it (through
// pkg/auth), the fallback function included, and package inits are
// cold-start time.
package secrets

import (
	"context"
	"errors"
	"sync"
	"time"
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

// NewCached returns a Source that calls fetch on first use and keeps the
// value for ttl; a ttl <= 0 keeps it for the life of the process. now is the
// clock (nil for time.Now). fetch must bound its own time and must not
// return an empty value without an error.
func NewCached(fetch func(context.Context) ([]byte, error), ttl time.Duration, now func() time.Time) Source {
	if now == nil {
		now = time.Now
	}
	return &cached{ttl: ttl, now: now, fetch: fetch, sem: make(chan struct{}, 1)}
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
	// RetryDelay waits for a fetch.
	retryAt time.Time
}

// RetryDelay spaces out refresh attempts while a stale value is served after
// a failed refresh.
const RetryDelay = 5 * time.Second

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
			c.retryAt = c.now().Add(RetryDelay)
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
