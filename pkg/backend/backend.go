// Package backend opens the Store named by a --store flag value, so every
// command (policyd, policyctl) accepts the same specs:
//
//	bolt:PATH        the embedded store in file PATH (created if missing)
//	dynamodb:TABLE   DynamoDB table TABLE, with the default AWS configuration
//	                 (AWS_ENDPOINT_URL_DYNAMODB points it at DynamoDB Local)
package backend

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/bolt"
	"github.com/policygen/policygen/pkg/store/dynamo"
)

// Forms lists the accepted spec forms, for flag help and errors.
const Forms = "bolt:PATH or dynamodb:TABLE"

// tableName is DynamoDB's rule for table names.
var tableName = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`)

// Open opens the store named by spec. Opening a DynamoDB store does no
// network I/O; a missing table shows up on first use.
func Open(ctx context.Context, spec string) (store.Store, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return nil, fmt.Errorf("invalid store %q: want %s", spec, Forms)
	}
	switch kind {
	case "bolt":
		st, err := bolt.Open(arg)
		if err != nil {
			return nil, err
		}
		return st, nil
	case "dynamodb":
		if !tableName.MatchString(arg) {
			return nil, fmt.Errorf("invalid store %q: %q is not a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -)", spec, arg)
		}
		client, err := dynamo.NewClient(ctx)
		if err != nil {
			return nil, err
		}
		return dynamo.New(client, arg), nil
	default:
		return nil, fmt.Errorf("invalid store %q: unknown kind %q; want %s", spec, kind, Forms)
	}
}
