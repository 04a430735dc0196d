package dynamo_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/policygen/policygen/pkg/ddb"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

// cancellingDynamo answers TransactWriteItems with a
// TransactionCanceledException carrying the next list of reason codes, as
// DynamoDB does, and with success once the lists run out. DynamoDB Local
// serialises transactions and never reports TransactionConflict, so this is
// the only way to exercise the store's retry path.
type cancellingDynamo struct {
	mu      sync.Mutex
	answers [][]string
	calls   int
	bodies  [][]byte // every request, to check what the store asked for
}

func (d *cancellingDynamo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	d.mu.Lock()
	d.bodies = append(d.bodies, raw)
	d.mu.Unlock()
	if target := r.Header.Get("X-Amz-Target"); target != "DynamoDB_20120810.TransactWriteItems" {
		http.Error(w, "unexpected "+target, http.StatusBadRequest)
		return
	}
	d.mu.Lock()
	d.calls++
	var codes []string
	if len(d.answers) > 0 {
		codes, d.answers = d.answers[0], d.answers[1:]
	}
	d.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	if codes == nil {
		w.Write([]byte("{}"))
		return
	}
	type reason struct {
		Code    string
		Message string `json:",omitempty"`
	}
	body := struct {
		Type                string `json:"__type"`
		Message             string
		CancellationReasons []reason
	}{Type: "com.amazonaws.dynamodb.v20120810#TransactionCanceledException"}
	for _, c := range codes {
		body.CancellationReasons = append(body.CancellationReasons, reason{Code: c})
	}
	body.Message = fmt.Sprintf("Transaction cancelled, please refer cancellation reasons for specific reasons [%s]", strings.Join(codes, ", "))
	w.Header().Set("X-Amzn-ErrorType", "TransactionCanceledException")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(body)
}

// transactRequest is the part of a TransactWriteItems request the checks
// read.
type transactRequest struct {
	TransactItems []struct {
		Put *struct {
			Item                map[string]map[string]any
			ConditionExpression string
		}
		Update *struct {
			Key                       map[string]map[string]string
			UpdateExpression          string
			ConditionExpression       string
			ExpressionAttributeValues map[string]map[string]any
		}
	}
}

// checkCreatePolicyRequest checks that body is CreatePolicy's transaction
// for p: the metadata and content items, each only if absent; the month's
// counter, with the quota as its condition when there is one; and, with a
// claim, the idempotency record completed only by its owner.
func checkCreatePolicyRequest(t *testing.T, body []byte, p store.Policy, quota int, claim *store.IdempotencyClaim) {
	t.Helper()
	var req transactRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	want := 3
	if claim != nil {
		want = 4
	}
	if len(req.TransactItems) != want {
		t.Fatalf("%d items, want %d: %s", len(req.TransactItems), want, body)
	}
	pk := "ACCOUNT#" + p.AccountID
	for i, sk := range []string{"POLICY#" + p.ID, "CONTENT#" + p.ID} {
		put := req.TransactItems[i].Put
		if put == nil || put.Item["pk"]["S"] != pk || put.Item["sk"]["S"] != sk || put.ConditionExpression != "attribute_not_exists(pk)" {
			t.Errorf("item %d = %+v, want a Put of %s/%s if absent", i, put, pk, sk)
		}
	}
	u := req.TransactItems[2].Update
	if u == nil || u.Key["pk"]["S"] != pk || u.Key["sk"]["S"] != "USAGE#"+store.Month(p.CreatedAt) || !strings.HasPrefix(u.UpdateExpression, "ADD #count :one") {
		t.Fatalf("item 2 = %+v, want the month's usage counter ADD 1", u)
	}
	if quota == 0 && u.ConditionExpression != "" {
		t.Errorf("usage condition %q without a quota", u.ConditionExpression)
	}
	if quota > 0 && (u.ConditionExpression != "attribute_not_exists(#count) OR #count < :quota" || u.ExpressionAttributeValues[":quota"]["N"] != fmt.Sprint(quota)) {
		t.Errorf("usage condition %q %v, want count < %d", u.ConditionExpression, u.ExpressionAttributeValues[":quota"], quota)
	}
	if claim != nil {
		c := req.TransactItems[3].Update
		if c == nil || c.Key["sk"]["S"] != "IDEM#"+claim.Key || c.Key["pk"]["S"] != pk ||
			c.ConditionExpression != "#owner = :owner AND #done = :false" || c.ExpressionAttributeValues[":owner"]["S"] != claim.Owner {
			t.Errorf("item 3 = %+v, want the claim's record completed by its owner", c)
		}
	}
}

// fakeClient is the store's DynamoDB client (pkg/ddb) talking to h.
func fakeClient(t *testing.T, h http.Handler) *ddb.Client {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return ddb.New(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}, srv.URL)
}

func TestTransactRetriesConflicts(t *testing.T) {
	now := time.Now().UTC()
	p := store.Policy{Summary: store.Summary{ID: ids.NewAt(ids.Policy, now), AccountID: ids.New(ids.Account), CreatedAt: now}, Content: "# P\n"}
	claim := &store.IdempotencyClaim{AccountID: p.AccountID, Key: "k-1", Owner: "owner-1"}
	for _, c := range []struct {
		name      string
		quota     int
		claim     *store.IdempotencyClaim
		answers   [][]string
		wantCalls int
		wantErr   bool
		wantKind  errs.Kind
		wantCode  string
	}{
		{name: "quota reached", quota: 5, answers: [][]string{{"None", "None", "ConditionalCheckFailed"}}, wantCalls: 1, wantErr: true, wantKind: errs.TooManyRequests, wantCode: store.ErrQuotaExceeded.Code},
		{name: "claim lost", quota: 5, claim: claim, answers: [][]string{{"None", "None", "None", "ConditionalCheckFailed"}}, wantCalls: 1, wantErr: true, wantKind: errs.Conflict, wantCode: store.ErrClaimLost.Code},
		{name: "conflicts with a claim then success", quota: 5, claim: claim, answers: [][]string{{"None", "None", "TransactionConflict", "None"}}, wantCalls: 2},
		{name: "throttled every time", answers: [][]string{
			{"ThrottlingError", "None", "None"}, {"ThrottlingError", "None", "None"}, {"ThrottlingError", "None", "None"}, {"ThrottlingError", "None", "None"}, {"ThrottlingError", "None", "None"},
			{"ThrottlingError", "None", "None"}, {"ThrottlingError", "None", "None"}, {"ThrottlingError", "None", "None"}, {"ThrottlingError", "None", "None"}, {"ThrottlingError", "None", "None"},
		}, wantCalls: 10, wantErr: true, wantKind: errs.Unavailable, wantCode: store.ErrUnavailable.Code},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := &cancellingDynamo{answers: c.answers}
			client := fakeClient(t, fake)
			opt := store.CreateOptions{Quota: c.quota}
			if c.claim != nil {
				opt.Idempotency = &store.IdempotentResult{Claim: *c.claim, Status: 201, Body: []byte("{}")}
			}
			err := dynamo.New(client, "t").CreatePolicy(t.Context(), p, opt)
			switch {
			case !c.wantErr && err != nil:
				t.Errorf("CreatePolicy: %v, want success", err)
			case c.wantErr && (errs.KindOf(err) != c.wantKind || errs.As(err) == nil || errs.As(err).Code != c.wantCode):
				t.Errorf("CreatePolicy: %v (kind %v), want kind %v code %s", err, errs.KindOf(err), c.wantKind, c.wantCode)
			}
			if fake.calls != c.wantCalls {
				t.Errorf("%d TransactWriteItems calls, want %d", fake.calls, c.wantCalls)
			}
			for _, b := range fake.bodies {
				checkCreatePolicyRequest(t, b, p, c.quota, c.claim)
			}
		})
	}
	for _, c := range []struct {
		name      string
		answers   [][]string
		wantCalls int
		wantErr   bool
		wantKind  errs.Kind
		wantCode  string
	}{
		{"conflicts then success", [][]string{
			{"None", "None", "TransactionConflict"},
			{"None", "None", "TransactionConflict"},
		}, 3, false, 0, ""},
		{"throttled then success", [][]string{{"ThrottlingError", "None", "None"}}, 2, false, 0, ""},
		{"a failed condition is final", [][]string{{"ConditionalCheckFailed", "None", "TransactionConflict"}}, 1, true, errs.Conflict, store.ErrExists.Code},
		{"condition on the content item", [][]string{{"None", "ConditionalCheckFailed", "None"}}, 1, true, errs.Conflict, store.ErrExists.Code},
		{"a validation error is not retried", [][]string{{"ValidationError", "None", "None"}}, 1, true, errs.Internal, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := &cancellingDynamo{answers: c.answers}
			client := fakeClient(t, fake)
			err := dynamo.New(client, "t").CreatePolicy(t.Context(), p, store.CreateOptions{})
			switch {
			case !c.wantErr && err != nil:
				t.Errorf("CreatePolicy: %v, want success", err)
			case c.wantErr && err == nil:
				t.Errorf("CreatePolicy succeeded, want kind %v", c.wantKind)
			case c.wantErr && errs.KindOf(err) != c.wantKind:
				t.Errorf("CreatePolicy: %v (kind %v), want kind %v", err, errs.KindOf(err), c.wantKind)
			case c.wantCode != "" && (errs.As(err) == nil || errs.As(err).Code != c.wantCode):
				t.Errorf("CreatePolicy: %v, want code %s", err, c.wantCode)
			}
			if fake.calls != c.wantCalls {
				t.Errorf("%d TransactWriteItems calls, want %d", fake.calls, c.wantCalls)
			}
			// Every attempt, retries included, is the whole transaction
			// with its conditions.
			for _, b := range fake.bodies {
				checkCreatePolicyRequest(t, b, p, 0, nil)
			}
		})
	}
}

// TestLostAnswerIsNotAConflict: DynamoDB Local applies a generate's
// transaction but its answer never reaches the store (the first attempt
// gets a 500 in its place, as when an attempt times out after DynamoDB has
// written), and the client's retry, with the same ClientRequestToken, is
// answered as the same transaction: CreatePolicy succeeds, once, rather
// than failing its own attribute_not_exists conditions as "already
// exists".
func TestLostAnswerIsNotAConflict(t *testing.T) {
	client, table := dynamotest.Table(t)
	target, err := url.Parse(client.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var transactions int
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasSuffix(resp.Request.Header.Get("X-Amz-Target"), ".TransactWriteItems") {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		transactions++
		if transactions == 1 {
			resp.Body.Close()
			resp.StatusCode = http.StatusInternalServerError
			resp.Header = http.Header{"Content-Type": {"application/x-amz-json-1.0"}}
			body := `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"answer lost"}`
			resp.Body = io.NopCloser(strings.NewReader(body))
			resp.ContentLength = int64(len(body))
		}
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	st := dynamo.New(ddb.New(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}, srv.URL), table)

	now := time.Now().UTC()
	p := store.Policy{Summary: store.Summary{ID: ids.NewAt(ids.Policy, now), AccountID: ids.New(ids.Account), CreatedAt: now}, Content: "# P\n"}
	if err := st.CreatePolicy(t.Context(), p, store.CreateOptions{}); err != nil {
		t.Fatalf("CreatePolicy after a lost answer: %v", err)
	}
	mu.Lock()
	n := transactions
	mu.Unlock()
	if n != 2 {
		t.Errorf("%d TransactWriteItems calls, want 2 (the lost one and its retry)", n)
	}
	got, err := st.Policy(t.Context(), p.AccountID, p.ID)
	if err != nil || got.Content != p.Content {
		t.Fatalf("Policy: %+v, %v", got, err)
	}
	page, err := st.ListPolicies(t.Context(), p.AccountID, store.ListOptions{Limit: 10})
	if err != nil || len(page.Items) != 1 {
		t.Errorf("list: %d policies, %v; want the one", len(page.Items), err)
	}
}
