package ddb

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyrand "github.com/aws/smithy-go/rand"
)

// UnmarshalJSON implements json.Unmarshaler.
func (m *Item) UnmarshalJSON(b []byte) error {
	var w map[string]AV
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = fromWireMap(w)
	return nil
}

// The operations' inputs and outputs carry the members of the SDK's that
// Policygen uses, under the same names and types; DynamoDB's API
// reference defines each.

// GetItemInput is GetItem's request.
type GetItemInput struct {
	TableName                *string
	Key                      Item
	ConsistentRead           *bool             `json:",omitempty"`
	ProjectionExpression     *string           `json:",omitempty"`
	ExpressionAttributeNames map[string]string `json:",omitempty"`
}

// GetItemOutput is GetItem's answer: Item is empty when there is none.
type GetItemOutput struct{ Item Item }

// PutItemInput is PutItem's request.
type PutItemInput struct {
	TableName                           *string
	Item                                Item
	ConditionExpression                 *string                                   `json:",omitempty"`
	ExpressionAttributeNames            map[string]string                         `json:",omitempty"`
	ExpressionAttributeValues           Item                                      `json:",omitempty"`
	ReturnValues                        types.ReturnValue                         `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure types.ReturnValuesOnConditionCheckFailure `json:",omitempty"`
}

// PutItemOutput is PutItem's answer.
type PutItemOutput struct{ Attributes Item }

// UpdateItemInput is UpdateItem's request.
type UpdateItemInput struct {
	TableName                           *string
	Key                                 Item
	UpdateExpression                    *string                                   `json:",omitempty"`
	ConditionExpression                 *string                                   `json:",omitempty"`
	ExpressionAttributeNames            map[string]string                         `json:",omitempty"`
	ExpressionAttributeValues           Item                                      `json:",omitempty"`
	ReturnValues                        types.ReturnValue                         `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure types.ReturnValuesOnConditionCheckFailure `json:",omitempty"`
}

// UpdateItemOutput is UpdateItem's answer.
type UpdateItemOutput struct{ Attributes Item }

// DeleteItemInput is DeleteItem's request.
type DeleteItemInput struct {
	TableName                           *string
	Key                                 Item
	ConditionExpression                 *string                                   `json:",omitempty"`
	ExpressionAttributeNames            map[string]string                         `json:",omitempty"`
	ExpressionAttributeValues           Item                                      `json:",omitempty"`
	ReturnValues                        types.ReturnValue                         `json:",omitempty"`
	ReturnValuesOnConditionCheckFailure types.ReturnValuesOnConditionCheckFailure `json:",omitempty"`
}

// DeleteItemOutput is DeleteItem's answer.
type DeleteItemOutput struct{ Attributes Item }

// QueryInput is Query's request.
type QueryInput struct {
	TableName                 *string
	IndexName                 *string           `json:",omitempty"`
	KeyConditionExpression    *string           `json:",omitempty"`
	FilterExpression          *string           `json:",omitempty"`
	ProjectionExpression      *string           `json:",omitempty"`
	ExpressionAttributeNames  map[string]string `json:",omitempty"`
	ExpressionAttributeValues Item              `json:",omitempty"`
	ExclusiveStartKey         Item              `json:",omitempty"`
	Limit                     *int32            `json:",omitempty"`
	ScanIndexForward          *bool             `json:",omitempty"`
	ConsistentRead            *bool             `json:",omitempty"`
}

// QueryOutput is Query's answer.
type QueryOutput struct {
	Items            []Item
	LastEvaluatedKey Item
	Count            int32
}

// TransactWriteItemsInput is TransactWriteItems' request.
type TransactWriteItemsInput struct {
	TransactItems      []types.TransactWriteItem
	ClientRequestToken *string
}

// TransactWriteItemsOutput is TransactWriteItems' answer.
type TransactWriteItemsOutput struct{}

// MarshalJSON implements json.Marshaler: the SDK's transaction items in
// the protocol's form. A Put, Update, Delete or ConditionCheck has the
// members of the operation of its name (less ReturnValues, left empty and
// so not sent), so each is written as that operation's input.
func (in TransactWriteItemsInput) MarshalJSON() ([]byte, error) {
	type item struct {
		ConditionCheck *DeleteItemInput `json:",omitempty"`
		Put            *PutItemInput    `json:",omitempty"`
		Delete         *DeleteItemInput `json:",omitempty"`
		Update         *UpdateItemInput `json:",omitempty"`
	}
	items := make([]item, len(in.TransactItems))
	for i, t := range in.TransactItems {
		if c := t.ConditionCheck; c != nil {
			items[i].ConditionCheck = &DeleteItemInput{TableName: c.TableName, Key: c.Key, ConditionExpression: c.ConditionExpression,
				ExpressionAttributeNames: c.ExpressionAttributeNames, ExpressionAttributeValues: c.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: c.ReturnValuesOnConditionCheckFailure}
		}
		if p := t.Put; p != nil {
			items[i].Put = &PutItemInput{TableName: p.TableName, Item: p.Item, ConditionExpression: p.ConditionExpression,
				ExpressionAttributeNames: p.ExpressionAttributeNames, ExpressionAttributeValues: p.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: p.ReturnValuesOnConditionCheckFailure}
		}
		if d := t.Delete; d != nil {
			items[i].Delete = &DeleteItemInput{TableName: d.TableName, Key: d.Key, ConditionExpression: d.ConditionExpression,
				ExpressionAttributeNames: d.ExpressionAttributeNames, ExpressionAttributeValues: d.ExpressionAttributeValues,
				ReturnValuesOnConditionCheckFailure: d.ReturnValuesOnConditionCheckFailure}
		}
		if u := t.Update; u != nil {
			items[i].Update = &UpdateItemInput{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
				ConditionExpression: u.ConditionExpression, ExpressionAttributeNames: u.ExpressionAttributeNames,
				ExpressionAttributeValues: u.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: u.ReturnValuesOnConditionCheckFailure}
		}
	}
	return json.Marshal(struct {
		TransactItems      []item
		ClientRequestToken *string `json:",omitempty"`
	}{items, in.ClientRequestToken})
}

// operation makes op with in and decodes its answer as an O: nil and the
// error when it fails, as the SDK's operations return.
func operation[O any](ctx context.Context, c *Client, op string, in any) (*O, error) {
	out := new(O)
	if err := c.Do(ctx, op, in, out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetItem reads one item.
func (c *Client) GetItem(ctx context.Context, in *GetItemInput) (*GetItemOutput, error) {
	return operation[GetItemOutput](ctx, c, "GetItem", in)
}

// PutItem writes one item.
func (c *Client) PutItem(ctx context.Context, in *PutItemInput) (*PutItemOutput, error) {
	return operation[PutItemOutput](ctx, c, "PutItem", in)
}

// UpdateItem changes one item.
func (c *Client) UpdateItem(ctx context.Context, in *UpdateItemInput) (*UpdateItemOutput, error) {
	return operation[UpdateItemOutput](ctx, c, "UpdateItem", in)
}

// DeleteItem deletes one item.
func (c *Client) DeleteItem(ctx context.Context, in *DeleteItemInput) (*DeleteItemOutput, error) {
	return operation[DeleteItemOutput](ctx, c, "DeleteItem", in)
}

// Query reads one page of a partition's items.
func (c *Client) Query(ctx context.Context, in *QueryInput) (*QueryOutput, error) {
	return operation[QueryOutput](ctx, c, "Query", in)
}

// TransactWriteItems writes up to 100 items all or none. Without a
// ClientRequestToken it gets a random one, as the SDK's client fills it in:
// the retries of one call send the same token, so a transaction that was
// applied but whose answer was lost (an attempt timed out) is not applied
// again, where a second try would fail its own conditions
// (attribute_not_exists) and report as existing what it has just written.
func (c *Client) TransactWriteItems(ctx context.Context, in *TransactWriteItemsInput) (*TransactWriteItemsOutput, error) {
	if in.ClientRequestToken == nil {
		token, err := smithyrand.NewUUID(rand.Reader).GetUUID()
		if err != nil {
			return nil, fmt.Errorf("dynamodb TransactWriteItems: client request token: %w", err)
		}
		withToken := *in
		withToken.ClientRequestToken = &token
		in = &withToken
	}
	return operation[TransactWriteItemsOutput](ctx, c, "TransactWriteItems", in)
}
