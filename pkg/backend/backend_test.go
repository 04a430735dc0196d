package backend_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/backend"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/bolt"
	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

func TestOpenRejectsBadSpecs(t *testing.T) {
	for _, spec := range []string{"", "bolt", "bolt:", "dynamodb:", "dynamodb:a", "dynamodb:bad/name", "sqlite:x.db", "/tmp/x.db", "BOLT:x"} {
		t.Run(spec, func(t *testing.T) {
			st, err := backend.Open(t.Context(), spec)
			if err == nil {
				st.Close()
				t.Fatalf("Open(%q) succeeded", spec)
			}
			if !strings.Contains(err.Error(), "invalid store") {
				t.Errorf("Open(%q) error %q does not say the spec is invalid", spec, err)
			}
			if !strings.Contains(err.Error(), "table name") && !strings.Contains(err.Error(), backend.Forms) {
				t.Errorf("Open(%q) error %q does not name the accepted forms", spec, err)
			}
		})
	}
}

func TestOpenBolt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "policygen.db")
	st, err := backend.Open(t.Context(), "bolt:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(*bolt.Store); !ok {
		t.Fatalf("Open(bolt:...) = %T", st)
	}
	roundTrip(t, st)
}

func TestOpenDynamoDB(t *testing.T) {
	client, table := dynamotest.Table(t)
	t.Setenv(dynamo.EndpointEnv, *client.Options().BaseEndpoint)
	st, err := backend.Open(t.Context(), "dynamodb:"+table)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok := st.(*dynamo.Store); !ok {
		t.Fatalf("Open(dynamodb:...) = %T", st)
	}
	roundTrip(t, st)
}

func roundTrip(t *testing.T, st store.Store) {
	t.Helper()
	a := account.Account{ID: ids.New(ids.Account), Email: "a@example.com", Plan: account.Agency, CreatedAt: time.Now().UTC()}
	if err := st.CreateAccount(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Account(t.Context(), a.ID); err != nil || got.Email != a.Email {
		t.Fatalf("Account = %+v, %v", got, err)
	}
}
