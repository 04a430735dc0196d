// Package testenv holds what tests in several packages use to drive and
// observe the code under test: a clock they move by hand (time is injected,
// never slept through) and a buffer that collects the output of a server or
// process running concurrently with the test. Only tests import it.
package testenv

import (
	"bytes"
	"sync"
	"time"
)

// Clock is a time source that stands still until the test moves it. Pass
// its Now method wherever the code takes a Now func() time.Time.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock showing t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Buffer is a bytes.Buffer that is safe for concurrent use: the code under
// test writes to it while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
