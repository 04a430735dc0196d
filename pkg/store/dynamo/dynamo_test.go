package dynamo_test

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/backend"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
	"github.com/policygen/policygen/pkg/store/storetest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		client, table := dynamotest.Table(t)
		return dynamo.New(client, table)
	})
}

func TestCreateTableIsIdempotentAndEnablesTTL(t *testing.T) {
	client, table := dynamotest.Table(t) // created once already
	if err := dynamo.CreateTable(t.Context(), client, table); err != nil {
		t.Fatalf("second CreateTable: %v", err)
	}
	sdk := dynamotest.SDKClient(t)
	d, err := sdk.DescribeTable(t.Context(), &dynamodb.DescribeTableInput{TableName: &table})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]types.KeyType{}
	for _, k := range d.Table.KeySchema {
		keys[aws.ToString(k.AttributeName)] = k.KeyType
	}
	if keys["pk"] != types.KeyTypeHash || keys["sk"] != types.KeyTypeRange || len(keys) != 2 {
		t.Errorf("key schema %v, want pk HASH, sk RANGE", keys)
	}
	if d.Table.BillingModeSummary == nil || d.Table.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("billing mode %+v, want PAY_PER_REQUEST", d.Table.BillingModeSummary)
	}
	ttl, err := sdk.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: &table})
	if err != nil {
		t.Fatal(err)
	}
	if ttl.TimeToLiveDescription == nil || aws.ToString(ttl.TimeToLiveDescription.AttributeName) != "ttl" ||
		ttl.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		t.Errorf("TTL %+v, want enabled on ttl", ttl.TimeToLiveDescription)
	}
}

// TestItemLayout checks what lands in the table: the layout documented in
// docs/STORAGE.md, TTLs included.
func TestItemLayout(t *testing.T) {
	client, table := dynamotest.Table(t)
	st := dynamo.New(client, table)
	ctx := t.Context()
	// Real time: DynamoDB Local deletes items whose TTL has passed.
	now := time.Now().UTC().Truncate(time.Second)
	a := account.Account{ID: ids.New(ids.Account), Email: "a@example.com", Plan: account.Agency, CreatedAt: now}
	if err := st.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	k := account.Key{ID: ids.New(ids.Key), AccountID: a.ID, Hash: "ab12", Prefix: "pol_live_", Last4: "wxyz", CreatedAt: now}
	if err := st.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	revoked := now.Add(time.Hour)
	if _, err := st.RevokeKey(ctx, k.ID, revoked); err != nil {
		t.Fatal(err)
	}
	p := store.Policy{Summary: store.Summary{ID: ids.NewAt(ids.Policy, now), AccountID: a.ID, CreatedAt: now}, Content: "# Policy\n"}
	if err := st.CreatePolicy(ctx, p, store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	get := func(pk, sk string) map[string]types.AttributeValue {
		t.Helper()
		out, err := dynamotest.SDKClient(t).GetItem(ctx, &dynamodb.GetItemInput{
			TableName: &table,
			Key: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: pk},
				"sk": &types.AttributeValueMemberS{Value: sk},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if out.Item == nil {
			t.Fatalf("no item %s / %s", pk, sk)
		}
		return out.Item
	}
	num := func(item map[string]types.AttributeValue, name string) int64 {
		t.Helper()
		n, ok := item[name].(*types.AttributeValueMemberN)
		if !ok {
			t.Fatalf("attribute %s = %#v, want a number", name, item[name])
		}
		v, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	get("ACCOUNT#"+a.ID, "ACCOUNT")
	wantTTL := revoked.Add(dynamo.RevokedKeyRetention).Unix()
	if got := num(get("KEY#ab12", "KEY"), "ttl"); got != wantTTL {
		t.Errorf("revoked key ttl = %d, want %d", got, wantTTL)
	}
	if got := num(get("KEYID#"+k.ID, "KEYID"), "ttl"); got != wantTTL {
		t.Errorf("revoked key id pointer ttl = %d, want %d", got, wantTTL)
	}
	// A key with an expiry ages out 90 days after it; revoking it earlier
	// brings that forward to 90 days after the revocation, on the record
	// and the pointer alike (the earlier of the two always wins).
	exp := now.Add(30 * 24 * time.Hour)
	k2 := account.Key{ID: ids.New(ids.Key), AccountID: a.ID, Hash: "cd34", Prefix: "pol_live_", Last4: "abcd", CreatedAt: now, ExpiresAt: &exp}
	if err := st.CreateKey(ctx, k2); err != nil {
		t.Fatal(err)
	}
	expTTL := exp.Add(dynamo.RevokedKeyRetention).Unix()
	if got := num(get("KEY#cd34", "KEY"), "ttl"); got != expTTL {
		t.Errorf("expiring key ttl = %d, want %d", got, expTTL)
	}
	if _, err := st.RevokeKey(ctx, k2.ID, now.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	revTTL := now.Add(2 * time.Hour).Add(dynamo.RevokedKeyRetention).Unix()
	if got := num(get("KEY#cd34", "KEY"), "ttl"); got != revTTL {
		t.Errorf("expiring key ttl after revoke = %d, want %d", got, revTTL)
	}
	if got := num(get("KEYID#"+k2.ID, "KEYID"), "ttl"); got != revTTL {
		t.Errorf("expiring key pointer ttl after revoke = %d, want %d", got, revTTL)
	}

	meta := get("ACCOUNT#"+a.ID, "POLICY#"+p.ID)
	if _, ok := meta["content"]; ok {
		t.Error("the policy metadata item carries the content: lists would read it")
	}
	content := get("ACCOUNT#"+a.ID, "CONTENT#"+p.ID)
	if _, ok := content["content"].(*types.AttributeValueMemberB); !ok {
		t.Errorf("content attribute = %#v, want binary (gzip)", content["content"])
	}
	usage := get("ACCOUNT#"+a.ID, "USAGE#"+store.Month(now))
	if got := num(usage, "count"); got != 1 {
		t.Errorf("usage count = %d, want 1", got)
	}
	if got, want := num(usage, "ttl"), now.Add(dynamo.UsageRetention).Unix(); got != want {
		t.Errorf("usage ttl = %d, want %d", got, want)
	}
	for _, item := range []map[string]types.AttributeValue{get("ACCOUNT#"+a.ID, "ACCOUNT"), meta, content} {
		if _, ok := item["ttl"]; ok {
			t.Errorf("item %v has a ttl: it would expire", item["sk"])
		}
	}
}

func TestDynamoClientHonoursEndpointEnv(t *testing.T) {
	client, table := dynamotest.Table(t)
	t.Setenv(dynamo.EndpointEnv, client.Endpoint())
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	c, err := backend.DynamoClient(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Do(t.Context(), "DescribeTable", struct{ TableName string }{table}, nil); err != nil {
		t.Fatalf("client from backend.DynamoClient cannot reach the local table: %v", err)
	}
}

func openBench(b *testing.B) store.Store {
	client, table := dynamotest.Table(b)
	return dynamo.New(client, table)
}

func BenchmarkCreatePolicy(b *testing.B) { storetest.BenchmarkCreatePolicy(b, openBench) }
func BenchmarkListPolicies(b *testing.B) { storetest.BenchmarkListPolicies(b, openBench) }
func BenchmarkGetPolicy(b *testing.B)    { storetest.BenchmarkGetPolicy(b, openBench) }

// TestOversizedItemIsTooLarge: content within store.MaxStoredContent whose
// item, with the metadata, would pass DynamoDB's 400 KB limit is refused
// cleanly before the write, with nothing stored or counted.
func TestOversizedItemIsTooLarge(t *testing.T) {
	client, table := dynamotest.Table(t)
	st := dynamo.New(client, table)
	ctx := t.Context()
	now := time.Now().UTC()
	acct := ids.New(ids.Account)
	r := rand.New(rand.NewPCG(7, 8))
	gzipResistant := make([]byte, store.MaxStoredContent-8<<10)
	for i := range gzipResistant {
		gzipResistant[i] = byte(r.Uint32())
	}
	// The summary is stored compressed too: random printable text keeps
	// 100 KB of it large.
	name := make([]byte, 100<<10)
	for i := range name {
		name[i] = byte(' ' + 1 + r.IntN(94))
	}
	p := store.Policy{
		Summary: store.Summary{
			ID: ids.NewAt(ids.Policy, now), AccountID: acct, CreatedAt: now,
			Request: policy.Request{BusinessName: string(name)},
		},
		Content: string(gzipResistant),
	}
	err := st.CreatePolicy(ctx, p, store.CreateOptions{})
	if e := errs.As(err); e == nil || e.Code != store.ErrTooLarge.Code {
		t.Fatalf("CreatePolicy(item over 400 KB) = %v, want %s", err, store.ErrTooLarge.Code)
	}
	if _, err := st.Policy(ctx, acct, p.ID); errs.KindOf(err) != errs.NotFound {
		t.Errorf("Policy after a rejected create: %v, want not found", err)
	}
	if n, err := st.GenerationCount(ctx, acct, store.Month(now)); err != nil || n != 0 {
		t.Errorf("GenerationCount after a rejected create = %d, %v; want 0", n, err)
	}
	// The same policy with ordinary metadata fits.
	p.BusinessName = "Acme"
	if err := st.CreatePolicy(ctx, p, store.CreateOptions{}); err != nil {
		t.Fatalf("CreatePolicy(item under 400 KB): %v", err)
	}
}
