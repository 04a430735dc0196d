package dynamo_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
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
}

func (d *cancellingDynamo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
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

func TestTransactRetriesConflicts(t *testing.T) {
	policy := func() store.Policy {
		now := time.Now().UTC()
		return store.Policy{Summary: store.Summary{ID: ids.NewAt(ids.Policy, now), AccountID: ids.New(ids.Account), CreatedAt: now}, Content: "# P\n"}
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
			srv := httptest.NewServer(fake)
			defer srv.Close()
			client := dynamodb.New(dynamodb.Options{
				Region:       "us-east-1",
				Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
				BaseEndpoint: aws.String(srv.URL),
			})
			err := dynamo.New(client, "t").CreatePolicy(t.Context(), policy(), store.CreateOptions{})
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
		})
	}
}
