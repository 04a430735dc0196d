package backend_test

import (
	"errors"
	"os"
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
	inner, bounded := store.Unwrap(st)
	if _, ok := inner.(*bolt.Store); !ok || !bounded {
		t.Fatalf("Open(bolt:...) = %T wrapping %T; want a deadline-bound *bolt.Store", st, inner)
	}
	roundTrip(t, st)
}

func TestOpenDynamoDB(t *testing.T) {
	client, table := dynamotest.Table(t)
	t.Setenv(dynamo.EndpointEnv, client.Endpoint())
	st, err := backend.Open(t.Context(), "dynamodb:"+table)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	inner, bounded := store.Unwrap(st)
	if _, ok := inner.(*dynamo.Store); !ok || !bounded {
		t.Fatalf("Open(dynamodb:...) = %T wrapping %T; want a deadline-bound *dynamo.Store", st, inner)
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

// TestPepper pins the rule policyd and policyctl share: which source a
// spec and its flags select. A file source shows itself by creating its
// file on first read; a Secrets Manager source is only built (no I/O).
func TestPepper(t *testing.T) {
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	dir := t.TempDir()
	boltSpec := "bolt:" + filepath.Join(dir, "data", "policygen.db")
	tests := []struct {
		name     string
		spec     string
		file     string
		secretID string
		env      string // PEPPER_SECRET_ID
		wantFile string // the file the source reads, or "" for a secret
		wantErr  error
	}{
		{name: "bolt default beside the store", spec: boltSpec, wantFile: filepath.Join(dir, "data", "pepper")},
		{name: "bolt ignores the environment", spec: boltSpec, env: "s", wantFile: filepath.Join(dir, "data", "pepper")},
		{name: "explicit file", spec: "dynamodb:table", file: filepath.Join(dir, "explicit"), env: "s", wantFile: filepath.Join(dir, "explicit")},
		{name: "explicit secret", spec: boltSpec, secretID: "s"},
		{name: "dynamodb secret from the environment", spec: "dynamodb:table", env: "s"},
		{name: "dynamodb without a source", spec: "dynamodb:table", wantErr: backend.ErrNoPepper},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == backend.EnvPepperSecretID {
					return tt.env
				}
				return ""
			}
			src, err := backend.Pepper(t.Context(), tt.spec, tt.file, tt.secretID, getenv)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || src == nil {
				t.Fatalf("Pepper = %v, %v", src, err)
			}
			if tt.wantFile == "" {
				return
			}
			if _, err := src.Value(t.Context()); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tt.wantFile); err != nil {
				t.Errorf("source did not use %s: %v", tt.wantFile, err)
			}
		})
	}
}
