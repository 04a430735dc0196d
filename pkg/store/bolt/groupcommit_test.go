package bolt

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"

	bbolt "go.etcd.io/bbolt"
)

// openWithBucket opens a store (openStore) with an empty bucket for the
// test's writes.
func openWithBucket(t *testing.T) (*Store, []byte) {
	t.Helper()
	st := openStore(t)
	bucket := []byte("grouptest")
	if err := st.db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucket(bucket); return err }); err != nil {
		t.Fatal(err)
	}
	return st, bucket
}

// TestGroupCommit: concurrent writes share commits; a function that fails
// gets its own error and leaves nothing, and the others' writes all land.
func TestGroupCommit(t *testing.T) {
	st, bucket := openWithBucket(t)
	const n = 200
	errOdd := errors.New("every seventh fails")
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = st.group.update(func(tx *bbolt.Tx) error {
				b := tx.Bucket(bucket)
				if err := b.Put(fmt.Appendf(nil, "%03d", i), []byte("v")); err != nil {
					return err
				}
				if i%7 == 0 {
					return fmt.Errorf("call %d: %w", i, errOdd) // after its write: rolled back
				}
				return nil
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if want := i%7 == 0; errors.Is(err, errOdd) != want || (!want && err != nil) {
			t.Errorf("call %d: %v", i, err)
		}
	}
	st.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucket)
		for i := range n {
			if got := b.Get(fmt.Appendf(nil, "%03d", i)) != nil; got != (i%7 != 0) {
				t.Errorf("key %d stored: %v", i, got)
			}
		}
		return nil
	})
	commits := st.group.commits.Load()
	t.Logf("%d calls in %d transactions", n, commits)
	if commits >= n {
		t.Errorf("%d calls took %d transactions: nothing was grouped", n, commits)
	}
}

// TestGroupCommitPanic: a write that panics fails alone; the process and
// the other writes of its group carry on.
func TestGroupCommitPanic(t *testing.T) {
	st, bucket := openWithBucket(t)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() {
			errs[i] = st.group.update(func(tx *bbolt.Tx) error {
				if i == 3 {
					panic("boom")
				}
				return tx.Bucket(bucket).Put(fmt.Appendf(nil, "%02d", i), []byte("v"))
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (i == 3) != (err != nil) {
			t.Errorf("call %d: %v", i, err)
		}
	}
	st.db.View(func(tx *bbolt.Tx) error {
		if n := tx.Bucket(bucket).Stats().KeyN; n != 19 {
			t.Errorf("%d keys stored, want 19", n)
		}
		return nil
	})
}

// TestGroupCommitCollectsReadyCallers: callers that are ready to run when
// the committer starts join its group rather than each waiting for a
// commit of its own. With one P, the three goroutines of a round are all
// runnable before any of them runs; the first to call update starts the
// committer, which yields once before it takes the group, so the other two
// join it: one transaction for three calls (without the yield, the first
// commits alone and the others follow in one or two more). The scheduler
// promises no order, and the runtime's own work (a preemption, the
// collector) can come between, so the test asks it of most rounds, not of
// every one.
func TestGroupCommitCollectsReadyCallers(t *testing.T) {
	st, bucket := openWithBucket(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const rounds = 10
	grouped := 0
	for r := range rounds {
		before := st.group.commits.Load()
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i := range errs {
			wg.Go(func() {
				errs[i] = st.group.update(func(tx *bbolt.Tx) error {
					return tx.Bucket(bucket).Put(fmt.Appendf(nil, "%d-%d", r, i), []byte("v"))
				})
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, call %d: %v", r, i, err)
			}
		}
		if st.group.commits.Load()-before == 1 {
			grouped++
		}
	}
	if grouped < rounds-2 {
		t.Errorf("3 calls ready together took one transaction in %d rounds of %d, want at least %d", grouped, rounds, rounds-2)
	}
	st.db.View(func(tx *bbolt.Tx) error {
		if n := tx.Bucket(bucket).Stats().KeyN; n != 3*rounds {
			t.Errorf("%d keys stored, want %d", n, 3*rounds)
		}
		return nil
	})
}
