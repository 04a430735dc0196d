package lambdaenv_test

import (
	"log/slog"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/lambdaenv"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoad(t *testing.T) {
	base := map[string]string{
		"TABLE_NAME":       "policygen-dev",
		"PEPPER_SECRET_ID": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:policygen/dev/key-pepper-AbCdEf",
	}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    lambdaenv.Config
		wantErr []string // substrings, all of which must appear
	}{
		{
			name: "defaults",
			env:  base,
			want: lambdaenv.Config{TableName: "policygen-dev", PepperSecretID: base["PEPPER_SECRET_ID"], KeyCacheTTL: 5 * time.Second, LogLevel: slog.LevelInfo},
		},
		{
			name: "everything set",
			env:  with("KEY_CACHE_TTL", "5s", "LOG_LEVEL", "debug"),
			want: lambdaenv.Config{TableName: "policygen-dev", PepperSecretID: base["PEPPER_SECRET_ID"], KeyCacheTTL: 5 * time.Second, LogLevel: slog.LevelDebug},
		},
		{
			name: "cache off",
			env:  with("KEY_CACHE_TTL", "0s", "LOG_LEVEL", "WARN"),
			want: lambdaenv.Config{TableName: "policygen-dev", PepperSecretID: base["PEPPER_SECRET_ID"], KeyCacheTTL: 0, LogLevel: slog.LevelWarn},
		},
		{
			name:    "nothing set names both required variables",
			env:     map[string]string{},
			wantErr: []string{"TABLE_NAME is not set", "PEPPER_SECRET_ID is not set"},
		},
		{
			name:    "bad duration and level reported together",
			env:     with("KEY_CACHE_TTL", "thirty", "LOG_LEVEL", "LOUD"),
			wantErr: []string{`KEY_CACHE_TTL="thirty"`, `LOG_LEVEL="LOUD"`},
		},
		{
			name:    "negative ttl",
			env:     with("KEY_CACHE_TTL", "-1s"),
			wantErr: []string{"KEY_CACHE_TTL"},
		},
		{
			name:    "ttl above the cap",
			env:     with("KEY_CACHE_TTL", "1h"),
			wantErr: []string{"outside 0s..10m0s"},
		},
		{
			name: "SAM local: pepper and DynamoDB Local endpoint from the environment, no secret needed",
			env: map[string]string{"TABLE_NAME": "policygen-local", "AWS_SAM_LOCAL": "true",
				"PEPPER": "0123456789abcdef0123456789abcdef", "DYNAMODB_ENDPOINT": "http://host.docker.internal:8000"},
			want: lambdaenv.Config{TableName: "policygen-local", KeyCacheTTL: 5 * time.Second, LogLevel: slog.LevelInfo,
				Pepper: []byte("0123456789abcdef0123456789abcdef"), DynamoDBEndpoint: "http://host.docker.internal:8000"},
		},
		{
			// In AWS (no AWS_SAM_LOCAL) a pepper in the environment is a
			// mistake that would bypass Secrets Manager: refused.
			name:    "PEPPER and DYNAMODB_ENDPOINT refused outside SAM local",
			env:     with("PEPPER", "0123456789abcdef0123456789abcdef", "DYNAMODB_ENDPOINT", "http://x:8000"),
			wantErr: []string{"PEPPER is read only under SAM local emulation", "DYNAMODB_ENDPOINT is read only under SAM local"},
		},
		{
			name:    "a short pepper is refused",
			env:     map[string]string{"TABLE_NAME": "t", "AWS_SAM_LOCAL": "true", "PEPPER": "short"},
			wantErr: []string{"PEPPER holds 5 bytes"},
		},
		{
			// The template declares both variables empty, so that SAM can
			// fill them from env.json: empty means unset.
			name: "empty PEPPER and DYNAMODB_ENDPOINT as deployed",
			env:  with("PEPPER", "", "DYNAMODB_ENDPOINT", ""),
			want: lambdaenv.Config{TableName: "policygen-dev", PepperSecretID: base["PEPPER_SECRET_ID"], KeyCacheTTL: 5 * time.Second, LogLevel: slog.LevelInfo},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lambdaenv.Load(env(tt.env))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Load = %+v, want an error", got)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Load = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestDeps keeps every function binary lean: each links lambdaenv (the
// fallback) or awsenv (every other function), so what they import ships in
// the binaries, and every package init runs at each cold start. Neither may
// link the SDK's default config loader (config.LoadDefaultConfig and the
// STS, SSO, SSO OIDC and sign-in clients of its credential chain), and
// lambdaenv, the fallback's whole wiring, links no AWS SDK at all, and none
// of the domain either: it answers with pkg/api/wire alone (docs/DECISIONS.md
// 41).
func TestDeps(t *testing.T) {
	common := []string{
		"go.etcd.io/bbolt",
		"github.com/policygen/policygen/pkg/backend",
		"github.com/policygen/policygen/pkg/store/bolt",
		"github.com/policygen/policygen/pkg/store/storetest",
		"github.com/policygen/policygen/pkg/store/dynamo/dynamotest",
		"go.yaml.in/yaml",
		"gopkg.in/yaml.v3",
		"github.com/santhosh-tekuri/jsonschema",
		"testing",
		"github.com/aws/aws-sdk-go-v2/config",
		"github.com/aws/aws-sdk-go-v2/service/sts",
		"github.com/aws/aws-sdk-go-v2/service/sso",
		"github.com/aws/aws-sdk-go-v2/service/ssooidc",
		"github.com/aws/aws-sdk-go-v2/service/signin",
		"github.com/aws/aws-sdk-go-v2/feature/ec2/imds",
		// The SDK's DynamoDB client compiles its endpoint table's
		// regular expressions at init and resolves endpoint rules,
		// retryers and auth schemes when made: about 0.75 ms of every
		// cold start. pkg/ddb speaks the protocol itself with the SDK's
		// types (docs/DECISIONS.md, 44); from v1.69.0 on the client also
		// builds serialization schemas at init (26).
		"github.com/aws/aws-sdk-go-v2/service/dynamodb/internal",
		"github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas",
		// attributevalue links the DynamoDB Streams types, whose schemas
		// package builds its schemas at init; pkg/store/dynamo reads and
		// writes attributes itself (docs/DECISIONS.md, 33).
		"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue",
		"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams",
		// pkg/secrets/awssecrets makes its one call itself for the same
		// reason (schemas and endpoint tables built at init).
		"github.com/aws/aws-sdk-go-v2/service/secretsmanager",
		// The regexp package's init sets up the unicode tables
		// regexp/syntax refers to, and html/template's compiles two
		// regular expressions: together about 0.4 ms of a cold start. The
		// dashboard's pages are escaped when written (pkg/web escape.go)
		// and pkg/policy reads placeholders itself (docs/DECISIONS.md 46).
		"regexp",
		"html/template",
	}
	// Password hashing (argon2, and golang.org/x/sys/cpu's init with it) is
	// the dashboard's only: pkg/auth/passwords.
	passwords := []string{
		"github.com/policygen/policygen/pkg/auth/passwords",
		"golang.org/x/crypto/argon2",
		"golang.org/x/sys/cpu",
	}
	for pkg, forbidden := range map[string][]string{
		"github.com/policygen/policygen/pkg/lambdaenv": slices.Concat(common, passwords, []string{
			"github.com/policygen/policygen/pkg/web",
			"github.com/aws/aws-sdk-go-v2",
			"github.com/aws/smithy-go",
			"github.com/policygen/policygen/pkg/store/dynamo",
			"github.com/policygen/policygen/pkg/secrets/awssecrets",
			"github.com/policygen/policygen/pkg/lambdaenv/awsenv",
			"github.com/policygen/policygen/pkg/policy",
			"github.com/policygen/policygen/pkg/compliance",
			"github.com/policygen/policygen/pkg/catalog",
			"github.com/policygen/policygen/pkg/store",
			"github.com/policygen/policygen/pkg/auth",
			"github.com/policygen/policygen/pkg/account",
		}),
		// Only the dashboard's function (dashboardenv) links pkg/web.
		"github.com/policygen/policygen/pkg/lambdaenv/awsenv":       slices.Concat(common, passwords, []string{"github.com/policygen/policygen/pkg/web"}),
		"github.com/policygen/policygen/pkg/lambdaenv/dashboardenv": common,
	} {
		// As the functions are built: without the tag, aws-lambda-go
		// links net/rpc, and html/template with it.
		out, err := exec.Command("go", "list", "-tags", "lambda.norpc", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			// The client's own package, whose types subpackage is fine.
			if dep == "github.com/aws/aws-sdk-go-v2/service/dynamodb" {
				t.Errorf("%s depends on %s", pkg, dep)
			}
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// The fallback links no pkg/auth, so lambdaenv writes the default out.
func TestDefaultKeyCacheTTLIsAuths(t *testing.T) {
	if lambdaenv.DefaultKeyCacheTTL != auth.DefaultCacheTTL {
		t.Errorf("DefaultKeyCacheTTL = %s, auth.DefaultCacheTTL = %s", lambdaenv.DefaultKeyCacheTTL, auth.DefaultCacheTTL)
	}
}
