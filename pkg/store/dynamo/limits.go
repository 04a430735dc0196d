package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/ddb"
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
	Body        []byte `json:"body,omitempty"` // package content's encoding
	// Ref, when set, is the policy whose content item Body is a delta
	// against: a generate's response is mostly the policy it stores, so
	// the record keeps the response without the content's JSON string,
	// which goes back in at byte Cut, compressed against the summary
	// (content.CompressDelta). DeletePolicy keeps the content item for
	// longer than the record lives.
	Ref string `json:"ref,omitempty"`
	Cut int    `json:"cut,omitempty"`
	TTL int64  `json:"ttl"`
}

// BeginIdempotent implements store.Store: one conditional PutItem that
// returns the holding record when the condition fails, so a claim or a
// replay costs one round trip.
func (s *Store) BeginIdempotent(ctx context.Context, c store.IdempotencyClaim, fingerprint string, now time.Time) (*store.IdempotencyRecord, error) {
	item := idemItem{
		PK: accountPK(c.AccountID), SK: idemSK(c.Key),
		Fingerprint: fingerprint, Owner: c.Owner,
		LeaseUntil: now.Add(store.IdempotencyLease).UnixMilli(),
		CreatedAt:  now.UnixMilli(),
		TTL:        now.Add(store.IdempotencyTTL).Unix(),
	}.attrs()
	_, err := s.db.PutItem(ctx, &ddb.PutItemInput{
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
		if err := old.decode(ccf.Item); err != nil {
			return nil, s.internal("decode idempotency record", err)
		}
		rec := &store.IdempotencyRecord{
			Fingerprint: old.Fingerprint, Done: old.Done, Status: old.Status, Location: old.Location,
			CreatedAt: time.UnixMilli(old.CreatedAt).UTC(),
		}
		if old.Done {
			body, err := s.replayBody(ctx, c.AccountID, old)
			if err != nil {
				return nil, err
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

// replayBody is a done record's stored response.
func (s *Store) replayBody(ctx context.Context, accountID string, rec idemItem) (string, error) {
	if rec.Ref == "" {
		body, err := content.Decompress(rec.Body)
		if err != nil {
			return "", s.internal("decode idempotency record", err)
		}
		return body, nil
	}
	out, err := s.db.GetItem(ctx, &ddb.GetItemInput{
		TableName:      &s.table,
		Key:            itemKey(accountPK(accountID), contentSK(rec.Ref)),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return "", s.internal("get idempotency base", err)
	}
	if len(out.Item) == 0 {
		return "", s.internal("get idempotency base", fmt.Errorf("policy %s of a done idempotency record has no content", rec.Ref))
	}
	p, err := decodeContent(out.Item, accountID)
	if err != nil {
		return "", s.internal("decode idempotency base", err)
	}
	text, sum := deltaBase(p)
	rest, err := content.DecompressDelta(rec.Body, sum)
	if err != nil || rec.Cut > len(rest) {
		return "", s.internal("decode idempotency record", fmt.Errorf("delta against %s: %v", rec.Ref, err))
	}
	return rest[:rec.Cut] + text + rest[rec.Cut:], nil
}

// deltaBase is what a generate's response is a delta against: the policy's
// content as a JSON string, the way the API's response carries it (no HTML
// escaping), and its summary as JSON. The content is cut out of the
// response whole (matching 20 KB through DEFLATE's 32 KB window would not
// fit every document); what is left is compressed against the summary.
// A response that does not carry the content that way is stored whole.
func deltaBase(p store.Policy) (text, sum string) {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(p.Content) // strings and summaries always encode
	text = strings.TrimSuffix(buf.String(), "\n")
	buf.Reset()
	enc.Encode(p.Summary)
	return text, buf.String()
}

// completeUpdate is the write that marks a claim done with its outcome, on
// its own or inside CreatePolicy's transaction. With a policy (ref, and its
// content as base) the body is stored as a delta against that content.
func (s *Store) completeUpdate(r store.IdempotentResult, ref string, base store.Policy) (*types.Update, error) {
	body, cut := string(r.Body), -1
	if ref != "" {
		text, _ := deltaBase(base)
		cut = strings.Index(body, text)
	}
	var (
		gz  []byte
		err error
	)
	if cut >= 0 {
		text, sum := deltaBase(base)
		gz, err = content.CompressDelta(body[:cut]+body[cut+len(text):], sum)
	} else {
		gz, err = content.Compress(body)
	}
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
	update := "SET #done = :true, #status = :status, #body = :body, #loc = :loc"
	names := map[string]string{"#done": "done", "#status": "status", "#body": "body", "#loc": "location", "#owner": "owner"}
	if cut >= 0 {
		update += ", #ref = :ref, #cut = :cut"
		names["#ref"], names["#cut"] = "ref", "cut"
		vals[":ref"] = &types.AttributeValueMemberS{Value: ref}
		vals[":cut"] = number(int64(cut))
	}
	return &types.Update{
		TableName:                 &s.table,
		Key:                       itemKey(accountPK(r.Claim.AccountID), idemSK(r.Claim.Key)),
		UpdateExpression:          aws.String(update),
		ConditionExpression:       aws.String("#owner = :owner AND #done = :false"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: vals,
	}, nil
}

// CompleteIdempotent implements store.Store.
func (s *Store) CompleteIdempotent(ctx context.Context, r store.IdempotentResult) error {
	u, err := s.completeUpdate(r, "", store.Policy{})
	if err != nil {
		return s.internal("encode idempotency record", err)
	}
	_, err = s.db.UpdateItem(ctx, &ddb.UpdateItemInput{
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
	_, err := s.db.DeleteItem(ctx, &ddb.DeleteItemInput{
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
	out, err := s.db.UpdateItem(ctx, &ddb.UpdateItemInput{
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
	if err := c.decode(out.Attributes); err != nil {
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
		res, err := s.db.Query(ctx, &ddb.QueryInput{
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
