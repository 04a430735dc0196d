package dynamo_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/policygen/policygen/internal/testenv"
	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/backend"
	"github.com/policygen/policygen/pkg/ddb"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
)

// TestOutagesAreUnavailable points the store's DynamoDB client (pkg/ddb), tuned as in
// production, at endpoints that never answer, reset every connection, or
// answer with DynamoDB's throttling errors, and demands that every Store
// method returns errs.Unavailable (503 in the API) within its deadline.
func TestOutagesAreUnavailable(t *testing.T) {
	const deadline = 300 * time.Millisecond
	type endpoint struct {
		name string
		url  func(t *testing.T) (string, func() int64)
	}
	awsErr := func(status int, code string) func(t *testing.T) (string, func() int64) {
		return func(t *testing.T) (string, func() int64) {
			u, n := testenv.AWSErrorEndpoint(t, status, code)
			return u, n.Load
		}
	}
	endpoints := []endpoint{
		{"silent", func(t *testing.T) (string, func() int64) { return testenv.SilentEndpoint(t), nil }},
		{"reset", func(t *testing.T) (string, func() int64) { return testenv.ResettingEndpoint(t), nil }},
		{"ProvisionedThroughputExceededException", awsErr(http.StatusBadRequest, "ProvisionedThroughputExceededException")},
		{"RequestLimitExceeded", awsErr(http.StatusBadRequest, "RequestLimitExceeded")},
		{"ThrottlingException", awsErr(http.StatusBadRequest, "ThrottlingException")},
		{"InternalServerError", awsErr(http.StatusInternalServerError, "InternalServerError")},
	}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	calls := map[string]func(context.Context, store.Store) error{
		"Account":   func(c context.Context, s store.Store) error { _, err := s.Account(c, "acct_x"); return err },
		"KeyByHash": func(c context.Context, s store.Store) error { _, err := s.KeyByHash(c, "h"); return err },
		"CreatePolicy": func(c context.Context, s store.Store) error {
			return s.CreatePolicy(c, store.Policy{Summary: store.Summary{ID: "pol_x", AccountID: "acct_x", CreatedAt: now}, Content: "x"}, store.CreateOptions{})
		},
		"ListPolicies": func(c context.Context, s store.Store) error {
			_, err := s.ListPolicies(c, "acct_x", store.ListOptions{Limit: 10})
			return err
		},
		"DeletePolicy": func(c context.Context, s store.Store) error { return s.DeletePolicy(c, "acct_x", "pol_x") },
		"GenerationCount": func(c context.Context, s store.Store) error {
			_, err := s.GenerationCount(c, "acct_x", "2026-03")
			return err
		},
		"CreateAccount": func(c context.Context, s store.Store) error {
			return s.CreateAccount(c, account.Account{ID: "acct_y", Email: "a@b.example", Plan: account.Agency, CreatedAt: now})
		},
		"HasAccounts": func(c context.Context, s store.Store) error { _, err := s.HasAccounts(c); return err },
	}
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			url, served := ep.url(t)
			t.Setenv(dynamo.EndpointEnv, url)
			client, err := backend.DynamoClient(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			st := store.WithDeadline(dynamo.New(client, "policygen-test"), deadline)
			for name, call := range calls {
				start := time.Now()
				var before int64
				if served != nil {
					before = served()
				}
				err := call(t.Context(), st)
				took := time.Since(start)
				if !errs.Is(err, errs.Unavailable) {
					t.Errorf("%s: err = %v (kind %v), want Unavailable", name, err, errs.KindOf(err))
				}
				if e := errs.As(err); e != nil && e.Code != "service_unavailable" {
					t.Errorf("%s: code %q", name, e.Code)
				}
				// A correctness bound, not a speed test: the call must not
				// outlive its deadline by more than scheduling slack.
				if took > deadline+time.Second {
					t.Errorf("%s took %s, deadline %s", name, took, deadline)
				}
				if served != nil && name != "CreatePolicy" && name != "CreateAccount" && name != "DeletePolicy" {
					// A throttled call is retried by the client (the deadline may
					// cut the last attempt), and never more than MaxAttempts.
					if got := served() - before; got < 2 || got > ddb.MaxAttempts {
						t.Errorf("%s: %d attempts, want 2..%d", name, got, ddb.MaxAttempts)
					}
				}
			}
		})
	}
}
