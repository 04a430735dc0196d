package functions_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/lambdaenv"
	"github.com/policygen/policygen/pkg/web"
)

// repoRoot is the module root: tests run in functions/.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// function is one AWS::Serverless::Function of template.yaml.
type function struct {
	LogicalID string
	Node      *yaml.Node // the resource mapping
}

// template is template.yaml as a YAML node tree. CloudFormation short forms
// (!Ref, !Sub, !GetAtt) are custom tags, which a typed decode rejects; on a
// yaml.Node they are just tagged scalars and sequences.
type template struct {
	root *yaml.Node
}

func loadTemplate(t testing.TB) template {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatal("template.yaml: not a YAML mapping")
	}
	return template{root: doc.Content[0]}
}

// get follows a path of mapping keys; nil if any step is missing.
func get(n *yaml.Node, path ...string) *yaml.Node {
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
				break
			}
		}
		n = next
	}
	return n
}

// scalar is the value of the scalar at path, "" if absent or not a plain
// (untagged) scalar.
func scalar(n *yaml.Node, path ...string) string {
	v := get(n, path...)
	if v == nil || v.Kind != yaml.ScalarNode || strings.HasPrefix(v.Tag, "!") && !strings.HasPrefix(v.Tag, "!!") {
		return ""
	}
	return v.Value
}

// scalars returns the scalar items of a sequence, or the scalar itself.
func scalars(n *yaml.Node) []string {
	switch {
	case n == nil:
		return nil
	case n.Kind == yaml.ScalarNode:
		return []string{n.Value}
	case n.Kind == yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind == yaml.ScalarNode {
				out = append(out, c.Value)
			}
		}
		return out
	}
	return nil
}

// children is a node's items, nil for a missing node.
func children(n *yaml.Node) []*yaml.Node {
	if n == nil {
		return nil
	}
	return n.Content
}

// pairs iterates a mapping's key/value pairs.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	return out
}

func (tp template) resources(typ string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for _, kv := range pairs(get(tp.root, "Resources")) {
		if scalar(kv[1], "Type") == typ {
			out[kv[0].Value] = kv[1]
		}
	}
	return out
}

func (tp template) functions() []function {
	var out []function
	for id, n := range tp.resources("AWS::Serverless::Function") {
		out = append(out, function{LogicalID: id, Node: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LogicalID < out[j].LogicalID })
	return out
}

// httpAPIEvents returns the HttpApi events of a function as "METHOD path";
// an event without Path and Method is the $default route.
func httpAPIEvents(t *testing.T, fn function) []string {
	t.Helper()
	var out []string
	for _, kv := range pairs(get(fn.Node, "Properties", "Events")) {
		if scalar(kv[1], "Type") != "HttpApi" {
			t.Errorf("%s: event %s has type %q, want HttpApi", fn.LogicalID, kv[0].Value, scalar(kv[1], "Type"))
			continue
		}
		if api := get(kv[1], "Properties", "ApiId"); api == nil || api.Tag != "!Ref" || api.Value != "HttpApi" {
			t.Errorf("%s: event %s is not attached with ApiId: !Ref HttpApi", fn.LogicalID, kv[0].Value)
		}
		method, path := scalar(kv[1], "Properties", "Method"), scalar(kv[1], "Properties", "Path")
		if method == "" && path == "" {
			out = append(out, "$default")
			continue
		}
		out = append(out, strings.ToUpper(method)+" "+path)
	}
	return out
}

func TestTemplateRoutesMatchAPIRouteTable(t *testing.T) {
	tp := loadTemplate(t)
	var want []string
	for _, r := range api.Routes() {
		want = append(want, r.Method+" "+r.Path)
	}
	var got []string
	defaults := 0
	for _, fn := range tp.functions() {
		evs := httpAPIEvents(t, fn)
		if fn.LogicalID == "DashboardFunction" {
			// The dashboard serves its pages, each its own route.
			var pages []string
			for _, r := range web.Routes() {
				pages = append(pages, r.Method+" "+r.Path)
			}
			slices.Sort(pages)
			slices.Sort(evs)
			if !slices.Equal(evs, pages) {
				t.Errorf("DashboardFunction routes:\n  %v\nweb.Routes():\n  %v", evs, pages)
			}
			continue
		}
		if len(evs) != 1 {
			t.Errorf("%s: %d HttpApi events, want exactly 1 (one function per route)", fn.LogicalID, len(evs))
		}
		for _, ev := range evs {
			if ev == "$default" {
				defaults++
				continue
			}
			got = append(got, ev)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("template.yaml routes:\n  %v\napi.Routes():\n  %v", got, want)
	}
	if defaults != 1 {
		t.Errorf("%d functions on the $default route, want 1 (the problem+json fallback)", defaults)
	}
}

// wantFunctions is the LogicalId -> functions/<dir> contract (contracts.md).
var wantFunctions = map[string]string{
	"GeneratePolicyFunction":       "generate-policy",
	"ListPoliciesFunction":         "list-policies",
	"GetPolicyFunction":            "get-policy",
	"DeletePolicyFunction":         "delete-policy",
	"GetProfileFunction":           "get-profile",
	"GetCatalogFunction":           "get-catalog",
	"BulkGeneratePoliciesFunction": "bulk-generate-policies",
	"DashboardFunction":            "dashboard",
	"FallbackFunction":             "fallback",
}

func TestTemplateFunctionsBuildWithMakefile(t *testing.T) {
	tp := loadTemplate(t)
	globals := get(tp.root, "Globals", "Function")
	// A property set on the function wins over Globals (SAM merges maps and
	// overrides scalars), so check the effective value.
	effective := func(fn function, key string) *yaml.Node {
		if v := get(fn.Node, "Properties", key); v != nil {
			return v
		}
		return get(globals, key)
	}
	targets := makeTargets(t)
	fns := tp.functions()
	if len(fns) != len(wantFunctions) {
		t.Errorf("template has %d functions, want %d", len(fns), len(wantFunctions))
	}
	for _, fn := range fns {
		t.Run(fn.LogicalID, func(t *testing.T) {
			dir, ok := wantFunctions[fn.LogicalID]
			if !ok {
				t.Fatalf("unexpected function %s", fn.LogicalID)
			}
			if got := scalar(fn.Node, "Metadata", "BuildMethod"); got != "makefile" {
				t.Errorf("Metadata.BuildMethod = %q, want makefile", got)
			}
			if got := scalar(fn.Node, "Properties", "CodeUri"); got != "." {
				t.Errorf("CodeUri = %q, want .", got)
			}
			if got := scalars(effective(fn, "Architectures")); !slices.Equal(got, []string{"arm64"}) {
				t.Errorf("Architectures = %v, want [arm64]", got)
			}
			if got := scalar(effective(fn, "Runtime")); got != "provided.al2023" {
				t.Errorf("Runtime = %q, want provided.al2023", got)
			}
			if got := scalar(effective(fn, "Handler")); got != "bootstrap" {
				t.Errorf("Handler = %q, want bootstrap", got)
			}
			if got := scalar(globals, "LoggingConfig", "LogFormat"); got != "JSON" {
				t.Errorf("Globals LoggingConfig.LogFormat = %q, want JSON", got)
			}
			if got, want := targets["build-"+fn.LogicalID], "./functions/"+dir; got != want {
				t.Errorf("Makefile target build-%s builds %q, want %q", fn.LogicalID, got, want)
			}
			if _, err := os.Stat(filepath.Join(repoRoot(t), "functions", dir, "main.go")); err != nil {
				t.Errorf("functions/%s/main.go: %v", dir, err)
			}
		})
	}
	for _, env := range []string{"TABLE_NAME", "PEPPER_SECRET_ID", "KEY_CACHE_TTL", "LOG_LEVEL"} {
		if get(globals, "Environment", "Variables", env) == nil {
			t.Errorf("Globals.Function.Environment.Variables lacks %s", env)
		}
	}
}

// makeTargets maps each build-* target of the Makefile to the package its
// recipe builds.
func makeTargets(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	rule := regexp.MustCompile(`^(build-[A-Za-z0-9]+):`)
	pkg := regexp.MustCompile(`\$\(LAMBDA_BUILD\)\s+(\S+)`)
	var current string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := rule.FindStringSubmatch(line); m != nil {
			current = m[1]
			continue
		}
		if current != "" && strings.HasPrefix(line, "\t") {
			if m := pkg.FindStringSubmatch(line); m != nil {
				out[current] = m[1]
			}
			continue
		}
		current = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTemplateTableMatchesStoreSchema(t *testing.T) {
	tp := loadTemplate(t)
	tables := tp.resources("AWS::DynamoDB::Table")
	if len(tables) != 1 {
		t.Fatalf("%d DynamoDB tables, want 1", len(tables))
	}
	for id, tbl := range tables {
		p := get(tbl, "Properties")
		keys := map[string]string{}
		for _, k := range children(get(p, "KeySchema")) {
			keys[scalar(k, "AttributeName")] = scalar(k, "KeyType")
		}
		if len(keys) != 2 || keys["pk"] != "HASH" || keys["sk"] != "RANGE" {
			t.Errorf("%s KeySchema = %v, want pk HASH, sk RANGE", id, keys)
		}
		attrs := map[string]string{}
		for _, a := range children(get(p, "AttributeDefinitions")) {
			attrs[scalar(a, "AttributeName")] = scalar(a, "AttributeType")
		}
		if len(attrs) != 2 || attrs["pk"] != "S" || attrs["sk"] != "S" {
			t.Errorf("%s AttributeDefinitions = %v, want pk S, sk S (and no index attributes)", id, attrs)
		}
		if get(p, "GlobalSecondaryIndexes") != nil || get(p, "LocalSecondaryIndexes") != nil {
			t.Errorf("%s has secondary indexes; the store uses none", id)
		}
		checks := []struct {
			path []string
			want string
		}{
			{[]string{"BillingMode"}, "PAY_PER_REQUEST"},
			{[]string{"TimeToLiveSpecification", "AttributeName"}, "ttl"},
			{[]string{"TimeToLiveSpecification", "Enabled"}, "true"},
			{[]string{"PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled"}, "true"},
			{[]string{"SSESpecification", "SSEEnabled"}, "true"},
		}
		for _, c := range checks {
			if got := scalar(p, c.path...); got != c.want {
				t.Errorf("%s %s = %q, want %q", id, strings.Join(c.path, "."), got, c.want)
			}
		}
		if dp := get(p, "DeletionProtectionEnabled"); dp == nil || dp.Tag != "!Ref" || dp.Value != "DeletionProtection" {
			t.Errorf("%s DeletionProtectionEnabled is not !Ref DeletionProtection", id)
		}
	}
}

func TestTemplateIAMIsLeastPrivilege(t *testing.T) {
	tp := loadTemplate(t)
	// What each route's store calls need (see docs/DEPLOY.md, "IAM").
	want := map[string][]string{
		// Every route counts the request against the key's rate (UpdateItem);
		// generate also claims (PutItem) and releases (DeleteItem) idempotency keys.
		"GeneratePolicyFunction":       {"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "secretsmanager:GetSecretValue"},
		"ListPoliciesFunction":         {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem", "secretsmanager:GetSecretValue"},
		"GetPolicyFunction":            {"dynamodb:GetItem", "dynamodb:UpdateItem", "secretsmanager:GetSecretValue"},
		"DeletePolicyFunction":         {"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:UpdateItem", "secretsmanager:GetSecretValue"},
		"GetProfileFunction":           {"dynamodb:GetItem", "dynamodb:UpdateItem", "secretsmanager:GetSecretValue"},
		"GetCatalogFunction":           {"dynamodb:GetItem", "dynamodb:UpdateItem", "secretsmanager:GetSecretValue"},
		"BulkGeneratePoliciesFunction": {"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "secretsmanager:GetSecretValue"},
		// The dashboard also issues keys (CreateKey checks the account
		// exists: ConditionCheckItem) and lists policies and keys (Query).
		"DashboardFunction": {"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem", "secretsmanager:GetSecretValue"},
		"FallbackFunction":  nil,
	}
	for _, fn := range tp.functions() {
		t.Run(fn.LogicalID, func(t *testing.T) {
			var actions []string
			for _, pol := range children(get(fn.Node, "Properties", "Policies")) {
				if pol.Kind != yaml.MappingNode {
					t.Errorf("policy %q is not an inline statement list; name every action", pol.Value)
					continue
				}
				for _, st := range children(get(pol, "Statement")) {
					if got := scalar(st, "Effect"); got != "Allow" {
						t.Errorf("statement Effect = %q", got)
					}
					res := get(st, "Resource")
					switch {
					case res == nil || res.Kind != yaml.ScalarNode:
						t.Errorf("statement %v: Resource must be one resource of this stack", scalars(get(st, "Action")))
					case res.Value == "*" || strings.Contains(res.Value, "*"):
						t.Errorf("statement Resource %q uses a wildcard", res.Value)
					case res.Tag != "!GetAtt" && res.Tag != "!Ref":
						t.Errorf("statement Resource %q is not a !Ref/!GetAtt of this stack", res.Value)
					}
					for _, a := range scalars(get(st, "Action")) {
						if strings.Contains(a, "*") {
							t.Errorf("action %q uses a wildcard", a)
						}
						actions = append(actions, a)
					}
				}
			}
			slices.Sort(actions)
			if !slices.Equal(actions, want[fn.LogicalID]) {
				t.Errorf("actions = %v, want %v", actions, want[fn.LogicalID])
			}
		})
	}
}

func TestTemplateOutputsAndParameters(t *testing.T) {
	tp := loadTemplate(t)
	if got := scalar(tp.root, "Transform"); got != "AWS::Serverless-2016-10-31" {
		t.Errorf("Transform = %q", got)
	}
	for _, p := range []string{"EnvironmentName", "DeletionProtection", "KeyCacheTTL", "LogLevel"} {
		if get(tp.root, "Parameters", p) == nil {
			t.Errorf("parameter %s missing", p)
		}
	}
	if got := scalars(get(tp.root, "Parameters", "EnvironmentName", "AllowedValues")); !slices.Equal(got, []string{"dev", "staging", "prod"}) {
		t.Errorf("EnvironmentName AllowedValues = %v", got)
	}
	apis := tp.resources("AWS::Serverless::HttpApi")
	if len(apis) != 1 || apis["HttpApi"] == nil {
		t.Fatalf("want exactly one AWS::Serverless::HttpApi named HttpApi, have %d", len(apis))
	}
	if got := scalar(apis["HttpApi"], "Properties", "StageName"); got != "$default" {
		t.Errorf("HttpApi StageName = %q, want $default (a named stage prefixes every path)", got)
	}
	if get(apis["HttpApi"], "Properties", "AccessLogSettings", "DestinationArn") == nil {
		t.Error("HttpApi has no access log destination")
	}
	for _, lg := range tp.resources("AWS::Logs::LogGroup") {
		if get(lg, "Properties", "RetentionInDays") == nil {
			t.Errorf("log group %s has no retention", scalar(lg, "Properties", "LogGroupName"))
		}
	}
	secret := tp.resources("AWS::SecretsManager::Secret")
	if len(secret) != 1 {
		t.Fatalf("%d secrets, want 1", len(secret))
	}
	for id, s := range secret {
		if get(s, "Properties", "SecretString") != nil || get(s, "Properties", "GenerateSecretString") == nil {
			t.Errorf("%s must generate its value (GenerateSecretString), never hold it", id)
		}
	}
	// The custom domain when there is one, else the execute-api endpoint.
	url := get(tp.root, "Outputs", "ApiUrl", "Value")
	if url == nil || url.Tag != "!If" || len(url.Content) != 3 || url.Content[0].Value != "HasDomain" ||
		url.Content[1].Value != "https://${DomainName}/v1" ||
		url.Content[2].Value != "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/v1" {
		t.Errorf("Outputs.ApiUrl = %v", url)
	}
	for _, o := range []string{"TableName", "PepperSecretArn"} {
		if get(tp.root, "Outputs", o, "Value") == nil {
			t.Errorf("output %s missing", o)
		}
	}
}

// TestTemplateCfnLint runs cfn-lint (which applies the SAM transform first)
// when it is installed: it knows every resource's property names, which the
// tests above do not.
func TestTemplateCfnLint(t *testing.T) {
	bin, err := exec.LookPath("cfn-lint")
	if err != nil {
		// The Go machine image ships cfn-lint with its Python (pyenv), whose
		// shims may be missing from a non-login PATH.
		for _, dir := range []string{os.Getenv("PYENV_ROOT"), filepath.Join(os.Getenv("HOME"), ".pyenv")} {
			if p := filepath.Join(dir, "shims", "cfn-lint"); dir != "" && exec.Command(p, "--version").Run() == nil {
				bin, err = p, nil
				break
			}
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("cfn-lint not found; CI must lint the template (the machine image provides cfn-lint 1.51)")
		}
		t.Skip("cfn-lint not installed")
	}
	cmd := exec.Command(bin, "--", filepath.Join(repoRoot(t), "template.yaml"))
	cmd.Env = append(os.Environ(), "AWS_DEFAULT_REGION=eu-west-1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("cfn-lint template.yaml: %v\n%s", err, out)
	}
}

// samconfig reads samconfig.toml's flat tables ([env.command.parameters])
// into section -> key -> value, unquoting strings. The file uses only
// strings and booleans, so a line parser is enough (no TOML dependency).
func samconfig(t *testing.T) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "samconfig.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{"": {}}
	section := ""
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			if _, dup := out[section]; dup {
				t.Errorf("samconfig.toml:%d: section [%s] repeated", i+1, section)
			}
			out[section] = map[string]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("samconfig.toml:%d: cannot read %q", i+1, line)
			}
			out[section][strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return out
}

func TestSamconfigEnvironments(t *testing.T) {
	cfg := samconfig(t)
	tp := loadTemplate(t)
	if cfg[""]["version"] != "0.1" {
		t.Errorf("version = %q, want 0.1", cfg[""]["version"])
	}
	for _, env := range []string{"dev", "staging", "prod"} {
		t.Run(env, func(t *testing.T) {
			p, ok := cfg[env+".deploy.parameters"]
			if !ok {
				t.Fatalf("no [%s.deploy.parameters]", env)
			}
			if p["stack_name"] != "policygen-"+env || p["region"] == "" || p["resolve_s3"] != "true" {
				t.Errorf("stack_name %q, region %q, resolve_s3 %q", p["stack_name"], p["region"], p["resolve_s3"])
			}
			if !strings.Contains(p["capabilities"], "CAPABILITY_IAM") {
				t.Errorf("capabilities = %q: the stack creates IAM roles", p["capabilities"])
			}
			if want := strconv.FormatBool(env == "prod"); p["confirm_changeset"] != want {
				t.Errorf("confirm_changeset = %q, want %s", p["confirm_changeset"], want)
			}
			overrides := map[string]string{}
			for _, kv := range strings.Fields(p["parameter_overrides"]) {
				k, v, _ := strings.Cut(kv, "=")
				overrides[k] = v
				param := get(tp.root, "Parameters", k)
				if param == nil {
					t.Errorf("parameter_overrides sets %s, which template.yaml does not declare", k)
					continue
				}
				if allowed := scalars(get(param, "AllowedValues")); allowed != nil && !slices.Contains(allowed, v) {
					t.Errorf("%s=%s is not one of %v", k, v, allowed)
				}
			}
			if overrides["EnvironmentName"] != env {
				t.Errorf("EnvironmentName = %q, want %s", overrides["EnvironmentName"], env)
			}
			if want := strconv.FormatBool(env == "prod"); overrides["DeletionProtection"] != want {
				t.Errorf("DeletionProtection = %q, want %s", overrides["DeletionProtection"], want)
			}
		})
	}
}

// TestKeyCacheTTLParameterFitsFunctions: every KeyCacheTTL the template's
// AllowedPattern lets through must be accepted by the functions' own
// configuration check, or a deploy succeeds and every cold start fails.
func TestKeyCacheTTLParameterFitsFunctions(t *testing.T) {
	param := get(loadTemplate(t).root, "Parameters", "KeyCacheTTL")
	pattern, err := regexp.Compile(scalar(param, "AllowedPattern"))
	if err != nil {
		t.Fatalf("KeyCacheTTL AllowedPattern: %v", err)
	}
	candidates := []string{scalar(param, "Default"), "0s", "0ms", "0m", "1ms", "999ms", "30s", "59s", "90s",
		"599s", "600s", "601s", "1000s", "9m", "10m", "11m", "15m", "99m", "600000ms", "600001ms", "999999ms",
		"1h", "30", "-1s", "1.5s", "30S", " 30s"}
	for _, env := range []string{"dev", "staging", "prod"} {
		for _, kv := range strings.Fields(samconfig(t)[env+".deploy.parameters"]["parameter_overrides"]) {
			if v, ok := strings.CutPrefix(kv, "KeyCacheTTL="); ok {
				candidates = append(candidates, v)
				if !pattern.MatchString(v) {
					t.Errorf("samconfig %s: KeyCacheTTL=%s is refused by the template's AllowedPattern", env, v)
				}
			}
		}
	}
	for _, v := range candidates {
		if !pattern.MatchString(v) {
			continue
		}
		getenv := func(k string) string {
			return map[string]string{"TABLE_NAME": "t", "PEPPER_SECRET_ID": "s", "KEY_CACHE_TTL": v}[k]
		}
		if _, err := lambdaenv.Load(getenv); err != nil {
			t.Errorf("KeyCacheTTL=%q passes the AllowedPattern but a function refuses it: %v", v, err)
		}
	}
	if !pattern.MatchString(scalar(param, "Default")) {
		t.Errorf("the default %q does not match the AllowedPattern", scalar(param, "Default"))
	}
}

// TestTemplateCustomDomain: the optional custom domain is CloudFront with
// HTTP redirected to HTTPS, passing every method, header and query through
// uncached; every new resource depends on its parameter, so a stack without
// a domain is as before; the default endpoint is disabled only when the
// origin domain exists to replace it.
func TestTemplateCustomDomain(t *testing.T) {
	tp := loadTemplate(t)
	for _, p := range []string{"DomainName", "CertificateArn", "OriginDomainName", "OriginCertificateArn"} {
		if n := get(tp.root, "Parameters", p, "Default"); n == nil || n.Value != "" {
			t.Errorf("parameter %s must default to empty (no domain)", p)
		}
	}
	if got := scalar(tp.root, "Parameters", "DisableDefaultEndpoint", "Default"); got != "false" {
		t.Errorf("DisableDefaultEndpoint default = %q", got)
	}
	for id, cond := range map[string]string{"Distribution": "HasDomain", "OriginDomain": "HasOriginDomain", "OriginDomainMapping": "HasOriginDomain"} {
		if got := scalar(tp.root, "Resources", id, "Condition"); got != cond {
			t.Errorf("%s Condition = %q, want %s", id, got, cond)
		}
	}
	dcb := get(tp.root, "Resources", "Distribution", "Properties", "DistributionConfig", "DefaultCacheBehavior")
	if got := scalar(dcb, "ViewerProtocolPolicy"); got != "redirect-to-https" {
		t.Errorf("ViewerProtocolPolicy = %q", got)
	}
	methods := scalars(get(dcb, "AllowedMethods"))
	for _, m := range []string{"GET", "POST", "DELETE"} {
		if !slices.Contains(methods, m) {
			t.Errorf("AllowedMethods %v lacks %s", methods, m)
		}
	}
	// AWS managed policies: CachingDisabled, AllViewerExceptHostHeader.
	if scalar(dcb, "CachePolicyId") != "4135ea2d-6df8-44a3-9df3-4b5a84be39ad" || scalar(dcb, "OriginRequestPolicyId") != "b689b0a8-53d0-40ab-baf2-68738e2966ac" {
		t.Errorf("cache/origin request policies: %q %q", scalar(dcb, "CachePolicyId"), scalar(dcb, "OriginRequestPolicyId"))
	}
	cfg := get(tp.root, "Resources", "Distribution", "Properties", "DistributionConfig")
	if scalar(cfg, "ViewerCertificate", "MinimumProtocolVersion") != "TLSv1.2_2021" || scalar(cfg, "ViewerCertificate", "SslSupportMethod") != "sni-only" {
		t.Errorf("ViewerCertificate: %v", get(cfg, "ViewerCertificate"))
	}
	origin := get(cfg, "Origins").Content[0]
	if scalar(origin, "CustomOriginConfig", "OriginProtocolPolicy") != "https-only" {
		t.Error("CloudFront must reach the API over HTTPS only")
	}
	dis := get(tp.root, "Resources", "HttpApi", "Properties", "DisableExecuteApiEndpoint")
	if dis == nil || dis.Tag != "!If" || dis.Content[0].Value != "DisableExecuteApi" {
		t.Errorf("DisableExecuteApiEndpoint = %v, want !If [DisableExecuteApi, ...]", dis)
	}
	// Disabling needs the origin domain: otherwise CloudFront's origin (the
	// execute-api endpoint) would be switched off under it.
	cond := get(tp.root, "Conditions", "DisableExecuteApi")
	needsOrigin := cond != nil && cond.Tag == "!And" && slices.ContainsFunc(cond.Content, func(n *yaml.Node) bool {
		return n.Tag == "!Condition" && n.Value == "HasOriginDomain"
	})
	if !needsOrigin {
		t.Errorf("Conditions.DisableExecuteApi must be !And [!Condition HasOriginDomain, ...]")
	}
}
