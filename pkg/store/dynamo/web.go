package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/ddb"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/internal/normalize"
)

// Dashboard users and sessions, each its own partition: a user is found by
// email at sign-in, a session by its token's hash on every page, before the
// account is known.
const (
	skUser    = "USER"
	skSession = "SESSION"
)

func userPK(email string) string   { return "USER#" + email }
func sessionPK(hash string) string { return "SESSION#" + hash }

type userItem struct {
	PK string `json:"pk"`
	SK string `json:"sk"`
	account.User
}

type sessionItem struct {
	PK string `json:"pk"`
	SK string `json:"sk"`
	account.Session
	TTL int64 `json:"ttl"`
}

// TouchKey implements store.Store: one conditional UpdateItem, which does
// nothing (and fails its condition, ignored) when a later use is recorded.
func (s *Store) TouchKey(ctx context.Context, hash string, at time.Time) error {
	_, err := s.db.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      itemKey(keyPK(hash), skKey),
		UpdateExpression:         aws.String("SET #used = :at"),
		ConditionExpression:      aws.String("attribute_exists(pk) AND (attribute_not_exists(#used) OR #used < :at)"),
		ExpressionAttributeNames: map[string]string{"#used": "lastUsedAt"},
		// RFC 3339 in UTC, whole seconds: a fixed width, so the string
		// comparison is the time comparison.
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":at": &types.AttributeValueMemberS{Value: at.UTC().Truncate(time.Second).Format(time.RFC3339)},
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		if len(ccf.Item) == 0 {
			return store.ErrKeyNotFound
		}
		return nil
	}
	if err != nil {
		return s.internal("touch key", err)
	}
	return nil
}

// CreateUser implements store.Store: the user item conditional on the email
// being new, with the new account's writes when a is set, in one
// transaction; otherwise with a check that the account exists.
func (s *Store) CreateUser(ctx context.Context, u account.User, a *account.Account) error {
	u = normalize.User(u)
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName: &s.table, Item: userItem{PK: userPK(u.Email), SK: skUser, User: u}.attrs(), ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}}}
	if a != nil {
		items = append(items, s.accountWrites(*a)...)
	} else {
		items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName:           &s.table,
			Key:                 itemKey(accountPK(u.AccountID), skAccount),
			ConditionExpression: aws.String("attribute_exists(pk)"),
		}})
	}
	reasons, err := s.transact(ctx, "create user", items)
	switch {
	case failed(reasons, 0):
		return store.ErrEmailTaken
	case failed(reasons, 1) && a != nil:
		return store.ErrExists
	case failed(reasons, 1):
		return store.ErrAccountNotFound
	}
	return err
}

// User implements store.Store: one GetItem.
func (s *Store) User(ctx context.Context, email string) (account.User, error) {
	var it userItem
	if err := s.get(ctx, "get user", itemKey(userPK(email), skUser), &it, store.ErrUserNotFound); err != nil {
		return account.User{}, err
	}
	return normalize.User(it.User), nil
}

// SetPassword implements store.Store: one conditional UpdateItem.
func (s *Store) SetPassword(ctx context.Context, email, passwordHash string) error {
	_, err := s.db.UpdateItem(ctx, &ddb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       itemKey(userPK(email), skUser),
		UpdateExpression:          aws.String("SET #h = :h"),
		ConditionExpression:       aws.String("attribute_exists(pk)"),
		ExpressionAttributeNames:  map[string]string{"#h": "passwordHash"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":h": &types.AttributeValueMemberS{Value: passwordHash}},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return store.ErrUserNotFound
	}
	if err != nil {
		return s.internal("set password", err)
	}
	return nil
}

// CreateSession implements store.Store: one conditional PutItem whose TTL is
// the expiry, so DynamoDB deletes sessions nobody signs out of.
func (s *Store) CreateSession(ctx context.Context, sess account.Session) error {
	sess = normalize.Session(sess)
	item := sessionItem{PK: sessionPK(sess.Hash), SK: skSession, Session: sess, TTL: sess.ExpiresAt.Unix()}.attrs()
	_, err := s.db.PutItem(ctx, &ddb.PutItemInput{
		TableName: &s.table, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return store.ErrExists
	}
	if err != nil {
		return s.internal("create session", err)
	}
	return nil
}

// Session implements store.Store: one GetItem. DynamoDB's TTL sweep may lag
// expiry by days, so the caller's Valid check is what ends a session.
func (s *Store) Session(ctx context.Context, hash string) (account.Session, error) {
	var it sessionItem
	if err := s.get(ctx, "get session", itemKey(sessionPK(hash), skSession), &it, store.ErrSessionNotFound); err != nil {
		return account.Session{}, err
	}
	return normalize.Session(it.Session), nil
}

// DeleteSession implements store.Store: one DeleteItem.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	_, err := s.db.DeleteItem(ctx, &ddb.DeleteItemInput{TableName: &s.table, Key: itemKey(sessionPK(hash), skSession)})
	if err != nil {
		return s.internal("delete session", err)
	}
	return nil
}
