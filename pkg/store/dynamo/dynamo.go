// Package dynamo is the Store on one DynamoDB table (AWS SDK v2), the
// production backend. docs/STORAGE.md describes the item layout, access
// patterns and costs; in short:
//
//	pk                  sk                  what
//	ACCOUNT#<acct>      ACCOUNT             the account
//	ACCOUNT#<acct>      POLICY#<id>         compressed summary (what a list reads)
//	ACCOUNT#<acct>      CONTENT#<id>        summary + compressed content (what a get reads)
//	ACCOUNT#<acct>      USAGE#<YYYY-MM>     generations that month (count)
//	KEY#<hash>          KEY                 an API key, found by its hash
//	KEYID#<keyId>       KEYID               pointer from a key's id to its hash
//	STATS               ACCOUNTS            number of accounts ever created
//	USER#<email>        USER                a dashboard user (web.go)
//	SESSION#<hash>      SESSION             a dashboard session, TTL at expiry
//
// Every policy item's partition key is its account, and every policy
// operation builds the key from the account id it is given, so no request
// can reach another account's items. Writes that must change several items
// together are transactions with conditions; their cancellation reasons are
// mapped to NotFound or Conflict.
package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/ddb"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/internal/content"
	"github.com/policygen/policygen/pkg/store/internal/normalize"
)

// Attribute names of the table's keys and TTL (template.yaml must match).
const (
	AttrPK  = "pk"
	AttrSK  = "sk"
	AttrTTL = "ttl"
)

// How long items that are no longer needed are kept before DynamoDB's TTL
// deletes them.
const (
	// RevokedKeyRetention: a revoked (or expired) key keeps answering
	// "revoked"/"expired" for this long, then disappears and reads as unknown.
	RevokedKeyRetention = 90 * 24 * time.Hour
	// UsageRetention: a monthly usage counter outlives its month by about a
	// year, for billing questions.
	UsageRetention = 400 * 24 * time.Hour
)

// maxItemBytes is DynamoDB's item size limit (400 KB, where 1 KB is 1024
// bytes). A larger item is refused with a ValidationException; CreatePolicy
// checks first, so the caller gets store.ErrTooLarge instead.
const maxItemBytes = 400 << 10

// Store is a store.Store on one DynamoDB table.
type Store struct {
	db    operations
	table string
}

// operations are the client's operations the store calls, as method values
// of one *ddb.Client. The tests meter them (units_test.go); in the
// dashboard, whose templates look methods up by name through reflection,
// they keep the linker to the operations called (DECISIONS 38).
type operations struct {
	GetItem            func(context.Context, *ddb.GetItemInput) (*ddb.GetItemOutput, error)
	PutItem            func(context.Context, *ddb.PutItemInput) (*ddb.PutItemOutput, error)
	UpdateItem         func(context.Context, *ddb.UpdateItemInput) (*ddb.UpdateItemOutput, error)
	DeleteItem         func(context.Context, *ddb.DeleteItemInput) (*ddb.DeleteItemOutput, error)
	Query              func(context.Context, *ddb.QueryInput) (*ddb.QueryOutput, error)
	TransactWriteItems func(context.Context, *ddb.TransactWriteItemsInput) (*ddb.TransactWriteItemsOutput, error)
}

var _ store.Store = (*Store)(nil)

// New returns a Store on table. It does no I/O: the table must exist (see
// CreateTable).
func New(client *ddb.Client, table string) *Store {
	return &Store{db: operations{
		GetItem:            client.GetItem,
		PutItem:            client.PutItem,
		UpdateItem:         client.UpdateItem,
		DeleteItem:         client.DeleteItem,
		Query:              client.Query,
		TransactWriteItems: client.TransactWriteItems,
	}, table: table}
}

// Close implements store.Store; the client needs no closing.
func (s *Store) Close() error { return nil }

// Key builders. Ids come from callers, so every policy key is built here
// from the account id: a crafted id can only name an item of that account.
func accountPK(acct string) string { return "ACCOUNT#" + acct }

const (
	skAccount       = "ACCOUNT"
	skPolicyPrefix  = "POLICY#"
	skContentPrefix = "CONTENT#"
	skUsagePrefix   = "USAGE#"
	skKey           = "KEY"
	skKeyID         = "KEYID"
	pkStats         = "STATS"
	skStatsAccounts = "ACCOUNTS"
	// The operators' listings: one index item per account under
	// ACCOUNTS, and one per key in its account's partition.
	pkAccountIndex = "ACCOUNTS"
	skKeyRefPrefix = "KEYREF#"
)

func keyPK(hash string) string   { return "KEY#" + hash }
func keyIDPK(id string) string   { return "KEYID#" + id }
func policySK(id string) string  { return skPolicyPrefix + id }
func contentSK(id string) string { return skContentPrefix + id }
func usageSK(m string) string    { return skUsagePrefix + m }

func itemKey(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		AttrPK: &types.AttributeValueMemberS{Value: pk},
		AttrSK: &types.AttributeValueMemberS{Value: sk},
	}
}

// Items as stored. Attribute names are the json tag names, shared with the
// API's field names; times are RFC 3339 strings, ttl epoch seconds.
type accountItem struct {
	PK string `json:"pk"`
	SK string `json:"sk"`
	account.Account
}

type keyItem struct {
	PK string `json:"pk"`
	SK string `json:"sk"`
	account.Key
	TTL *int64 `json:"ttl,omitempty"`
}

type keyIDItem struct {
	PK        string `json:"pk"`
	SK        string `json:"sk"`
	Hash      string `json:"hash"`
	AccountID string `json:"accountId"`
	TTL       *int64 `json:"ttl,omitempty"`
}

// policyItem is a policy's metadata item, what a list reads. Its summary
// is JSON compressed with the content dictionary (docs/STORAGE.md): about
// 300 bytes instead of 2-5 KB of attributes. Items written before issue 9
// hold the summary as attributes instead (legacyPolicyItem); both read.
type policyItem struct {
	PK      string `json:"pk"`
	SK      string `json:"sk"`
	Summary []byte `json:"sum"`
}

type legacyPolicyItem struct {
	PK string `json:"pk"`
	SK string `json:"sk"`
	store.Summary
}

// contentItem is what a get reads: the policy's text, compressed (package
// content), and the same compressed summary as the metadata item (a few
// hundred bytes, so a get is one GetItem). Items written before issue 9
// carry the summary as attributes instead. TTL is set only on a deleted
// policy's content (DeletePolicy): such an item is not found.
type contentItem struct {
	PK      string `json:"pk"`
	SK      string `json:"sk"`
	Summary []byte `json:"sum"`
	Content []byte `json:"content"`
	TTL     *int64 `json:"ttl,omitempty"`
}

// encodeSummary and decodeSummary are the metadata item's summary.
func encodeSummary(sum store.Summary) ([]byte, error) {
	j, err := json.Marshal(sum)
	if err != nil {
		return nil, err
	}
	return content.Compress(string(j))
}

// decodeSummary reads the summary of a metadata or content item of either
// layout.
func decodeSummary(m map[string]types.AttributeValue, accountID string) (store.Summary, error) {
	var sum store.Summary
	if _, ok := m["sum"]; ok {
		var it policyItem
		if err := it.decode(m); err != nil {
			return store.Summary{}, err
		}
		j, err := content.Decompress(it.Summary)
		if err != nil {
			return store.Summary{}, err
		}
		if err := json.Unmarshal([]byte(j), &sum); err != nil {
			return store.Summary{}, err
		}
	} else {
		var it legacyPolicyItem
		if err := decodeJSON(m, &it); err != nil {
			return store.Summary{}, err
		}
		sum = it.Summary
	}
	sum = normalize.Summary(sum)
	sum.AccountID = accountID
	return sum, nil
}

type countItem struct {
	Count int64 `json:"count"`
}

// CreateAccount implements store.Store. The STATS counter makes HasAccounts
// one GetItem instead of a table scan.
func (s *Store) CreateAccount(ctx context.Context, a account.Account) error {
	reasons, err := s.transact(ctx, "create account", s.accountWrites(a))
	if failed(reasons, 0) {
		return store.ErrExists
	}
	return err
}

// accountWrites are the writes of a new account, the first conditional on
// its id being new: the account item, its index entry and the STATS count.
func (s *Store) accountWrites(a account.Account) []types.TransactWriteItem {
	a.CreatedAt = a.CreatedAt.UTC()
	return []types.TransactWriteItem{
		{Put: &types.Put{
			TableName:           &s.table,
			Item:                accountItem{PK: accountPK(a.ID), SK: skAccount, Account: a}.attrs(),
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		}},
		{Put: &types.Put{TableName: &s.table, Item: itemKey(pkAccountIndex, accountPK(a.ID))}},
		{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       itemKey(pkStats, skStatsAccounts),
			UpdateExpression:          aws.String("ADD #count :one"),
			ExpressionAttributeNames:  map[string]string{"#count": "count"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": number(1)},
		}},
	}
}

// Account implements store.Store.
func (s *Store) Account(ctx context.Context, id string) (account.Account, error) {
	var it accountItem
	if err := s.get(ctx, "get account", itemKey(accountPK(id), skAccount), &it, store.ErrAccountNotFound); err != nil {
		return account.Account{}, err
	}
	it.Account.CreatedAt = it.Account.CreatedAt.UTC()
	return it.Account, nil
}

// SetPlan implements store.Store.
func (s *Store) SetPlan(ctx context.Context, accountID string, plan account.Plan) error {
	_, err := s.db.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       itemKey(accountPK(accountID), skAccount),
		UpdateExpression:          aws.String("SET #plan = :plan"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames:  map[string]string{"#plan": "plan"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":plan": &types.AttributeValueMemberS{Value: string(plan)}},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return store.ErrAccountNotFound
	}
	if err != nil {
		return s.internal("set plan", err)
	}
	return nil
}

// HasAccounts implements store.Store.
func (s *Store) HasAccounts(ctx context.Context) (bool, error) {
	var c countItem
	err := s.get(ctx, "count accounts", itemKey(pkStats, skStatsAccounts), &c, nil)
	return c.Count > 0, err
}

// CreateKey implements store.Store: the key record, its id pointer and a
// check that the account exists, in one transaction.
func (s *Store) CreateKey(ctx context.Context, k account.Key) error {
	k = normalize.Key(k)
	var ttl *int64
	if k.ExpiresAt != nil {
		ttl = epoch(k.ExpiresAt.Add(RevokedKeyRetention))
	}
	keyAV := keyItem{PK: keyPK(k.Hash), SK: skKey, Key: k, TTL: ttl}.attrs()
	idAV := keyIDItem{PK: keyIDPK(k.ID), SK: skKeyID, Hash: k.Hash, AccountID: k.AccountID, TTL: ttl}.attrs()
	notExists := aws.String("attribute_not_exists(pk)")
	reasons, err := s.transact(ctx, "create key", []types.TransactWriteItem{
		{Put: &types.Put{TableName: &s.table, Item: keyAV, ConditionExpression: notExists}},
		{Put: &types.Put{TableName: &s.table, Item: idAV, ConditionExpression: notExists}},
		{ConditionCheck: &types.ConditionCheck{
			TableName:           &s.table,
			Key:                 itemKey(accountPK(k.AccountID), skAccount),
			ConditionExpression: aws.String("attribute_exists(pk)"),
		}},
		{Put: &types.Put{TableName: &s.table, Item: itemKey(accountPK(k.AccountID), skKeyRefPrefix+k.ID)}},
	})
	switch {
	case failed(reasons, 2):
		return store.ErrAccountNotFound
	case failed(reasons, 0), failed(reasons, 1):
		return store.ErrExists
	}
	return err
}

// KeyByHash implements store.Store: one GetItem.
func (s *Store) KeyByHash(ctx context.Context, hash string) (account.Key, error) {
	var it keyItem
	if err := s.get(ctx, "get key", itemKey(keyPK(hash), skKey), &it, store.ErrKeyNotFound); err != nil {
		return account.Key{}, err
	}
	return normalize.Key(it.Key), nil
}

// Key implements store.Store: the id pointer, then the record.
func (s *Store) Key(ctx context.Context, id string) (account.Key, error) {
	var ptr keyIDItem
	if err := s.get(ctx, "get key id", itemKey(keyIDPK(id), skKeyID), &ptr, store.ErrKeyNotFound); err != nil {
		return account.Key{}, err
	}
	return s.KeyByHash(ctx, ptr.Hash)
}

// RevokeKey implements store.Store. The earlier of the stored and the new
// revocation time wins: a rotation may schedule a key's revocation in the
// future, and revoking it now (because it leaked) must take effect now.
// The write is conditional on the value just read, so a concurrent revoke
// cannot be lost; on a lost race the loop reads again. The pointer item gets
// the same TTL, so both age out together.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) (account.Key, error) {
	var ptr keyIDItem
	if err := s.get(ctx, "get key id", itemKey(keyIDPK(id), skKeyID), &ptr, store.ErrKeyNotFound); err != nil {
		return account.Key{}, err
	}
	at = at.UTC()
	key := itemKey(keyPK(ptr.Hash), skKey)
	for attempt := 0; attempt < maxTransactAttempts; attempt++ {
		got, err := s.db.GetItem(ctx, &ddb.GetItemInput{TableName: &s.table, Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			return account.Key{}, s.internal("get key", err)
		}
		if len(got.Item) == 0 {
			return account.Key{}, store.ErrKeyNotFound
		}
		var cur keyItem
		if err := cur.decode(got.Item); err != nil {
			return account.Key{}, s.internal("decode key", err)
		}
		if cur.RevokedAt != nil && !at.Before(*cur.RevokedAt) {
			return normalize.Key(cur.Key), nil
		}
		ttl := at.Add(RevokedKeyRetention).Unix()
		if cur.TTL != nil && *cur.TTL < ttl {
			ttl = *cur.TTL
		}
		cond := "attribute_exists(pk) AND attribute_not_exists(#rev)"
		values := map[string]types.AttributeValue{
			":rev": &types.AttributeValueMemberS{Value: at.Format(time.RFC3339Nano)},
			":ttl": number(ttl),
		}
		if old, ok := got.Item["revokedAt"]; ok {
			cond = "#rev = :old"
			values[":old"] = old
		}
		out, err := s.db.UpdateItem(ctx, &ddb.UpdateItemInput{
			TableName:                 &s.table,
			Key:                       key,
			UpdateExpression:          aws.String("SET #rev = :rev, #ttl = :ttl"),
			ConditionExpression:       aws.String(cond),
			ExpressionAttributeNames:  map[string]string{"#rev": "revokedAt", "#ttl": AttrTTL},
			ExpressionAttributeValues: values,
			ReturnValues:              types.ReturnValueAllNew,
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			continue // changed or deleted since the read: read again
		}
		if err != nil {
			return account.Key{}, s.internal("revoke key", err)
		}
		var it keyItem
		if err := it.decode(out.Attributes); err != nil {
			return account.Key{}, s.internal("decode key", err)
		}
		_, err = s.db.UpdateItem(ctx, &ddb.UpdateItemInput{
			TableName:                 &s.table,
			Key:                       itemKey(keyIDPK(id), skKeyID),
			UpdateExpression:          aws.String("SET #ttl = :ttl"),
			ConditionExpression:       aws.String("attribute_exists(pk)"),
			ExpressionAttributeNames:  map[string]string{"#ttl": AttrTTL},
			ExpressionAttributeValues: map[string]types.AttributeValue{":ttl": number(ttl)},
		})
		if err != nil && !errors.As(err, &ccf) {
			return account.Key{}, s.internal("set key id ttl", err)
		}
		return normalize.Key(it.Key), nil
	}
	return account.Key{}, s.internal("revoke key", fmt.Errorf("key changed concurrently %d times", maxTransactAttempts))
}

// CreatePolicy implements store.Store: metadata, content and the month's
// usage counter in one transaction.
func (s *Store) CreatePolicy(ctx context.Context, p store.Policy, opt store.CreateOptions) error {
	if p.ID == "" || p.AccountID == "" {
		return errs.E(errs.Internal, "invalid_policy", "policy id and account id are required")
	}
	p.Summary = normalize.Summary(p.Summary)
	gz, err := content.Compress(p.Content)
	if err != nil {
		return s.internal("compress content", err)
	}
	if len(gz) > store.MaxStoredContent {
		return store.ErrTooLarge
	}
	pk := accountPK(p.AccountID)
	sum, err := encodeSummary(p.Summary)
	if err != nil {
		return s.internal("encode policy", err)
	}
	meta := policyItem{PK: pk, SK: policySK(p.ID), Summary: sum}.attrs()
	body := contentItem{PK: pk, SK: contentSK(p.ID), Summary: sum, Content: gz}.attrs()
	if itemSize(body) > maxItemBytes || itemSize(meta) > maxItemBytes {
		return store.ErrTooLarge
	}
	notExists := aws.String("attribute_not_exists(pk)")
	usage := &types.Update{
		TableName:                &s.table,
		Key:                      itemKey(pk, usageSK(store.Month(p.CreatedAt))),
		UpdateExpression:         aws.String("ADD #count :one SET #ttl = if_not_exists(#ttl, :ttl)"),
		ExpressionAttributeNames: map[string]string{"#count": "count", "#ttl": AttrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": number(1),
			":ttl": number(*epoch(p.CreatedAt.Add(UsageRetention))),
		},
	}
	if opt.Quota > 0 {
		// The quota is the counter's own condition: exact under any
		// concurrency, and no read before the write.
		usage.ConditionExpression = aws.String("attribute_not_exists(#count) OR #count < :quota")
		usage.ExpressionAttributeValues[":quota"] = number(int64(opt.Quota))
	}
	items := []types.TransactWriteItem{
		{Put: &types.Put{TableName: &s.table, Item: meta, ConditionExpression: notExists}},
		{Put: &types.Put{TableName: &s.table, Item: body, ConditionExpression: notExists}},
		{Update: usage},
	}
	if opt.Idempotency != nil {
		u, err := s.completeUpdate(*opt.Idempotency, p.ID, p)
		if err != nil {
			return s.internal("encode idempotency record", err)
		}
		items = append(items, types.TransactWriteItem{Update: u})
	}
	reasons, err := s.transact(ctx, "create policy", items)
	switch {
	case failed(reasons, 0) || failed(reasons, 1):
		return store.ErrExists
	case failed(reasons, 2):
		return store.ErrQuotaExceeded
	case failed(reasons, 3):
		return store.ErrClaimLost
	}
	return err
}

// Policy implements store.Store: one GetItem of the content item, which
// carries the summary too.
func (s *Store) Policy(ctx context.Context, accountID, id string) (store.Policy, error) {
	out, err := s.db.GetItem(ctx, &ddb.GetItemInput{
		TableName:      &s.table,
		Key:            itemKey(accountPK(accountID), contentSK(id)),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return store.Policy{}, s.internal("get policy", err)
	}
	if _, deleted := out.Item[AttrTTL]; len(out.Item) == 0 || deleted {
		return store.Policy{}, store.ErrPolicyNotFound
	}
	p, err := decodeContent(out.Item, accountID)
	if err != nil {
		return store.Policy{}, s.internal("decode policy", err)
	}
	return p, nil
}

// decodeContent reads a content item of either layout.
func decodeContent(m map[string]types.AttributeValue, accountID string) (store.Policy, error) {
	sum, err := decodeSummary(m, accountID)
	if err != nil {
		return store.Policy{}, err
	}
	var it contentItem
	if err := it.decode(m); err != nil {
		return store.Policy{}, err
	}
	text, err := content.Decompress(it.Content)
	if err != nil {
		return store.Policy{}, err
	}
	return store.Policy{Summary: sum, Content: text}, nil
}

// ListPolicies implements store.Store: a Query of the account's partition,
// sort keys POLICY#..., descending, reading only metadata items. It asks for
// one item more than the page so that "more follow" is known without a
// second request (DynamoDB may return a LastEvaluatedKey even when nothing
// follows).
func (s *Store) ListPolicies(ctx context.Context, accountID string, opt store.ListOptions) (store.Page, error) {
	if opt.Limit < 1 || opt.Limit > store.MaxListLimit {
		return store.Page{}, errs.E(errs.Invalid, "invalid_limit", "limit must be between 1 and %d", store.MaxListLimit)
	}
	pk := accountPK(accountID)
	var start map[string]types.AttributeValue
	if opt.After != "" {
		// Built here from the caller's account: a cursor cannot move the
		// query to another partition.
		start = itemKey(pk, policySK(opt.After))
	}
	items := make([]store.Summary, 0, opt.Limit+1)
	for len(items) <= opt.Limit {
		out, err := s.db.Query(ctx, &ddb.QueryInput{
			TableName:              &s.table,
			KeyConditionExpression: aws.String("pk = :pk AND begins_with(sk, :prefix)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":pk":     &types.AttributeValueMemberS{Value: pk},
				":prefix": &types.AttributeValueMemberS{Value: skPolicyPrefix},
			},
			ScanIndexForward:  aws.Bool(false),
			Limit:             aws.Int32(int32(opt.Limit + 1 - len(items))),
			ExclusiveStartKey: start,
			ConsistentRead:    aws.Bool(true),
		})
		if err != nil {
			return store.Page{}, s.internal("list policies", err)
		}
		for _, m := range out.Items {
			sum, err := decodeSummary(m, accountID)
			if err != nil {
				return store.Page{}, s.internal("decode policy", err)
			}
			items = append(items, sum)
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		start = out.LastEvaluatedKey
	}
	page := store.Page{Items: items}
	if len(items) > opt.Limit {
		page.Items = items[:opt.Limit]
		page.Next = page.Items[opt.Limit-1].ID
	}
	return page, nil
}

// DeletePolicy implements store.Store: the metadata item (which must exist)
// is deleted, and the content item gets a TTL (DynamoDB deletes it after
// contentAfterDelete), in one transaction. A content item with a TTL is
// not found by Policy, so the policy is gone at once; the content stays
// readable to an idempotency record (at most IdempotencyTTL old) whose
// response is stored as a delta against it. The usage counter stays.
func (s *Store) DeletePolicy(ctx context.Context, accountID, id string) error {
	pk := accountPK(accountID)
	reasons, err := s.transact(ctx, "delete policy", []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName:           &s.table,
			Key:                 itemKey(pk, policySK(id)),
			ConditionExpression: aws.String("attribute_exists(pk)"),
		}},
		{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       itemKey(pk, contentSK(id)),
			UpdateExpression:          aws.String("SET #ttl = :ttl"),
			ConditionExpression:       aws.String("attribute_exists(pk)"),
			ExpressionAttributeNames:  map[string]string{"#ttl": AttrTTL},
			ExpressionAttributeValues: map[string]types.AttributeValue{":ttl": number(*epoch(time.Now().Add(contentAfterDelete)))},
		}},
	})
	if failed(reasons, 0) {
		return store.ErrPolicyNotFound
	}
	if failed(reasons, 1) {
		// A metadata item without content: cannot happen through this
		// store (they are written together); delete what there is.
		_, err := s.db.DeleteItem(ctx, &ddb.DeleteItemInput{
			TableName: &s.table, Key: itemKey(pk, policySK(id)),
			ConditionExpression: aws.String("attribute_exists(pk)"),
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return store.ErrPolicyNotFound
		}
		if err != nil {
			return s.internal("delete policy", err)
		}
		return nil
	}
	return err
}

// contentAfterDelete is how long a deleted policy's content item is kept:
// longer than an idempotency record that may refer to it lives
// (store.IdempotencyTTL), with an hour to spare.
const contentAfterDelete = store.IdempotencyTTL + time.Hour

// GenerationCount implements store.Store.
func (s *Store) GenerationCount(ctx context.Context, accountID, month string) (int, error) {
	var c countItem
	err := s.get(ctx, "get usage", itemKey(accountPK(accountID), usageSK(month)), &c, nil)
	return int(c.Count), err
}

// decoder is an item type that reads itself from its attributes (item.go).
type decoder interface {
	decode(map[string]types.AttributeValue) error
}

// get reads one item (strongly consistent) into v. A missing item is
// notFound, or leaves v untouched when notFound is nil.
func (s *Store) get(ctx context.Context, op string, key map[string]types.AttributeValue, v decoder, notFound error) error {
	out, err := s.db.GetItem(ctx, &ddb.GetItemInput{
		TableName:      &s.table,
		Key:            key,
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return s.internal(op, err)
	}
	if len(out.Item) == 0 {
		return notFound
	}
	if err := v.decode(out.Item); err != nil {
		return s.internal(op, err)
	}
	return nil
}

// maxTransactAttempts bounds retries of a transaction that lost to a
// concurrent one on the same item (usually the month's usage counter).
const maxTransactAttempts = 10

// transact runs a write transaction. When DynamoDB cancels it because a
// condition failed, it returns the per-item reasons (for the caller to map
// with failed) together with an internal error; a cancellation caused only
// by conflicts with other transactions (or throttling) is retried with
// jittered backoff.
func (s *Store) transact(ctx context.Context, op string, items []types.TransactWriteItem) ([]types.CancellationReason, error) {
	backoff := 10 * time.Millisecond
	for attempt := 1; ; attempt++ {
		_, err := s.db.TransactWriteItems(ctx, &ddb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil, nil
		}
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) {
			return nil, s.internal(op, err)
		}
		retry := false
		for _, r := range tce.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "ConditionalCheckFailed":
				return tce.CancellationReasons, s.internal(op, err)
			case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded":
				retry = true // transient: worth another try
			}
		}
		if !retry {
			return nil, s.internal(op, err)
		}
		if attempt == maxTransactAttempts {
			// Still contended or throttled after every try: come back later.
			return nil, store.Unavailable(s.internal(op, err))
		}
		sleep := backoff/2 + rand.N(backoff/2+1)
		select {
		case <-ctx.Done():
			return nil, s.internal(op, ctx.Err())
		case <-time.After(sleep):
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// failed reports whether item i of a cancelled transaction failed its
// condition.
func failed(reasons []types.CancellationReason, i int) bool {
	return i < len(reasons) && aws.ToString(reasons[i].Code) == "ConditionalCheckFailed"
}

// itemSize is the size DynamoDB counts against maxItemBytes: attribute
// names plus values, by the rules of "DynamoDB item sizes and formats"
// (docs/STORAGE.md). Numbers are over-estimated, never under.
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	n := 0
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		n = len(v.Value)
	case *types.AttributeValueMemberN:
		n = len(v.Value)/2 + 2 // one byte per two digits, plus one
	case *types.AttributeValueMemberB:
		n = len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		n = 1
	case *types.AttributeValueMemberSS:
		for _, e := range v.Value {
			n += len(e)
		}
	case *types.AttributeValueMemberNS:
		for _, e := range v.Value {
			n += len(e)/2 + 2
		}
	case *types.AttributeValueMemberBS:
		for _, e := range v.Value {
			n += len(e)
		}
	case *types.AttributeValueMemberL:
		n = 3 // list overhead, plus one byte per element
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
	case *types.AttributeValueMemberM:
		n = 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
	}
	return n
}

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func epoch(t time.Time) *int64 {
	n := t.Unix()
	return &n
}
