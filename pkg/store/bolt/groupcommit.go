package bolt

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	bbolt "go.etcd.io/bbolt"
)

// groupCommit runs concurrent write transactions as one bbolt transaction,
// so that they share one commit and its fsync: that sync is most of a
// generate's time on a local disk, and bbolt has one writer at a time.
// No call waits for a timer (unlike bbolt's DB.Batch, which waits up to
// MaxBatchDelay for company): a call that finds the writer idle commits
// once the goroutines ready to run have had their turn (so callers that
// arrive together share it), and the calls that arrive while a commit runs
// form the next one.
// Each call returns only after the commit that holds its writes is synced,
// so durability is bbolt's own.
//
// As with DB.Batch, a function may run more than once and must depend only
// on the transaction: when one function fails, the group is rolled back,
// the failed one runs alone (its error is its caller's answer), and the
// others run again as a group.
type groupCommit struct {
	db *bbolt.DB

	mu      sync.Mutex
	pending []*commitCall
	running bool
	commits atomic.Int64 // transactions committed or attempted, for tests
}

type commitCall struct {
	fn   func(*bbolt.Tx) error
	done chan error
}

// run calls the function, its panic becoming its error: it runs on the
// committing goroutine, where a panic would take the whole process down
// and leave the group's other callers waiting (in the caller's own
// goroutine, net/http recovered it for that request alone).
func (c *commitCall) run(tx *bbolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("write panicked: %v", p)
		}
	}()
	return c.fn(tx)
}

// update runs fn in a write transaction shared with concurrent calls.
func (g *groupCommit) update(fn func(*bbolt.Tx) error) error {
	c := &commitCall{fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	g.pending = append(g.pending, c)
	if !g.running {
		g.running = true
		go g.loop()
	}
	g.mu.Unlock()
	return <-c.done
}

// loop commits what is pending until nothing is.
func (g *groupCommit) loop() {
	for {
		// Let the goroutines that are ready to run do so before the group
		// is taken: a handler that is about to call update joins this
		// commit instead of waiting a whole one for the next, so groups
		// are larger and the commit's fixed cost (two fsyncs, the meta
		// page, the tree's upper pages) is shared by more writes. No
		// timer: with nothing else ready to run, Gosched returns at once,
		// so a lone caller waits for nothing (DECISIONS.md 36).
		runtime.Gosched()
		g.mu.Lock()
		group := g.pending
		g.pending = nil
		if len(group) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		g.commit(group)
	}
}

// errInGroup marks a function's own error inside a group transaction.
var errInGroup = errors.New("a function of the group failed")

func (g *groupCommit) commit(group []*commitCall) {
	for len(group) > 0 {
		g.commits.Add(1)
		if len(group) == 1 {
			group[0].done <- g.db.Update(group[0].run)
			return
		}
		failed := -1
		err := g.db.Update(func(tx *bbolt.Tx) error {
			for i, c := range group {
				if err := c.run(tx); err != nil {
					failed = i
					return errInGroup
				}
			}
			return nil
		})
		if failed < 0 {
			// Committed (nil for all), or the commit itself failed.
			for _, c := range group {
				c.done <- err
			}
			return
		}
		// Everything was rolled back: the failed call alone, then the rest.
		c := group[failed]
		g.commits.Add(1)
		c.done <- g.db.Update(c.run)
		group = append(group[:failed:failed], group[failed+1:]...)
	}
}
