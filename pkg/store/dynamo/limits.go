package dynamo

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/internal/content"
)

// Sort keys of the idempotency records and rate counters, in the account's
// partition like everything else the account owns.
const (
	skIdemPrefix = "IDEM#"
	skRatePrefix = "RATE#"
)

func idemSK(key string) string { return skIdemPrefix + key }

func rateSK(keyID string, window time.Time) string {
	return skRatePrefix + keyID + "#" + strconv.FormatInt(window.Unix(), 10)
}

// rateRetention keeps a rate counter past its window, for DynamoDB's TTL
// sweep (which may lag by days; expired counters are never read again).
const rateRetention = 10 * time.Minute

// idemItem is an idempotency key's record. Times are epoch milliseconds, so
// conditions compare numbers; ttl is epoch seconds for DynamoDB's TTL.
type idemItem struct {
	PK          string `json:"pk"`
	SK          string `json:"sk"`
	Fingerprint string `json:"fp"`
	Owner       string `json:"owner"`
	Done        bool   `json:"done"`
	LeaseUntil  int64  `json:"leaseUntil"`
	CreatedAt   int64  `json:"createdAt"`
	Status      int    `json:"status,omitempty"`
	Location    string `json:"location,omitempty"`
	Body        []byte `json:"body,omitempty"` // gzip
	TTL         int64  `json:"ttl"`
}

// BeginIdempotent implements store.Store: one conditional PutItem that
// returns the holding record when the condition fails, so a claim or a
// replay costs one round trip.
func (s *Store) BeginIdempotent(ctx context.Context, c store.IdempotencyClaim, fingerprint string, now time.Time) (*store.IdempotencyRecord, error) {
	item, err := marshal(idemItem{
		PK: accountPK(c.AccountID), SK: idemSK(c.Key),
		Fingerprint: fingerprint, Owner: c.Owner,
		LeaseUntil: now.Add(store.IdempotencyLease).UnixMilli(),
		CreatedAt:  now.UnixMilli(),
		TTL:        now.Add(store.IdempotencyTTL).Unix(),
	})
	if err != nil {
		return nil, s.internal("encode idempotency record", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table,
		Item:      item,
		// Free, expired (DynamoDB's TTL sweep may lag), or an abandoned
		// pending claim.
		ConditionExpression:      aws.String("attribute_not_exists(pk) OR #created <= :expired OR (#done = :false AND #lease <= :now)"),
		ExpressionAttributeNames: map[string]string{"#created": "createdAt", "#done": "done", "#lease": "leaseUntil"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":expired": number(now.Add(-store.IdempotencyTTL).UnixMilli()),
			":now":     number(now.UnixMilli()),
			":false":   &types.AttributeValueMemberBOOL{Value: false},
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		var old idemItem
		if err := unmarshal(ccf.Item, &old); err != nil {
			return nil, s.internal("decode idempotency record", err)
		}
		rec := &store.IdempotencyRecord{
			Fingerprint: old.Fingerprint, Done: old.Done, Status: old.Status, Location: old.Location,
			CreatedAt: time.UnixMilli(old.CreatedAt).UTC(),
		}
		if old.Done {
			body, err := content.Decompress(old.Body)
			if err != nil {
				return nil, s.internal("decode idempotency record", err)
			}
			rec.Body = []byte(body)
		}
		return rec, nil
	}
	if err != nil {
		return nil, s.internal("begin idempotent request", err)
	}
	return nil, nil
}

// completeUpdate is the write that marks a claim done with its outcome, on
// its own or inside CreatePolicy's transaction.
func (s *Store) completeUpdate(r store.IdempotentResult) (*types.Update, error) {
	gz, err := content.Compress(string(r.Body))
	if err != nil {
		return nil, err
	}
	vals := map[string]types.AttributeValue{
		":true":   &types.AttributeValueMemberBOOL{Value: true},
		":false":  &types.AttributeValueMemberBOOL{Value: false},
		":owner":  &types.AttributeValueMemberS{Value: r.Claim.Owner},
		":status": number(int64(r.Status)),
		":body":   &types.AttributeValueMemberB{Value: gz},
		":loc":    &types.AttributeValueMemberS{Value: r.Location},
	}
	return &types.Update{
		TableName:                 &s.table,
		Key:                       itemKey(accountPK(r.Claim.AccountID), idemSK(r.Claim.Key)),
		UpdateExpression:          aws.String("SET #done = :true, #status = :status, #body = :body, #loc = :loc"),
		ConditionExpression:       aws.String("#owner = :owner AND #done = :false"),
		ExpressionAttributeNames:  map[string]string{"#done": "done", "#status": "status", "#body": "body", "#loc": "location", "#owner": "owner"},
		ExpressionAttributeValues: vals,
	}, nil
}

// CompleteIdempotent implements store.Store.
func (s *Store) CompleteIdempotent(ctx context.Context, r store.IdempotentResult) error {
	u, err := s.completeUpdate(r)
	if err != nil {
		return s.internal("encode idempotency record", err)
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
		ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
		ExpressionAttributeValues: u.ExpressionAttributeValues,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return store.ErrClaimLost
	}
	if err != nil {
		return s.internal("complete idempotent request", err)
	}
	return nil
}

// ReleaseIdempotent implements store.Store.
func (s *Store) ReleaseIdempotent(ctx context.Context, c store.IdempotencyClaim) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                &s.table,
		Key:                      itemKey(accountPK(c.AccountID), idemSK(c.Key)),
		ConditionExpression:      aws.String("#owner = :owner AND #done = :false"),
		ExpressionAttributeNames: map[string]string{"#owner": "owner", "#done": "done"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":owner": &types.AttributeValueMemberS{Value: c.Owner},
			":false": &types.AttributeValueMemberBOOL{Value: false},
		},
	})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return s.internal("release idempotent request", err)
	}
	return nil
}

// CountRequest implements store.Store: one conditional atomic UpdateItem on
// the key's counter for the window. A refused request writes nothing.
func (s *Store) CountRequest(ctx context.Context, accountID, keyID string, window time.Time, limit int) (int, bool, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      itemKey(accountPK(accountID), rateSK(keyID, window)),
		UpdateExpression:         aws.String("ADD #n :one SET #ttl = if_not_exists(#ttl, :ttl)"),
		ConditionExpression:      aws.String("attribute_not_exists(#n) OR #n < :limit"),
		ExpressionAttributeNames: map[string]string{"#n": "count", "#ttl": AttrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one":   number(1),
			":limit": number(int64(limit)),
			":ttl":   number(window.Add(rateRetention).Unix()),
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return limit, false, nil
	}
	if err != nil {
		return 0, false, s.internal("count request", err)
	}
	var c countItem
	if err := unmarshal(out.Attributes, &c); err != nil {
		return 0, false, s.internal("count request", err)
	}
	return int(c.Count), true, nil
}

// ListAccounts implements store.Store: a Query of the account index, then
// one GetItem per account (an operator's listing; docs/STORAGE.md).
func (s *Store) ListAccounts(ctx context.Context) ([]account.Account, error) {
	sks, err := s.sortKeys(ctx, "list accounts", pkAccountIndex, "ACCOUNT#")
	if err != nil {
		return nil, err
	}
	out := make([]account.Account, 0, len(sks))
	for _, sk := range sks {
		a, err := s.Account(ctx, strings.TrimPrefix(sk, "ACCOUNT#"))
		if errs.Is(err, errs.NotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// AccountKeys implements store.Store: a Query of the account's KEYREF#
// items, then the key records (a key deleted by its TTL is left out).
func (s *Store) AccountKeys(ctx context.Context, accountID string) ([]account.Key, error) {
	if _, err := s.Account(ctx, accountID); err != nil {
		return nil, err
	}
	sks, err := s.sortKeys(ctx, "list keys", accountPK(accountID), skKeyRefPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]account.Key, 0, len(sks))
	for _, sk := range sks {
		k, err := s.Key(ctx, strings.TrimPrefix(sk, skKeyRefPrefix))
		if errs.Is(err, errs.NotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// sortKeys returns the sort keys under pk that begin with prefix, in order.
func (s *Store) sortKeys(ctx context.Context, op, pk, prefix string) ([]string, error) {
	var (
		out   []string
		start map[string]types.AttributeValue
	)
	for {
		res, err := s.db.Query(ctx, &dynamodb.QueryInput{
			TableName:                 &s.table,
			KeyConditionExpression:    aws.String("pk = :pk AND begins_with(sk, :prefix)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}, ":prefix": &types.AttributeValueMemberS{Value: prefix}},
			ProjectionExpression:      aws.String("sk"),
			ConsistentRead:            aws.Bool(true),
			ExclusiveStartKey:         start,
		})
		if err != nil {
			return nil, s.internal(op, err)
		}
		for _, it := range res.Items {
			if v, ok := it[AttrSK].(*types.AttributeValueMemberS); ok {
				out = append(out, v.Value)
			}
		}
		if len(res.LastEvaluatedKey) == 0 {
			return out, nil
		}
		start = res.LastEvaluatedKey
	}
}
