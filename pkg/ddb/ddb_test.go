package ddb_test

import (
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/awsfault"
	"github.com/policygen/policygen/pkg/awsjson"
	"github.com/policygen/policygen/pkg/ddb"
)

var testCreds = credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")

// recorder answers every call with answer (status, body) and keeps what
// it was sent.
type recorder struct {
	mu      sync.Mutex
	targets []string
	bodies  []map[string]any
	headers []http.Header
	answer  func(n int) (int, string)
	badCRC  bool
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	raw, _ := io.ReadAll(req.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.targets = append(r.targets, req.Header.Get("X-Amz-Target"))
	r.bodies = append(r.bodies, body)
	r.headers = append(r.headers, req.Header.Clone())
	n := len(r.bodies)
	r.mu.Unlock()
	status, out := http.StatusOK, "{}"
	if r.answer != nil {
		status, out = r.answer(n)
	}
	sum := crc32.ChecksumIEEE([]byte(out))
	if r.badCRC {
		sum++
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(sum), 10))
	w.WriteHeader(status)
	io.WriteString(w, out)
}

func serve(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func newClient(t *testing.T, r *recorder) *ddb.Client {
	return ddb.New(aws.Config{Region: "eu-west-1", Credentials: testCreds}, serve(t, r))
}

func sdkClient(t *testing.T, r *recorder) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{Region: "eu-west-1", Credentials: testCreds, BaseEndpoint: aws.String(serve(t, r)), RetryMaxAttempts: 1})
}

// everyType is an item with each kind of attribute value, empty ones
// included, nested in a map and a list.
func everyType() map[string]types.AttributeValue {
	leaf := map[string]types.AttributeValue{
		"s":      &types.AttributeValueMemberS{Value: "héllo \"q\" <b>\n"},
		"empty":  &types.AttributeValueMemberS{Value: ""},
		"n":      &types.AttributeValueMemberN{Value: "-12.5e3"},
		"b":      &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 255}},
		"bEmpty": &types.AttributeValueMemberB{Value: []byte{}},
		"t":      &types.AttributeValueMemberBOOL{Value: true},
		"f":      &types.AttributeValueMemberBOOL{Value: false},
		"null":   &types.AttributeValueMemberNULL{Value: true},
		"ss":     &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns":     &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs":     &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"mEmpty": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"lEmpty": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
	}
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "ACCOUNT#a"},
		"sk": &types.AttributeValueMemberS{Value: "POLICY#p"},
		"m":  &types.AttributeValueMemberM{Value: leaf},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: leaf}, &types.AttributeValueMemberS{Value: "x"}}},
	}
	for k, v := range leaf {
		item[k] = v
	}
	return item
}

// TestRequestsAreTheSDKs: for each operation, the request pkg/ddb sends
// is the one the SDK's own client sends for the same input: the same
// X-Amz-Target and, as JSON, the same body.
func TestRequestsAreTheSDKs(t *testing.T) {
	item := everyType()
	key := map[string]types.AttributeValue{"pk": item["pk"], "sk": item["sk"]}
	table := aws.String("policygen-test")
	names := map[string]string{"#c": "count"}
	values := map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}, ":m": item["m"]}
	ctx := t.Context()
	cases := []struct {
		name string
		ours func(*ddb.Client) error
		sdks func(*dynamodb.Client) error
	}{
		{"GetItem", func(c *ddb.Client) error {
			_, err := c.GetItem(ctx, &ddb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("#c"), ExpressionAttributeNames: names})
			return err
		}, func(c *dynamodb.Client) error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("#c"), ExpressionAttributeNames: names})
			return err
		}},
		{"PutItem", func(c *ddb.Client) error {
			_, err := c.PutItem(ctx, &ddb.PutItemInput{TableName: table, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			return err
		}, func(c *dynamodb.Client) error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			return err
		}},
		{"UpdateItem", func(c *ddb.Client) error {
			_, err := c.UpdateItem(ctx, &ddb.UpdateItemInput{TableName: table, Key: key, UpdateExpression: aws.String("ADD #c :one SET m = :m"),
				ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValues: types.ReturnValueAllNew})
			return err
		}, func(c *dynamodb.Client) error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: table, Key: key, UpdateExpression: aws.String("ADD #c :one SET m = :m"),
				ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValues: types.ReturnValueAllNew})
			return err
		}},
		{"DeleteItem", func(c *ddb.Client) error {
			_, err := c.DeleteItem(ctx, &ddb.DeleteItemInput{TableName: table, Key: key, ConditionExpression: aws.String("#c = :one"), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
			return err
		}, func(c *dynamodb.Client) error {
			_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: key, ConditionExpression: aws.String("#c = :one"), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
			return err
		}},
		{"Query", func(c *ddb.Client) error {
			_, err := c.Query(ctx, &ddb.QueryInput{TableName: table, KeyConditionExpression: aws.String("pk = :one"), ExpressionAttributeValues: values,
				ExclusiveStartKey: key, Limit: aws.Int32(21), ScanIndexForward: aws.Bool(false), ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("pk, sk")})
			return err
		}, func(c *dynamodb.Client) error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: table, KeyConditionExpression: aws.String("pk = :one"), ExpressionAttributeValues: values,
				ExclusiveStartKey: key, Limit: aws.Int32(21), ScanIndexForward: aws.Bool(false), ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("pk, sk")})
			return err
		}},
	}
	tx := []types.TransactWriteItem{
		{Put: &types.Put{TableName: table, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
		{Update: &types.Update{TableName: table, Key: key, UpdateExpression: aws.String("ADD #c :one"), ConditionExpression: aws.String("#c < :one"),
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		{Delete: &types.Delete{TableName: table, Key: key}},
		{ConditionCheck: &types.ConditionCheck{TableName: table, Key: key, ConditionExpression: aws.String("attribute_exists(pk)")}},
	}
	cases = append(cases, struct {
		name string
		ours func(*ddb.Client) error
		sdks func(*dynamodb.Client) error
	}{"TransactWriteItems", func(c *ddb.Client) error {
		_, err := c.TransactWriteItems(ctx, &ddb.TransactWriteItemsInput{TransactItems: tx, ClientRequestToken: aws.String("tok-1")})
		return err
	}, func(c *dynamodb.Client) error {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx, ClientRequestToken: aws.String("tok-1")})
		return err
	}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ours, sdks := &recorder{}, &recorder{}
			if err := c.ours(newClient(t, ours)); err != nil {
				t.Fatalf("ddb: %v", err)
			}
			if err := c.sdks(sdkClient(t, sdks)); err != nil {
				t.Fatalf("SDK: %v", err)
			}
			if len(ours.bodies) != 1 || len(sdks.bodies) != 1 {
				t.Fatalf("%d and %d requests, want 1 each", len(ours.bodies), len(sdks.bodies))
			}
			if ours.targets[0] != sdks.targets[0] || ours.targets[0] != "DynamoDB_20120810."+c.name {
				t.Errorf("X-Amz-Target %q, SDK %q", ours.targets[0], sdks.targets[0])
			}
			if g, w := ours.headers[0].Get("Content-Type"), sdks.headers[0].Get("Content-Type"); g != w {
				t.Errorf("Content-Type %q, SDK %q", g, w)
			}
			if ua := ours.headers[0].Get("User-Agent"); ua != awsjson.UserAgent {
				t.Errorf("User-Agent %q", ua)
			}
			if a := ours.headers[0].Get("Authorization"); !strings.Contains(a, "/eu-west-1/dynamodb/aws4_request") {
				t.Errorf("Authorization %q is not a SigV4 signature for dynamodb in eu-west-1", a)
			}
			if !reflect.DeepEqual(ours.bodies[0], sdks.bodies[0]) {
				g, _ := json.MarshalIndent(ours.bodies[0], "", " ")
				w, _ := json.MarshalIndent(sdks.bodies[0], "", " ")
				t.Errorf("body differs from the SDK's\nddb: %s\nSDK: %s", g, w)
			}
		})
	}
}

// TestAnswersReadAsTheSDKReadsThem: the SDK's client and pkg/ddb decode
// the same answers to the same values.
func TestAnswersReadAsTheSDKReadsThem(t *testing.T) {
	item := everyType()
	wire, err := json.Marshal(ddb.Item(item))
	if err != nil {
		t.Fatal(err)
	}
	answer := func(int) (int, string) {
		return http.StatusOK, `{"Item":` + string(wire) + `,"Attributes":` + string(wire) + `,"Items":[` + string(wire) + `,{"pk":{"S":"x"}}],"Count":2,"LastEvaluatedKey":{"pk":{"S":"x"},"sk":{"S":"y"}}}`
	}
	ctx := t.Context()
	c, s := newClient(t, &recorder{answer: answer}), sdkClient(t, &recorder{answer: answer})
	key := map[string]types.AttributeValue{"pk": item["pk"], "sk": item["sk"]}

	got, err := c.GetItem(ctx, &ddb.GetItemInput{TableName: aws.String("t"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("t"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(map[string]types.AttributeValue(got.Item), want.Item) || !reflect.DeepEqual(want.Item, item) {
		t.Errorf("GetItem item\nddb: %#v\nSDK: %#v", got.Item, want.Item)
	}
	q, err := c.Query(ctx, &ddb.QueryInput{TableName: aws.String("t")})
	if err != nil {
		t.Fatal(err)
	}
	sq, err := s.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("t")})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Items) != 2 || q.Count != sq.Count || !reflect.DeepEqual(map[string]types.AttributeValue(q.Items[0]), sq.Items[0]) ||
		!reflect.DeepEqual(map[string]types.AttributeValue(q.LastEvaluatedKey), sq.LastEvaluatedKey) {
		t.Errorf("Query: %d items, count %d, last %v; SDK %d, %d, %v", len(q.Items), q.Count, q.LastEvaluatedKey, len(sq.Items), sq.Count, sq.LastEvaluatedKey)
	}
	u, err := c.UpdateItem(ctx, &ddb.UpdateItemInput{TableName: aws.String("t"), Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(map[string]types.AttributeValue(u.Attributes), item) {
		t.Errorf("UpdateItem attributes %#v", u.Attributes)
	}
}

// TestTypedErrors: the errors the store tells apart come back as the
// SDK's types with what they carry, and keep their HTTP status.
func TestTypedErrors(t *testing.T) {
	ctx := t.Context()
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "p"}}
	ans := func(code, extra string) *recorder {
		return &recorder{answer: func(int) (int, string) {
			return http.StatusBadRequest, `{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `","message":"m"` + extra + `}`
		}}
	}

	r := ans("ConditionalCheckFailedException", `,"Item":{"pk":{"S":"p"},"count":{"N":"7"}}`)
	_, err := newClient(t, r).PutItem(ctx, &ddb.PutItemInput{TableName: aws.String("t"), Item: key})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Fatalf("err = %v, want ConditionalCheckFailedException", err)
	}
	if n, _ := ccf.Item["count"].(*types.AttributeValueMemberN); n == nil || n.Value != "7" {
		t.Errorf("item %#v, want the old item's count 7", ccf.Item)
	}
	var ae *awsjson.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
		t.Errorf("status not reachable: %v", err)
	}
	if len(r.bodies) != 1 {
		t.Errorf("%d attempts, want 1: a failed condition is final", len(r.bodies))
	}

	r = ans("TransactionCanceledException", `,"CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed","Message":"c","Item":{"pk":{"S":"p"}}},{"Code":"TransactionConflict"}]`)
	_, err = newClient(t, r).TransactWriteItems(ctx, &ddb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Delete: &types.Delete{TableName: aws.String("t"), Key: key}}}})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("err = %v, want TransactionCanceledException", err)
	}
	if len(tce.CancellationReasons) != 3 || aws.ToString(tce.CancellationReasons[1].Code) != "ConditionalCheckFailed" ||
		aws.ToString(tce.CancellationReasons[2].Code) != "TransactionConflict" || tce.CancellationReasons[1].Item == nil {
		t.Errorf("reasons %+v", tce.CancellationReasons)
	}

	r = ans("ValidationException", "")
	_, err = newClient(t, r).GetItem(ctx, &ddb.GetItemInput{TableName: aws.String("t"), Key: key})
	if !errors.As(err, &ae) || ae.Code != "ValidationException" || ae.Message != "m" {
		t.Errorf("err = %v, want ValidationException with its message", err)
	}
	if len(r.bodies) != 1 {
		t.Errorf("%d attempts, want 1: a bad request is not retried", len(r.bodies))
	}
	var rnf *types.ResourceNotFoundException
	if _, err = newClient(t, ans("ResourceNotFoundException", "")).GetItem(ctx, &ddb.GetItemInput{TableName: aws.String("t"), Key: key}); !errors.As(err, &rnf) {
		t.Errorf("err = %v, want ResourceNotFoundException", err)
	}
}

// TestRetries: a throttle, a 5xx and an answer whose body fails its
// x-amz-crc32 are tried again, up to MaxAttempts in all.
func TestRetries(t *testing.T) {
	ctx := t.Context()
	in := &ddb.GetItemInput{TableName: aws.String("t"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "p"}}}
	for _, c := range []struct {
		name     string
		r        *recorder
		attempts int
		ok       bool
	}{
		{"throttled then served", &recorder{answer: func(n int) (int, string) {
			if n == 1 {
				return http.StatusBadRequest, `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}`
			}
			return http.StatusOK, `{"Item":{"pk":{"S":"p"}}}`
		}}, 2, true},
		{"5xx every time", &recorder{answer: func(int) (int, string) {
			return http.StatusInternalServerError, `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"oops"}`
		}}, ddb.MaxAttempts, false},
		{"damaged answers", &recorder{badCRC: true, answer: func(int) (int, string) { return http.StatusOK, `{"Item":{"pk":{"S":"p"}}}` }}, ddb.MaxAttempts, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := newClient(t, c.r).GetItem(ctx, in)
			if len(c.r.bodies) != c.attempts {
				t.Errorf("%d attempts, want %d", len(c.r.bodies), c.attempts)
			}
			if c.ok && (err != nil || out.Item["pk"] == nil) {
				t.Errorf("GetItem: %v, %v", out, err)
			}
			if !c.ok && (err == nil || !awsfault.Transient(err)) {
				t.Errorf("err = %v, want a transient failure", err)
			}
		})
	}
	var ce *awsjson.ChecksumError
	if _, err := newClient(t, &recorder{badCRC: true}).GetItem(ctx, in); !errors.As(err, &ce) {
		t.Errorf("err = %v, want a ChecksumError", err)
	}
}

// TestNewSettings: the client's endpoint, and the HTTP timeouts the store
// relies on (docs/STORAGE.md).
func TestNewSettings(t *testing.T) {
	for region, want := range map[string]string{"eu-west-1": "https://dynamodb.eu-west-1.amazonaws.com", "cn-north-1": "https://dynamodb.cn-north-1.amazonaws.com.cn"} {
		if got := ddb.New(aws.Config{Region: region}, "").Endpoint(); got != want {
			t.Errorf("endpoint for %s = %q, want %q", region, got, want)
		}
	}
	if got := ddb.New(aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String("http://127.0.0.1:8000/")}, "").Endpoint(); got != "http://127.0.0.1:8000" {
		t.Errorf("endpoint from BaseEndpoint = %q", got)
	}
	if got := ddb.New(aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String("http://a")}, "http://b").Endpoint(); got != "http://b" {
		t.Errorf("the service's endpoint does not win over BaseEndpoint: %q", got)
	}
	hc := ddb.New(aws.Config{Region: "eu-west-1"}, "").HTTPClient()
	if hc.Timeout != ddb.AttemptTimeout {
		t.Errorf("attempt timeout %v, want %v", hc.Timeout, ddb.AttemptTimeout)
	}
	tr, ok := hc.Transport.(*http.Transport)
	if !ok {
		t.Fatalf("transport %T", hc.Transport)
	}
	if tr.TLSHandshakeTimeout != ddb.AttemptTimeout || tr.ResponseHeaderTimeout != ddb.AttemptTimeout || tr.DialContext == nil {
		t.Errorf("TLS handshake %v, response header %v, dialer set %v", tr.TLSHandshakeTimeout, tr.ResponseHeaderTimeout, tr.DialContext != nil)
	}
}

// TestUnknownValueTypeIsAnError: a value DynamoDB has no type for is
// refused before anything is sent, not sent as NULL.
func TestUnknownValueTypeIsAnError(t *testing.T) {
	r := &recorder{}
	_, err := newClient(t, r).PutItem(t.Context(), &ddb.PutItemInput{TableName: aws.String("t"), Item: map[string]types.AttributeValue{"x": nil}})
	if err == nil || !strings.Contains(err.Error(), `attribute "x"`) {
		t.Errorf("err = %v, want one naming attribute x", err)
	}
	if len(r.bodies) != 0 {
		t.Errorf("%d requests sent", len(r.bodies))
	}
}

// TestTransactionsCarryOneTokenAcrossRetries: a transaction without a
// ClientRequestToken gets one, the same on every attempt of the call (so
// DynamoDB applies it once even when an attempt's answer is lost), a new
// one on the next call, and a caller's own token is sent as given.
func TestTransactionsCarryOneTokenAcrossRetries(t *testing.T) {
	ctx := t.Context()
	r := &recorder{answer: func(n int) (int, string) {
		if n == 1 {
			return http.StatusInternalServerError, `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"lost"}`
		}
		return http.StatusOK, `{}`
	}}
	c := newClient(t, r)
	in := &ddb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Delete: &types.Delete{TableName: aws.String("t"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "p"}}}}}}
	if _, err := c.TransactWriteItems(ctx, in); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TransactWriteItems(ctx, in); err != nil {
		t.Fatal(err)
	}
	if in.ClientRequestToken != nil {
		t.Error("the caller's input was changed")
	}
	if _, err := c.TransactWriteItems(ctx, &ddb.TransactWriteItemsInput{TransactItems: in.TransactItems, ClientRequestToken: aws.String("mine")}); err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for _, b := range r.bodies {
		tok, _ := b["ClientRequestToken"].(string)
		tokens = append(tokens, tok)
	}
	if len(tokens) != 4 || tokens[0] == "" || len(tokens[0]) > 36 || tokens[1] != tokens[0] || tokens[2] == tokens[0] || tokens[2] == "" || tokens[3] != "mine" {
		t.Errorf("tokens %q: want one token for both attempts of the first call, another for the second, then the caller's", tokens)
	}
}
