package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/ddb"
)

// ItemSize is itemSize, for the unit meter of units_test.go.
func ItemSize(item map[string]types.AttributeValue) int { return itemSize(item) }

// Hook sees one operation: its input (a *ddb.GetItemInput, ...), and next,
// which makes the call and returns its output.
type Hook func(ctx context.Context, in any, next func() (any, error)) (any, error)

// NewWithHook is New with every operation passed through hook, for the
// unit meter of units_test.go.
func NewWithHook(client *ddb.Client, table string, hook Hook) *Store {
	s := New(client, table)
	s.db = operations{
		GetItem:            hooked(hook, s.db.GetItem),
		PutItem:            hooked(hook, s.db.PutItem),
		UpdateItem:         hooked(hook, s.db.UpdateItem),
		DeleteItem:         hooked(hook, s.db.DeleteItem),
		Query:              hooked(hook, s.db.Query),
		TransactWriteItems: hooked(hook, s.db.TransactWriteItems),
	}
	return s
}

func hooked[I, O any](hook Hook, op func(context.Context, *I) (*O, error)) func(context.Context, *I) (*O, error) {
	return func(ctx context.Context, in *I) (*O, error) {
		out, err := hook(ctx, in, func() (any, error) { return op(ctx, in) })
		o, _ := out.(*O)
		return o, err
	}
}
