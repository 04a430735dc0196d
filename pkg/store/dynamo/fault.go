package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/policygen/policygen/pkg/awsfault"
	"github.com/policygen/policygen/pkg/store"
)

// internal wraps a failed call: store.Unavailable (503, Retry-After) when
// it may pass once retried later, a plain error otherwise. The client's
// own retries (pkg/ddb) are spent by then.
func (s *Store) internal(op string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	err = fmt.Errorf("dynamo store %s: %s: %w", s.table, op, err)
	if awsfault.Transient(err) {
		return store.Unavailable(err)
	}
	return err
}
