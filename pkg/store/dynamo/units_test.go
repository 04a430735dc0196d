package dynamo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/ddb"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

// meter bills what a client does by DynamoDB's documented rules ("DynamoDB
// item sizes and formats"; "Read/write capacity mode"): an item's size is
// its attribute names plus values; a write costs 1 unit per started KB of
// the item (the larger of before and after), twice that inside
// TransactWriteItems; a strongly consistent GetItem costs 1 unit per
// started 4 KB, a Query 1 per started 4 KB of all the items it returns.
// Sizes are measured on the items themselves: each written item is read
// (unmetered) before and after the write.
type meter struct {
	raw   *ddb.Client
	table string

	mu    sync.Mutex
	reads int
	wcu   int
	lines []string
}

// newMeter is a meter and a store on a new table whose every operation it
// bills.
func newMeter(t *testing.T) (*meter, *dynamo.Store) {
	raw, table := dynamotest.Table(t)
	m := &meter{raw: raw, table: table}
	return m, dynamo.NewWithHook(raw, table, m.handle)
}

type written struct {
	what string
	key  map[string]types.AttributeValue
}

func (m *meter) handle(ctx context.Context, in any, next func() (any, error)) (any, error) {
	var (
		items []written
		tx    bool
	)
	switch p := in.(type) {
	case *ddb.TransactWriteItemsInput:
		tx = true
		for _, it := range p.TransactItems {
			switch {
			case it.Put != nil:
				items = append(items, written{"put", map[string]types.AttributeValue{"pk": it.Put.Item["pk"], "sk": it.Put.Item["sk"]}})
			case it.Update != nil:
				items = append(items, written{"update", it.Update.Key})
			case it.Delete != nil:
				items = append(items, written{"delete", it.Delete.Key})
			case it.ConditionCheck != nil:
				items = append(items, written{"check", it.ConditionCheck.Key})
			}
		}
	case *ddb.PutItemInput:
		items = append(items, written{"put", map[string]types.AttributeValue{"pk": p.Item["pk"], "sk": p.Item["sk"]}})
	case *ddb.UpdateItemInput:
		items = append(items, written{"update", p.Key})
	case *ddb.DeleteItemInput:
		items = append(items, written{"delete", p.Key})
	}
	before := make([]int, len(items))
	for i, w := range items {
		before[i] = m.size(ctx, w.key)
	}
	out, err := next()
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		return out, err
	}
	per := 1
	if tx {
		per = 2
	}
	for i, w := range items {
		size := max(before[i], m.size(ctx, w.key))
		units := per * max(1, (size+1023)/1024)
		m.wcu += units
		m.lines = append(m.lines, fmt.Sprintf("%-6s %-40s %6d B  %2d WCU", w.what, sk(w.key), size, units))
	}
	switch r := out.(type) {
	case *ddb.GetItemOutput:
		size := dynamo.ItemSize(r.Item)
		units := max(1, (size+4095)/4096)
		m.reads += units
		m.lines = append(m.lines, fmt.Sprintf("get    %-40s %6d B  %2d RCU", sk(in.(*ddb.GetItemInput).Key), size, units))
	case *ddb.QueryOutput:
		size := 0
		for _, it := range r.Items {
			size += dynamo.ItemSize(it)
		}
		units := max(1, (size+4095)/4096)
		m.reads += units
		m.lines = append(m.lines, fmt.Sprintf("query  %-40s %6d B  %2d RCU", fmt.Sprintf("%d items", len(r.Items)), size, units))
	}
	return out, err
}

func sk(key map[string]types.AttributeValue) string {
	v, _ := key["sk"].(*types.AttributeValueMemberS)
	if v == nil {
		return "?"
	}
	return v.Value
}

// size reads an item without metering it: 0 when there is none.
func (m *meter) size(ctx context.Context, key map[string]types.AttributeValue) int {
	out, err := m.raw.GetItem(ctx, &ddb.GetItemInput{TableName: &m.table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		panic(err)
	}
	return dynamo.ItemSize(out.Item)
}

// take returns what was billed since the last take.
func (m *meter) take() (rcu, wcu int, lines []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rcu, wcu, lines = m.reads, m.wcu, m.lines
	m.reads, m.wcu, m.lines = 0, 0, nil
	return rcu, wcu, lines
}

// standardRequests are the documents the unit figures are for: the
// standard EU privacy policy with four services (README), and a larger
// California marketplace.
var standardRequests = map[string]string{
	"eu-4-services":     `{"type":"privacy","businessName":"Acme Widgets Ltd","websiteUrl":"https://acme.example","businessType":"ecommerce","jurisdiction":"EU","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["Stripe","Google Analytics","Mailchimp","Shopify"],"contactEmail":"privacy@acme.example"}`,
	"us-ca-marketplace": `{"type":"privacy","businessName":"Makers Market, Inc.","websiteUrl":"https://makers.example","businessType":"marketplace","jurisdiction":"US-CA","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["stripe","google-analytics","tiktok-pixel","zendesk","klaviyo"],"hostingProvider":"aws","contactEmail":"privacy@makers.example","postalAddress":"100 Market St, San Francisco, CA 94105","onlineOnly":false,"tollFreeNumber":"(800) 555-0199","sellsMinorsData":false,"ccpaThresholdsMet":true,"optOutLink":true}`,
}

// responseBody is what the API answers a generate with (pkg/api's policy
// object): the summary's fields and the content, as JSON.
func responseBody(t *testing.T, p store.Policy) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestGenerateWriteUnits measures what each policy operation costs on
// DynamoDB, from the items actually written and read, and holds generate
// to issue 9's 12 write units (with or without an Idempotency-Key).
// docs/STORAGE.md copies the figures it logs (go test -v -run
// TestGenerateWriteUnits ./pkg/store/dynamo).
func TestGenerateWriteUnits(t *testing.T) {
	for name, body := range standardRequests {
		t.Run(name, func(t *testing.T) {
			m, st := newMeter(t)
			ctx := t.Context()
			now := time.Now().UTC()
			acct := account.Account{ID: ids.New(ids.Account), Email: "u@example.com", Plan: account.Agency, CreatedAt: now}
			if err := st.CreateAccount(ctx, acct); err != nil {
				t.Fatal(err)
			}
			req, err := policy.ParseRequest([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			res, err := policy.Generate(req)
			if err != nil {
				t.Fatal(err)
			}
			report := func(op string, limitWCU int) []string {
				rcu, wcu, lines := m.take()
				t.Logf("%s: %d RCU, %d WCU\n    %s", op, rcu, wcu, strings.Join(lines, "\n    "))
				if limitWCU > 0 && wcu > limitWCU {
					t.Errorf("%s costs %d write units, want at most %d", op, wcu, limitWCU)
				}
				return lines
			}
			m.take()

			// A generate without and with an Idempotency-Key (the claim is
			// its own request, before generation: reported apart).
			var last string
			for i := range 21 {
				p := store.NewPolicy(acct.ID, res, now)
				var opt store.CreateOptions
				opt.Quota = 1000
				if i == 20 {
					claim := store.IdempotencyClaim{AccountID: acct.ID, Key: "3f1c9a2e-order-42", Owner: ids.New("own")}
					if _, err := st.BeginIdempotent(ctx, claim, strings.Repeat("f", 64), now); err != nil {
						t.Fatal(err)
					}
					report("idempotency claim", 0)
					opt.Idempotency = &store.IdempotentResult{Claim: claim, Status: 201, Location: "/v1/policies/" + p.ID, Body: responseBody(t, p), At: now}
				}
				if err := st.CreatePolicy(ctx, p, opt); err != nil {
					t.Fatal(err)
				}
				switch i {
				case 0:
					report("generate", 12)
				case 20:
					report("generate with Idempotency-Key", 12)
				default:
					m.take()
				}
				last = p.ID
			}

			if _, err := st.Policy(ctx, acct.ID, last); err != nil {
				t.Fatal(err)
			}
			report("get", 0)

			page, err := st.ListPolicies(ctx, acct.ID, store.ListOptions{Limit: 20})
			if err != nil || len(page.Items) != 20 {
				t.Fatalf("list: %d items, %v", len(page.Items), err)
			}
			for _, sum := range page.Items {
				if sum.ID == "" || sum.TemplateVersion == "" {
					t.Fatalf("list item %+v", sum)
				}
			}
			report("list (20 of 21: the query reads 21, see ListPolicies)", 0)

			if err := st.DeletePolicy(ctx, acct.ID, last); err != nil {
				t.Fatal(err)
			}
			report("delete", 0)
		})
	}
}
