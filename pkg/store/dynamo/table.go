package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/ddb"
)

// EndpointEnv is the SDK's standard variable that points a DynamoDB client
// elsewhere, such as DynamoDB Local.
const EndpointEnv = "AWS_ENDPOINT_URL_DYNAMODB"

// CreateTable creates table with the schema the Store needs (pk/sk strings,
// on-demand billing), waits until it is active and turns on TTL on AttrTTL.
// It is idempotent: an existing table, or TTL already on, is fine.
// In AWS the SAM template creates the table; this is for local use and
// tests (policyctl table create).
func CreateTable(ctx context.Context, client *ddb.Client, table string) error {
	type attr struct{ AttributeName, AttributeType string }
	type key struct{ AttributeName, KeyType string }
	err := client.Do(ctx, "CreateTable", struct {
		TableName            string
		AttributeDefinitions []attr
		KeySchema            []key
		BillingMode          string
	}{
		TableName:            table,
		AttributeDefinitions: []attr{{AttrPK, "S"}, {AttrSK, "S"}},
		KeySchema:            []key{{AttrPK, "HASH"}, {AttrSK, "RANGE"}},
		BillingMode:          "PAY_PER_REQUEST",
	}, nil)
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("create table %s: %w", table, err)
	}
	if err := waitActive(ctx, client, table, 5*time.Minute); err != nil {
		return fmt.Errorf("wait for table %s: %w", table, err)
	}
	var ttl struct {
		TimeToLiveDescription *struct{ TimeToLiveStatus, AttributeName string }
	}
	if err := client.Do(ctx, "DescribeTimeToLive", struct{ TableName string }{table}, &ttl); err != nil {
		return fmt.Errorf("describe TTL of %s: %w", table, err)
	}
	if d := ttl.TimeToLiveDescription; d != nil {
		switch d.TimeToLiveStatus {
		case "ENABLED", "ENABLING":
			if d.AttributeName == AttrTTL {
				return nil
			}
			return fmt.Errorf("table %s has TTL on attribute %q, want %q", table, d.AttributeName, AttrTTL)
		}
	}
	type spec struct {
		AttributeName string
		Enabled       bool
	}
	err = client.Do(ctx, "UpdateTimeToLive", struct {
		TableName               string
		TimeToLiveSpecification spec
	}{table, spec{AttrTTL, true}}, nil)
	if err != nil {
		return fmt.Errorf("enable TTL on %s: %w", table, err)
	}
	return nil
}

// waitActive polls DescribeTable until table is ACTIVE, as the SDK's
// TableExistsWaiter does: 200 ms, doubling to 5 s between polls, a table
// not found yet polled again, for at most limit.
func waitActive(ctx context.Context, client *ddb.Client, table string, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	delay := 200 * time.Millisecond
	for {
		var out struct{ Table struct{ TableStatus string } }
		err := client.Do(ctx, "DescribeTable", struct{ TableName string }{table}, &out)
		var notFound *types.ResourceNotFoundException
		switch {
		case err == nil && out.Table.TableStatus == "ACTIVE":
			return nil
		case err != nil && !errors.As(err, &notFound):
			return err
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return fmt.Errorf("table status %q: %w", out.Table.TableStatus, ctx.Err())
		}
		delay = min(2*delay, 5*time.Second)
	}
}
