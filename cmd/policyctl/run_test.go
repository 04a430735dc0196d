package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/auth/passwords"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/secrets/secretstest"
	"github.com/policygen/policygen/pkg/store/bolt"
	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

type result struct {
	stdout, stderr string
	err            error
}

// ctl runs policyctl in-process with env as its whole environment.
func ctl(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	// STDIN in env is what policyctl reads on standard input.
	err := run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(env["STDIN"]), &stdout, &stderr)
	return result{stdout.String(), stderr.String(), err}
}

// ok runs policyctl, demands success and decodes its one JSON object.
func ok(t *testing.T, env map[string]string, args ...string) map[string]any {
	t.Helper()
	r := ctl(t, env, args...)
	if r.err != nil {
		t.Fatalf("policyctl %s: %v\nstderr: %s", strings.Join(args, " "), r.err, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("policyctl %s wrote to stderr: %s", strings.Join(args, " "), r.stderr)
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("policyctl %s: output is not JSON: %v\n%s", strings.Join(args, " "), err, r.stdout)
	}
	if dec.More() {
		t.Fatalf("policyctl %s printed more than one JSON value:\n%s", strings.Join(args, " "), r.stdout)
	}
	return out
}

func str(t *testing.T, m map[string]any, field string) string {
	t.Helper()
	s, isStr := m[field].(string)
	if !isStr || s == "" {
		t.Fatalf("field %q = %#v in %v, want a non-empty string", field, m[field], m)
	}
	return s
}

func timeField(t *testing.T, m map[string]any, field string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, str(t, m, field))
	if err != nil {
		t.Fatalf("field %q: %v", field, err)
	}
	return tm
}

func boltSpec(t *testing.T) (spec, dir string) {
	dir = filepath.Join(t.TempDir(), "data")
	return "bolt:" + filepath.Join(dir, "policygen.db"), dir
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"account", "create", "--help"}} {
		r := ctl(t, nil, args...)
		if r.err != nil {
			t.Fatalf("%v: %v", args, r.err)
		}
		for _, cmd := range commands {
			if !strings.Contains(r.stdout, cmd.name) {
				t.Errorf("%v: usage does not list %q", args, cmd.name)
			}
		}
		for _, flag := range []string{"--store", "--pepper-file", "--pepper-secret", "--email", "--plan", "--key-id", "--grace", "--expires-in", "KEY_CACHE_TTL"} {
			if !strings.Contains(r.stdout, flag) {
				t.Errorf("%v: usage does not mention %s", args, flag)
			}
		}
	}
	r := ctl(t, nil)
	if !errors.As(r.err, new(usageError)) || !strings.Contains(r.stderr, "policyctl help") || r.stdout != "" {
		t.Fatalf("no arguments: err %v, stderr %q, stdout %q", r.err, r.stderr, r.stdout)
	}
}

func TestAccountCreate(t *testing.T) {
	spec, dir := boltSpec(t)
	out := ok(t, nil, "--store", spec, "account", "create", "--email", "owner@example.com", "--plan", "Agency", "--name", "Acme Ltd")
	if !ids.Valid(ids.Account, str(t, out, "accountId")) || !ids.Valid(ids.Key, str(t, out, "keyId")) {
		t.Fatalf("ids in %v", out)
	}
	key := str(t, out, "apiKey")
	if err := auth.CheckFormat(key); err != nil {
		t.Fatalf("apiKey %q: %v", key, err)
	}
	if out["plan"] != "agency" || out["email"] != "owner@example.com" || out["name"] != "Acme Ltd" ||
		out["apiAccess"] != true || out["keyLast4"] != key[len(key)-4:] || out["expiresAt"] != nil {
		t.Fatalf("output %v", out)
	}
	// The pepper lives beside the bolt file, where policyd looks for it.
	if _, err := secrets.NewFile(filepath.Join(dir, "pepper")).Value(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Global flags may also follow the command.
	out = ok(t, nil, "account", "create", "--email", "b@example.org", "--plan", "starter", "--store", spec, "--expires-in", "1h")
	if out["plan"] != "starter" || out["apiAccess"] != false || out["expiresAt"] == nil || out["name"] != "" {
		t.Fatalf("output %v", out)
	}
}

func TestErrors(t *testing.T) {
	spec, _ := boltSpec(t)
	acct := ok(t, nil, "--store", spec, "account", "create", "--email", "a@example.com", "--plan", "pro")
	acctID := str(t, acct, "accountId")
	tests := []struct {
		name   string
		env    map[string]string
		args   []string
		usage  bool   // a command-line mistake (exit 2)
		stderr string // expected in the message
	}{
		{"unknown command", nil, []string{"--store", spec, "frobnicate", "now"}, true, `unknown command "frobnicate now"`},
		{"group only", nil, []string{"--store", spec, "account"}, true, `unknown command "account"`},
		{"unknown subcommand", nil, []string{"--store", spec, "key", "delete", "--key-id", "x"}, true, `unknown command "key delete"`},
		{"unknown flag", nil, []string{"--store", spec, "account", "create", "--mail", "a@example.com"}, true, "flag provided but not defined: -mail"},
		{"unknown global flag", nil, []string{"--sotre", spec, "help"}, true, "flag provided but not defined"},
		{"stray argument", nil, []string{"--store", spec, "account", "show", "--account", acctID, "extra"}, true, `unexpected argument "extra"`},
		{"bad plan", nil, []string{"--store", spec, "account", "create", "--email", "a@example.com", "--plan", "enterprise"}, true, `unknown plan "enterprise": want one of starter, pro, agency`},
		{"bad plan on set-plan", nil, []string{"--store", spec, "account", "set-plan", "--account", acctID, "--plan", "gold"}, true, "unknown plan"},
		{"bad email", nil, []string{"--store", spec, "account", "create", "--email", "not-an-email", "--plan", "pro"}, true, `invalid --email "not-an-email"`},
		{"email with display name", nil, []string{"--store", spec, "account", "create", "--email", "Bob <bob@example.com>", "--plan", "pro"}, true, "invalid --email"},
		{"email without domain dot", nil, []string{"--store", spec, "account", "create", "--email", "bob@localhost", "--plan", "pro"}, true, "invalid --email"},
		{"missing email", nil, []string{"--store", spec, "account", "create", "--plan", "pro"}, true, "--email is required"},
		{"missing plan", nil, []string{"--store", spec, "account", "create", "--email", "a@example.com"}, true, "--plan is required"},
		{"missing account", nil, []string{"--store", spec, "key", "create"}, true, "--account is required"},
		{"missing key id", nil, []string{"--store", spec, "key", "revoke"}, true, "--key-id is required"},
		{"missing key id on rotate", nil, []string{"--store", spec, "key", "rotate", "--grace", "1h"}, true, "--key-id is required"},
		{"negative grace", nil, []string{"--store", spec, "key", "rotate", "--key-id", "key_x", "--grace", "-1h"}, true, "--grace must not be negative"},
		{"negative expiry", nil, []string{"--store", spec, "key", "create", "--account", acctID, "--expires-in", "-5m"}, true, "--expires-in must be positive"},
		{"bad duration", nil, []string{"--store", spec, "key", "create", "--account", acctID, "--expires-in", "30 days"}, true, "invalid value"},
		{"missing store", nil, []string{"account", "show", "--account", acctID}, true, "--store is required: bolt:PATH or dynamodb:TABLE"},
		{"bad store", nil, []string{"--store", "sqlite:x.db", "account", "show", "--account", acctID}, false, "invalid store"},
		{"table create on bolt", nil, []string{"--store", spec, "table", "create"}, true, "needs --store dynamodb:TABLE"},
		{"dynamodb without pepper", map[string]string{"AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:1"}, []string{"--store", "dynamodb:policygen-none", "key", "create", "--account", acctID}, true, "--pepper-secret"},
		{"both pepper flags", nil, []string{"--store", spec, "--pepper-file", "p", "--pepper-secret", "s", "key", "create", "--account", acctID}, true, "not both"},
		{"revoke unknown key", nil, []string{"--store", spec, "key", "revoke", "--key-id", "key_01m80fhg7hd5wcz4j4bxfdez8k"}, false, "key_not_found"},
		{"rotate unknown key", nil, []string{"--store", spec, "key", "rotate", "--key-id", "key_01m80fhg7hd5wcz4j4bxfdez8k"}, false, "key_not_found"},
		{"show unknown key", nil, []string{"--store", spec, "key", "show", "--key-id", "key_nope"}, false, "key_not_found"},
		{"key for unknown account", nil, []string{"--store", spec, "key", "create", "--account", "acct_nope"}, false, "account_not_found"},
		{"set-plan unknown account", nil, []string{"--store", spec, "account", "set-plan", "--account", "acct_nope", "--plan", "pro"}, false, "account_not_found"},
		{"show unknown account", nil, []string{"--store", spec, "account", "show", "--account", "acct_nope"}, false, "account_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ctl(t, tt.env, tt.args...)
			if r.err == nil {
				t.Fatalf("succeeded: %s", r.stdout)
			}
			if got := errors.As(r.err, new(usageError)); got != tt.usage {
				t.Errorf("usage error = %v, want %v (%v)", got, tt.usage, r.err)
			}
			if !strings.HasPrefix(r.stderr, "policyctl: ") || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr %q, want it to contain %q", r.stderr, tt.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
		})
	}
}

func TestKeyCommands(t *testing.T) {
	spec, _ := boltSpec(t)
	acct := ok(t, nil, "--store", spec, "account", "create", "--email", "a@example.com", "--plan", "agency")
	acctID := str(t, acct, "accountId")

	before := time.Now()
	k := ok(t, nil, "--store", spec, "key", "create", "--account", acctID, "--expires-in", "720h")
	keyID := str(t, k, "keyId")
	if err := auth.CheckFormat(str(t, k, "apiKey")); err != nil || k["accountId"] != acctID || k["status"] != "active" || k["prefix"] != "pol_live_" {
		t.Fatalf("key create: %v (%v)", k, err)
	}
	if exp := timeField(t, k, "expiresAt"); exp.Before(before.Truncate(time.Second).Add(720*time.Hour)) || exp.After(time.Now().Add(720*time.Hour)) {
		t.Fatalf("expiresAt %v, want 720h from now", exp)
	}

	shown := ok(t, nil, "--store", spec, "key", "show", "--key-id", keyID)
	if _, has := shown["apiKey"]; has || shown["last4"] != k["last4"] || shown["status"] != "active" {
		t.Fatalf("key show: %v", shown)
	}
	if _, has := shown["hash"]; has {
		t.Fatal("key show prints the hash")
	}

	rot := ok(t, nil, "--store", spec, "key", "rotate", "--key-id", keyID, "--grace", "24h")
	newID := str(t, rot, "keyId")
	old, _ := rot["oldKey"].(map[string]any)
	if newID == keyID || rot["accountId"] != acctID || old == nil || old["keyId"] != keyID || old["status"] != "active-until-revocation" {
		t.Fatalf("key rotate: %v", rot)
	}
	if err := auth.CheckFormat(str(t, rot, "apiKey")); err != nil {
		t.Fatal(err)
	}
	if at := timeField(t, old, "revokedAt"); at.Before(before.Truncate(time.Second).Add(24 * time.Hour)) {
		t.Fatalf("old key revoked at %v, want after the 24h grace", at)
	}
	if rot["expiresAt"] == nil {
		t.Fatal("the rotated key lost the old key's lifetime")
	}

	rev := ok(t, nil, "--store", spec, "key", "revoke", "--key-id", newID)
	if rev["keyId"] != newID || rev["status"] != "revoked" || rev["revokedAt"] == nil {
		t.Fatalf("key revoke: %v", rev)
	}
	// Revoking again keeps the first time.
	again := ok(t, nil, "--store", spec, "key", "revoke", "--key-id", newID)
	if again["revokedAt"] != rev["revokedAt"] {
		t.Fatalf("second revoke moved revokedAt: %v -> %v", rev["revokedAt"], again["revokedAt"])
	}
	r := ctl(t, nil, "--store", spec, "key", "rotate", "--key-id", newID)
	if r.err == nil || !strings.Contains(r.stderr, "key_not_usable") {
		t.Fatalf("rotating a revoked key: %v %s", r.err, r.stderr)
	}

	set := ok(t, nil, "--store", spec, "account", "set-plan", "--account", acctID, "--plan", "pro")
	if set["plan"] != "pro" || set["apiAccess"] != false || set["accountId"] != acctID {
		t.Fatalf("set-plan: %v", set)
	}
	show := ok(t, nil, "--store", spec, "account", "show", "--account", acctID)
	if show["plan"] != "pro" || show["email"] != "a@example.com" {
		t.Fatalf("account show: %v", show)
	}
}

// The operator flow end to end: the key policyctl prints authenticates
// against the same store and pepper the API uses, and stops after revoke.
func TestIssuedKeyAuthenticates(t *testing.T) {
	spec, dir := boltSpec(t)
	path := strings.TrimPrefix(spec, "bolt:")
	out := ok(t, nil, "--store", spec, "account", "create", "--email", "a@example.com", "--plan", "agency")
	secret, keyID := str(t, out, "apiKey"), str(t, out, "keyId")

	authenticate := func() (auth.Principal, error) {
		st, err := bolt.Open(path) // policyctl closed it; one process at a time
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		a := &auth.Authenticator{Store: st, Hasher: &auth.Hasher{Pepper: secrets.NewFile(filepath.Join(dir, "pepper"))}}
		return a.Authenticate(context.Background(), "Bearer "+secret)
	}
	p, err := authenticate()
	if err != nil {
		t.Fatal(err)
	}
	if p.Account.ID != out["accountId"] || p.Key.ID != keyID {
		t.Fatalf("principal %+v", p)
	}
	if err := auth.RequireAPIAccess(p); err != nil {
		t.Fatal(err)
	}

	ok(t, nil, "--store", spec, "account", "set-plan", "--account", p.Account.ID, "--plan", "starter")
	p, err = authenticate()
	if err != nil {
		t.Fatal(err)
	}
	if e := errs.As(auth.RequireAPIAccess(p)); e == nil || e.Code != "plan_not_entitled" {
		t.Fatalf("starter plan: %v", e)
	}

	ok(t, nil, "--store", spec, "key", "revoke", "--key-id", keyID)
	_, err = authenticate()
	if e := errs.As(err); e == nil || e.Code != "revoked_api_key" {
		t.Fatalf("after revoke: %v", err)
	}
}

// With --pepper-secret, policyctl reads the pepper from Secrets Manager
// through pkg/secrets/awssecrets (here an in-test server speaking its protocol).
func TestPepperFromSecretsManager(t *testing.T) {
	const pepper = "pepper-from-secrets-manager-0123456789"
	sm := secretstest.New(t, map[string]string{"policygen/dev/pepper": pepper})
	awsEnv(t, map[string]string{"AWS_ENDPOINT_URL_SECRETS_MANAGER": sm.URL})

	spec, _ := boltSpec(t)
	out := ok(t, nil, "--store", spec, "--pepper-secret", "policygen/dev/pepper", "account", "create", "--email", "a@example.com", "--plan", "agency")
	if n := sm.TotalCalls(); n != 1 {
		t.Fatalf("%d GetSecretValue calls", n)
	}
	st, err := bolt.Open(strings.TrimPrefix(spec, "bolt:"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := &auth.Authenticator{Store: st, Hasher: &auth.Hasher{Pepper: secrets.NewStatic([]byte(pepper))}}
	if _, err := a.Authenticate(context.Background(), "Bearer "+str(t, out, "apiKey")); err != nil {
		t.Fatalf("a key hashed with the Secrets Manager pepper: %v", err)
	}

	r := ctl(t, nil, "--store", "bolt:"+filepath.Join(t.TempDir(), "db"), "--pepper-secret", "missing", "account", "create", "--email", "a@example.com", "--plan", "agency")
	if r.err == nil || !strings.Contains(r.stderr, "ResourceNotFoundException") {
		t.Fatalf("missing secret: %v %s", r.err, r.stderr)
	}
}

// awsEnv gives the AWS SDK a fixed, file-free configuration for the test.
func awsEnv(t *testing.T, extra map[string]string) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_REGION":                  "eu-west-1",
		"AWS_ACCESS_KEY_ID":           "AKIDTEST",
		"AWS_SECRET_ACCESS_KEY":       "secret",
		"AWS_CONFIG_FILE":             filepath.Join(dir, "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"),
		"AWS_PROFILE":                 "",
	} {
		t.Setenv(k, v)
	}
	for k, v := range extra {
		t.Setenv(k, v)
	}
}

// The same operator flow against DynamoDB Local, with the pepper from
// Secrets Manager named by PEPPER_SECRET_ID, as in a deployed environment.
// One long-lived Authenticator shows the cache bound: a revocation is seen
// within KEY_CACHE_TTL.
func TestDynamoDBFlow(t *testing.T) {
	client, table := dynamotest.Table(t)
	const pepper = "dynamodb-flow-pepper-0123456789abcdef"
	sm := secretstest.New(t, map[string]string{"policygen/test/pepper": pepper})
	awsEnv(t, map[string]string{
		dynamo.EndpointEnv:                 client.Endpoint(),
		"AWS_ENDPOINT_URL_SECRETS_MANAGER": sm.URL,
	})
	env := map[string]string{"PEPPER_SECRET_ID": "policygen/test/pepper"}
	ctx := context.Background()

	// table create is idempotent on the existing table and creates a new one.
	if out := ok(t, env, "--store", "dynamodb:"+table, "table", "create"); out["table"] != table {
		t.Fatalf("table create: %v", out)
	}
	fresh := table + "-ctl"
	sdk := dynamotest.SDKClient(t)
	t.Cleanup(func() { sdk.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &fresh}) })
	ok(t, env, "--store", "dynamodb:"+fresh, "table", "create")
	if d, err := sdk.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &fresh}); err != nil || d.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("table %s after table create: %v", fresh, err)
	}

	spec := "dynamodb:" + table
	out := ok(t, env, "--store", spec, "account", "create", "--email", "ops@example.com", "--plan", "agency", "--name", "Ops")
	acctID, keyID, secret := str(t, out, "accountId"), str(t, out, "keyId"), str(t, out, "apiKey")

	now := time.Now()
	a := &auth.Authenticator{
		Store:  dynamo.New(client, table),
		Hasher: &auth.Hasher{Pepper: secrets.NewStatic([]byte(pepper))},
		Now:    func() time.Time { return now },
		// As deployed: the revocation below must be seen within this bound.
		CacheTTL: auth.DefaultCacheTTL,
	}
	p, err := a.Authenticate(ctx, "Bearer "+secret)
	if err != nil || p.Account.ID != acctID || p.Key.ID != keyID {
		t.Fatalf("authenticate: %+v, %v", p, err)
	}

	k2 := ok(t, env, "--store", spec, "key", "create", "--account", acctID, "--expires-in", "720h")
	if _, err := a.Authenticate(ctx, "Bearer "+str(t, k2, "apiKey")); err != nil {
		t.Fatalf("a freshly created key: %v", err)
	}
	if set := ok(t, env, "--store", spec, "account", "set-plan", "--account", acctID, "--plan", "pro"); set["plan"] != "pro" {
		t.Fatalf("set-plan: %v", set)
	}
	if rev := ok(t, env, "--store", spec, "key", "revoke", "--key-id", keyID); rev["status"] != "revoked" {
		t.Fatalf("revoke: %v", rev)
	}

	// Within the cache lifetime the cached principal is still used ...
	now = now.Add(auth.DefaultCacheTTL - time.Second)
	if p, err := a.Authenticate(ctx, "Bearer "+secret); err != nil || p.Account.Plan != "agency" {
		t.Fatalf("within KEY_CACHE_TTL: %+v, %v", p.Account, err)
	}
	// ... and once it has passed, the revocation and the plan change show.
	now = now.Add(time.Second)
	_, err = a.Authenticate(ctx, "Bearer "+secret)
	if e := errs.As(err); e == nil || e.Code != "revoked_api_key" {
		t.Fatalf("after KEY_CACHE_TTL: %v, want revoked_api_key", err)
	}
	p, err = a.Authenticate(ctx, "Bearer "+str(t, k2, "apiKey"))
	if err != nil {
		t.Fatal(err)
	}
	if e := errs.As(auth.RequireAPIAccess(p)); e == nil || e.Code != "plan_not_entitled" {
		t.Fatalf("pro plan: %v", e)
	}

	rot := ok(t, env, "--store", spec, "key", "rotate", "--key-id", str(t, k2, "keyId"))
	if _, err := (&auth.Authenticator{Store: dynamo.New(client, table), Hasher: a.Hasher}).Authenticate(ctx, "Bearer "+str(t, rot, "apiKey")); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	if show := ok(t, env, "--store", spec, "key", "show", "--key-id", str(t, k2, "keyId")); show["status"] != "revoked" {
		t.Fatalf("old key after an immediate rotation: %v", show)
	}
}

// TestListCommands: account list and key list show every account and key
// with ids, emails, plans, prefixes, last four and states, times in whole
// seconds as the API prints them, and never a key hash.
func TestListCommands(t *testing.T) {
	spec, _ := boltSpec(t)
	a := ok(t, nil, "--store", spec, "account", "create", "--email", "a@example.com", "--plan", "agency", "--name", "Agency A")
	b := ok(t, nil, "--store", spec, "account", "create", "--email", "b@example.com", "--plan", "pro")
	aID, bID := str(t, a, "accountId"), str(t, b, "accountId")
	second := ok(t, nil, "--store", spec, "key", "create", "--account", aID)
	ok(t, nil, "--store", spec, "key", "revoke", "--key-id", str(t, second, "keyId"))
	firstKeyID := str(t, a, "keyId")

	whole := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`)
	r := ctl(t, nil, "--store", spec, "account", "list")
	if r.err != nil {
		t.Fatal(r.err, r.stderr)
	}
	var listed struct {
		Accounts []struct {
			AccountID, Email, Plan, CreatedAt string
			Keys                              []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Accounts) != 2 || listed.Accounts[0].AccountID != aID || listed.Accounts[1].AccountID != bID {
		t.Fatalf("account list = %s", r.stdout)
	}
	got := listed.Accounts[0]
	if got.Email != "a@example.com" || got.Plan != "agency" || !whole.MatchString(got.CreatedAt) || len(got.Keys) != 2 {
		t.Errorf("account A = %+v", got)
	}
	states := map[string]string{}
	for _, k := range got.Keys {
		states[k["keyId"].(string)] = k["status"].(string)
		if k["prefix"] != "pol_live_" || len(k["last4"].(string)) != 4 || !whole.MatchString(k["createdAt"].(string)) {
			t.Errorf("key %v", k)
		}
	}
	if states[firstKeyID] != "active" || states[str(t, second, "keyId")] != "revoked" {
		t.Errorf("key states %v", states)
	}
	if len(listed.Accounts[1].Keys) != 1 || listed.Accounts[1].Plan != "pro" {
		t.Errorf("account B = %+v", listed.Accounts[1])
	}

	kl := ok(t, nil, "--store", spec, "key", "list", "--account", aID)
	if kl["accountId"] != aID || len(kl["keys"].([]any)) != 2 {
		t.Errorf("key list = %v", kl)
	}
	rk := ctl(t, nil, "--store", spec, "key", "list", "--account", aID)

	// No hash anywhere: read them from the store and look for them.
	st, err := bolt.Open(strings.TrimPrefix(spec, "bolt:"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := st.AccountKeys(t.Context(), aID)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Hash == "" || strings.Contains(r.stdout, k.Hash) || strings.Contains(rk.stdout, k.Hash) {
			t.Errorf("key %s: hash %q printed (or empty)", k.ID, k.Hash)
		}
	}
	if strings.Contains(r.stdout+rk.stdout, `"hash"`) {
		t.Error("a hash field is printed")
	}

	if r := ctl(t, nil, "--store", spec, "key", "list", "--account", "acct_nope"); r.err == nil || !strings.Contains(r.stderr, "account not found") {
		t.Errorf("key list of an unknown account: %v %q", r.err, r.stderr)
	}
	if r := ctl(t, nil, "--store", spec, "key", "list"); !errors.As(r.err, new(usageError)) || !strings.Contains(r.stderr, "--account is required") {
		t.Errorf("key list without --account: %v %q", r.err, r.stderr)
	}
}

// An operator-made account gets a dashboard password from standard input;
// the hash verifies it, and a second run replaces it.
func TestUserSetPassword(t *testing.T) {
	spec, _ := boltSpec(t)
	acct := str(t, ok(t, nil, "--store", spec, "account", "create", "--email", "Ops@Example.com", "--plan", "agency"), "accountId")

	r := ctl(t, map[string]string{"STDIN": "short\n"}, "--store", spec, "user", "set-password", "--account", acct)
	if !errors.As(r.err, new(usageError)) || !strings.Contains(r.stderr, "at least 15") {
		t.Errorf("short password: err %v, stderr %q", r.err, r.stderr)
	}
	r = ctl(t, map[string]string{"STDIN": ""}, "--store", spec, "user", "set-password", "--account", acct)
	if !errors.As(r.err, new(usageError)) || !strings.Contains(r.stderr, "standard input") {
		t.Errorf("no password: err %v, stderr %q", r.err, r.stderr)
	}
	out := ok(t, map[string]string{"STDIN": "first long password here\n"}, "--store", spec, "user", "set-password", "--account", acct)
	if out["email"] != "ops@example.com" || out["accountId"] != acct || out["created"] != true {
		t.Errorf("first set-password: %v", out)
	}
	out = ok(t, map[string]string{"STDIN": "second long password here\r\n"}, "--store", spec, "user", "set-password", "--account", acct)
	if out["created"] != false {
		t.Errorf("second set-password: %v", out)
	}
	r = ctl(t, map[string]string{"STDIN": "third long password here\n"}, "--store", spec, "user", "set-password", "--account", "acct_01m82xvb7n10fcevd8n4njd44f")
	if r.err == nil || !strings.Contains(r.stderr, "account not found") {
		t.Errorf("unknown account: err %v, stderr %q", r.err, r.stderr)
	}

	st, err := bolt.Open(strings.TrimPrefix(spec, "bolt:"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.User(context.Background(), "ops@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if u.AccountID != acct || !passwords.Verify(u.PasswordHash, "second long password here") || passwords.Verify(u.PasswordHash, "first long password here") {
		t.Errorf("stored user %+v does not hold the second password", u)
	}
}
