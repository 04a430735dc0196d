package dynamo_test

import (
	"bytes"
	"compress/gzip"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

// TestReadsItemsWrittenBeforeIssue9: items of the earlier layout (the
// summary as attributes in both policy items, the content gzip, a whole
// gzip response in the idempotency record), written here as that code
// wrote them, are read, listed, replayed and deleted like new ones.
func TestReadsItemsWrittenBeforeIssue9(t *testing.T) {
	client, table := dynamotest.Table(t)
	st := dynamo.New(client, table)
	sdk := dynamotest.SDKClient(t) // writes as the earlier code did, through the SDK
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Second)
	acct := ids.New(ids.Account)
	old := store.Policy{
		Summary: store.Summary{
			ID: ids.NewAt(ids.Policy, now.Add(-time.Hour)), AccountID: acct,
			Request:         policy.Request{Type: "privacy", BusinessName: "Old & Co", Jurisdiction: "EU", ThirdPartyServices: []string{"stripe"}, Format: "markdown"},
			Status:          "ready",
			Todos:           []compliance.Todo{},
			RiskScore:       42,
			RiskLevel:       "medium",
			RiskFactors:     []compliance.Factor{{ID: "payments", Points: 5, Why: "takes payments"}},
			ComplianceFlags: []compliance.Flag{{Code: "dpo_not_stated", Severity: "info", Law: "GDPR", Citation: "GDPR Art. 37", Message: "No DPO."}},
			TemplateVersion: "2026-11-22.9",
			CreatedAt:       now.Add(-time.Hour),
		},
		Content: "# Privacy Policy\n\nOld text.\n",
	}
	gz := func(s string) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write([]byte(s))
		zw.Close()
		return buf.Bytes()
	}
	put := func(v any) {
		t.Helper()
		item, err := attributevalue.MarshalMapWithOptions(v, func(o *attributevalue.EncoderOptions) { o.TagKey = "json" })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sdk.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	pk := "ACCOUNT#" + acct
	put(struct {
		PK string `json:"pk"`
		SK string `json:"sk"`
		store.Summary
	}{pk, "POLICY#" + old.ID, old.Summary})
	put(struct {
		PK string `json:"pk"`
		SK string `json:"sk"`
		store.Summary
		Content []byte `json:"content"`
	}{pk, "CONTENT#" + old.ID, old.Summary, gz(old.Content)})
	put(map[string]any{
		"pk": pk, "sk": "IDEM#old-key", "fp": "fp", "owner": "own_1", "done": true,
		"leaseUntil": now.UnixMilli(), "createdAt": now.Add(-time.Hour).UnixMilli(),
		"status": 201, "location": "/v1/policies/" + old.ID, "body": gz(`{"id":"old"}`),
		"ttl": now.Add(23 * time.Hour).Unix(),
	})

	// A new policy beside it.
	fresh := old
	fresh.ID, fresh.CreatedAt, fresh.BusinessName = ids.NewAt(ids.Policy, now), now, "New Ltd"
	if err := st.CreatePolicy(ctx, fresh, store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	got, err := st.Policy(ctx, acct, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != old.Content || got.BusinessName != old.BusinessName || got.RiskScore != 42 ||
		len(got.ComplianceFlags) != 1 || got.ComplianceFlags[0].Message != "No DPO." || !got.CreatedAt.Equal(old.CreatedAt) {
		t.Errorf("old policy read as %+v", got)
	}
	page, err := st.ListPolicies(ctx, acct, store.ListOptions{Limit: 10})
	if err != nil || len(page.Items) != 2 || page.Items[0].BusinessName != "New Ltd" || page.Items[1].BusinessName != "Old & Co" || page.Items[1].RiskLevel != "medium" {
		t.Fatalf("list of old and new: %+v, %v", page.Items, err)
	}
	rec, err := st.BeginIdempotent(ctx, store.IdempotencyClaim{AccountID: acct, Key: "old-key", Owner: "own_2"}, "fp", now)
	if err != nil || rec == nil || !rec.Done || string(rec.Body) != `{"id":"old"}` {
		t.Fatalf("old idempotency record: %+v, %v", rec, err)
	}
	if err := st.DeletePolicy(ctx, acct, old.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Policy(ctx, acct, old.ID); !errs.Is(err, errs.NotFound) {
		t.Errorf("old policy after delete: %v", err)
	}
	out, err := sdk.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: "POLICY#" + old.ID},
	}})
	if err != nil || len(out.Item) != 0 {
		t.Errorf("old metadata item after delete: %v, %v", out.Item, err)
	}
}
