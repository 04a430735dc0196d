package functions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/policygen/policygen/internal/testenv"
	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/auth/passwords"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/secrets/secretstest"
	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

// ---------------------------------------------------------------------------
// An in-test Lambda Runtime API (the HTTP interface a provided.al2023
// bootstrap polls), so a built binary runs exactly as Lambda runs it.

const runtimePrefix = "/2018-06-01/runtime"

// runtimeAPI serves one function process: it hands out queued events on
// /invocation/next and collects what the process posts back.
type runtimeAPI struct {
	srv      *httptest.Server
	arn      string
	next     chan invocation
	stop     chan struct{}
	mu       sync.Mutex
	pending  map[string]chan invocationResult
	initErrs chan []byte
	seq      atomic.Int64

	// The first /next is the end of the function's init phase (what
	// Lambda reports as Init Duration); polled closes then.
	firstPoll sync.Once
	polled    chan struct{}
	polledAt  time.Time            // set before polled closes
	handedOut map[string]time.Time // request id → when /next returned it; under mu
	closeOnce sync.Once
}

type invocation struct {
	id    string
	event []byte
}

type invocationResult struct {
	kind string // "response" or "error"
	body []byte
	// For the benchmarks: when /next handed the event out and when the
	// result came back.
	handedOut, received time.Time
}

// newRuntimeAPI starts the server; close (also run when the test ends)
// stops it.
func newRuntimeAPI(t testing.TB, functionName string) *runtimeAPI {
	t.Helper()
	rt := &runtimeAPI{
		arn:       "arn:aws:lambda:us-east-1:123456789012:function:" + functionName,
		next:      make(chan invocation),
		stop:      make(chan struct{}),
		pending:   map[string]chan invocationResult{},
		initErrs:  make(chan []byte, 1),
		polled:    make(chan struct{}),
		handedOut: map[string]time.Time{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+runtimePrefix+"/invocation/next", rt.handleNext)
	mux.HandleFunc("POST "+runtimePrefix+"/invocation/{id}/response", rt.handleResult("response"))
	mux.HandleFunc("POST "+runtimePrefix+"/invocation/{id}/error", rt.handleResult("error"))
	mux.HandleFunc("POST "+runtimePrefix+"/init/error", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case rt.initErrs <- b:
		default:
		}
		w.WriteHeader(http.StatusAccepted)
	})
	rt.srv = httptest.NewServer(mux)
	t.Cleanup(rt.close)
	return rt
}

func (rt *runtimeAPI) close() {
	rt.closeOnce.Do(func() {
		close(rt.stop) // release a long-polling /next before Close waits for it
		rt.srv.Close()
	})
}

// hostPort is the value of AWS_LAMBDA_RUNTIME_API (no scheme).
func (rt *runtimeAPI) hostPort() string { return rt.srv.Listener.Addr().String() }

func (rt *runtimeAPI) handleNext(w http.ResponseWriter, r *http.Request) {
	rt.firstPoll.Do(func() {
		rt.polledAt = time.Now()
		close(rt.polled)
	})
	select {
	case inv := <-rt.next:
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
		// The function derives its context deadline from this; generous, as
		// it only guards against a hung invocation.
		h.Set("Lambda-Runtime-Deadline-Ms", fmt.Sprint(time.Now().Add(5*time.Minute).UnixMilli()))
		h.Set("Lambda-Runtime-Invoked-Function-Arn", rt.arn)
		h.Set("Lambda-Runtime-Trace-Id", "Root=1-67400000-"+strings.Repeat("0", 16)+fmt.Sprintf("%08x", rt.seq.Load())+";Parent=0000000000000001;Sampled=0")
		w.WriteHeader(http.StatusOK)
		rt.mu.Lock()
		rt.handedOut[inv.id] = time.Now()
		rt.mu.Unlock()
		w.Write(inv.event)
	case <-r.Context().Done():
	case <-rt.stop:
		http.Error(w, "runtime API shutting down", http.StatusInternalServerError)
	}
}

func (rt *runtimeAPI) handleResult(kind string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res := invocationResult{kind: kind, body: b, received: time.Now()}
		id := r.PathValue("id")
		rt.mu.Lock()
		ch, ok := rt.pending[id]
		delete(rt.pending, id)
		res.handedOut = rt.handedOut[id]
		delete(rt.handedOut, id)
		rt.mu.Unlock()
		if !ok {
			http.Error(w, "unknown request id", http.StatusBadRequest)
			return
		}
		ch <- res
		w.WriteHeader(http.StatusAccepted)
	}
}

// lambdaProcess is a built bootstrap running against a runtimeAPI.
type lambdaProcess struct {
	name    string
	rt      *runtimeAPI
	cmd     *exec.Cmd
	started time.Time // just before exec
	exited  chan struct{}
	output  *testenv.Buffer // stdout and stderr, for failure messages
}

// startFunction runs bootstrap with the Lambda environment plus env. The
// process is killed when the test ends, or earlier by stop.
func startFunction(t testing.TB, name, bootstrap string, env map[string]string) *lambdaProcess {
	t.Helper()
	rt := newRuntimeAPI(t, name)
	p := &lambdaProcess{name: name, rt: rt, exited: make(chan struct{}), output: &testenv.Buffer{}}
	p.cmd = exec.Command(bootstrap)
	p.cmd.Dir = t.TempDir()
	p.cmd.Env = []string{
		"AWS_LAMBDA_RUNTIME_API=" + rt.hostPort(),
		"AWS_LAMBDA_FUNCTION_NAME=" + name,
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256",
		"AWS_LAMBDA_LOG_GROUP_NAME=/policygen/test/" + name,
		"AWS_LAMBDA_LOG_STREAM_NAME=2026/01/01/[$LATEST]0123456789abcdef",
		"AWS_EXECUTION_ENV=AWS_Lambda_provided.al2023",
		"LAMBDA_TASK_ROOT=" + filepath.Dir(bootstrap),
		"TZ=UTC",
		"HOME=" + p.cmd.Dir,
	}
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.output, p.output
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		rt.close()
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("%s output:\n%s", name, p.output.String())
		}
	})
	return p
}

// stop kills the process, waits for it and stops its runtime API; it may
// be called more than once.
func (p *lambdaProcess) stop() {
	p.cmd.Process.Kill()
	<-p.exited
	p.rt.close()
}

// waitInit waits for the process's first /next and returns how long after
// exec it came. It fails the test if the process exits or reports an init
// error first.
func (p *lambdaProcess) waitInit(t testing.TB) time.Duration {
	t.Helper()
	// A guard against a hung process, not a performance assertion.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	select {
	case <-p.rt.polled:
		return p.rt.polledAt.Sub(p.started)
	case <-p.exited:
		t.Fatalf("%s exited before polling for an event:\n%s", p.name, p.output.String())
	case b := <-p.rt.initErrs:
		t.Fatalf("%s reported an init error: %s", p.name, b)
	case <-ctx.Done():
		t.Fatalf("%s never polled for an event", p.name)
	}
	return 0
}

// invoke sends one event and returns the function's proxy response. It
// fails the test if the function reports an error or exits.
func (p *lambdaProcess) invoke(t testing.TB, event []byte) events.APIGatewayV2HTTPResponse {
	t.Helper()
	resp, _ := p.invokeTimed(t, event)
	return resp
}

// invokeTimed is invoke that also returns when the event was handed out
// and when the response arrived.
func (p *lambdaProcess) invokeTimed(t testing.TB, event []byte) (events.APIGatewayV2HTTPResponse, invocationResult) {
	t.Helper()
	id := fmt.Sprintf("c0ffee00-0000-4000-8000-%012d", p.rt.seq.Add(1))
	done := make(chan invocationResult, 1)
	p.rt.mu.Lock()
	p.rt.pending[id] = done
	p.rt.mu.Unlock()

	// A guard against a hung process, not a performance assertion.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	select {
	case p.rt.next <- invocation{id: id, event: event}:
	case <-p.exited:
		t.Fatalf("%s exited before taking the event:\n%s", p.name, p.output.String())
	case b := <-p.rt.initErrs:
		t.Fatalf("%s reported an init error: %s", p.name, b)
	case <-ctx.Done():
		t.Fatalf("%s never polled for an event", p.name)
	}
	var res invocationResult
	select {
	case res = <-done:
	case <-p.exited:
		t.Fatalf("%s exited during the invocation:\n%s", p.name, p.output.String())
	case <-ctx.Done():
		t.Fatalf("%s never answered", p.name)
	}
	if res.kind != "response" {
		t.Fatalf("%s reported an invocation error: %s", p.name, res.body)
	}
	var resp events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(res.body, &resp); err != nil {
		t.Fatalf("%s response is not an HTTP API v2 proxy response: %v\n%s", p.name, err, res.body)
	}
	return resp, res
}

// ---------------------------------------------------------------------------
// Events: the events/ samples, with the seeded key and real ids substituted.

func loadEvent(t testing.TB, dir string) events.APIGatewayV2HTTPRequest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "events", dir+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a misspelt field would be silently dropped by Lambda too
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("events/%s.json: %v", dir, err)
	}
	return ev
}

func marshalEvent(t testing.TB, ev events.APIGatewayV2HTTPRequest) []byte {
	t.Helper()
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withKey returns ev with its Authorization header set to "Bearer key", or
// removed when key is "".
func withKey(ev events.APIGatewayV2HTTPRequest, key string) events.APIGatewayV2HTTPRequest {
	h := map[string]string{}
	for k, v := range ev.Headers {
		if !strings.EqualFold(k, "authorization") {
			h[k] = v
		}
	}
	if key != "" {
		h["authorization"] = "Bearer " + key
	}
	ev.Headers = h
	return ev
}

// withPolicyID points a /v1/policies/{id} event at id.
func withPolicyID(ev events.APIGatewayV2HTTPRequest, id string) events.APIGatewayV2HTTPRequest {
	ev.RawPath = "/v1/policies/" + id
	ev.RequestContext.HTTP.Path = ev.RawPath
	ev.PathParameters = map[string]string{"id": id}
	return ev
}

func header(resp events.APIGatewayV2HTTPResponse, name string) string {
	for k, v := range resp.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func decodeBody(t testing.TB, resp events.APIGatewayV2HTTPResponse, v any) {
	t.Helper()
	if resp.IsBase64Encoded {
		t.Fatalf("JSON body came back base64-encoded")
	}
	if err := json.Unmarshal([]byte(resp.Body), v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, resp.Body)
	}
}

func wantStatus(t testing.TB, resp events.APIGatewayV2HTTPResponse, status int, contentType string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d; body: %s", resp.StatusCode, status, resp.Body)
	}
	if got := header(resp, "Content-Type"); contentType != "" && !strings.HasPrefix(got, contentType) {
		t.Errorf("Content-Type = %q, want %s", got, contentType)
	}
	if header(resp, "X-Request-Id") == "" {
		t.Errorf("no X-Request-Id header")
	}
}

type problem struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Title  string `json:"title"`
}

// ---------------------------------------------------------------------------
// The backing services the functions run against: DynamoDB Local with a
// fresh table, and a Secrets Manager holding the pepper.

const testPepper = "test-pepper-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"

// secretID is the pepper's secret id for one function: one per function,
// so the fake can tell whose cold start fetched the pepper.
func secretID(dir string) string {
	return "arn:aws:secretsmanager:us-east-1:123456789012:secret:policygen/test/" + dir
}

type fixture struct {
	endpoint string // DynamoDB Local
	table    string
	store    *dynamo.Store
	hasher   *auth.Hasher
	sm       *secretstest.Server
}

// newFixture creates the table and the Secrets Manager endpoint. Like
// dynamotest it skips when DynamoDB Local is unavailable, unless CI=true.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	client, table := dynamotest.Table(t)
	endpoint := client.Endpoint()
	if endpoint == "" {
		endpoint = os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")
	}
	if endpoint == "" {
		t.Fatal("cannot tell the DynamoDB Local endpoint from dynamotest's client")
	}
	return &fixture{
		endpoint: endpoint,
		table:    table,
		store:    dynamo.New(client, table),
		hasher:   &auth.Hasher{Pepper: secrets.NewStatic([]byte(testPepper))},
		sm:       newPepperServer(t),
	}
}

func newPepperServer(t testing.TB) *secretstest.Server {
	peppers := map[string]string{}
	for _, dir := range wantFunctions {
		peppers[secretID(dir)] = testPepper
	}
	return secretstest.New(t, peppers)
}

// seed creates an account on plan with a key hashed with the pepper the
// functions will read from "Secrets Manager", and returns the key's secret.
func (fx *fixture) seed(t testing.TB, plan account.Plan) (account.Account, string, account.Key) {
	t.Helper()
	ctx := t.Context()
	now := time.Now().UTC()
	a := account.Account{ID: ids.New("acct_"), Email: string(plan) + "@example.com", Name: "Example " + string(plan), Plan: plan, CreatedAt: now}
	if err := fx.store.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	secret, k, err := auth.Issue(ctx, fx.store, fx.hasher, a.ID, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a, secret, k
}

// env is the configuration of the function in dir.
func (fx *fixture) env(dir, logLevel string) map[string]string {
	return functionEnv(dir, fx.endpoint, fx.sm.URL, fx.table, logLevel)
}

func functionEnv(dir, dynamoEndpoint, secretsEndpoint, table, logLevel string) map[string]string {
	return map[string]string{
		"AWS_REGION":                       "us-east-1",
		"AWS_DEFAULT_REGION":               "us-east-1",
		"AWS_ACCESS_KEY_ID":                "test",
		"AWS_SECRET_ACCESS_KEY":            "test",
		"AWS_CONFIG_FILE":                  "/dev/null",
		"AWS_SHARED_CREDENTIALS_FILE":      "/dev/null",
		"AWS_EC2_METADATA_DISABLED":        "true",
		"AWS_ENDPOINT_URL_DYNAMODB":        dynamoEndpoint,
		"AWS_ENDPOINT_URL_SECRETS_MANAGER": secretsEndpoint,
		"TABLE_NAME":                       table,
		"PEPPER_SECRET_ID":                 secretID(dir),
		"KEY_CACHE_TTL":                    "30s",
		"LOG_LEVEL":                        logLevel,
	}
}

// ---------------------------------------------------------------------------

func TestEventSamplesMatchRoutes(t *testing.T) {
	routes := map[string]api.Route{}
	for _, r := range api.Routes() {
		routes[r.Name] = r
	}
	for _, tc := range []struct{ dir, route string }{
		{"generate-policy", "generatePolicy"},
		{"list-policies", "listPolicies"},
		{"get-policy", "getPolicy"},
		{"delete-policy", "deletePolicy"},
		{"get-profile", "getProfile"},
		{"get-catalog", "getCatalog"},
		{"bulk-generate-policies", "bulkGeneratePolicies"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			ev := loadEvent(t, tc.dir)
			r := routes[tc.route]
			if ev.Version != "2.0" {
				t.Errorf("version = %q, want 2.0 (HTTP API payload format 2.0)", ev.Version)
			}
			if want := r.Method + " " + r.Path; ev.RouteKey != want || ev.RequestContext.RouteKey != want {
				t.Errorf("routeKey = %q / %q, want %q", ev.RouteKey, ev.RequestContext.RouteKey, want)
			}
			if ev.RequestContext.HTTP.Method != r.Method {
				t.Errorf("requestContext.http.method = %q, want %q", ev.RequestContext.HTTP.Method, r.Method)
			}
			if ev.RawPath != ev.RequestContext.HTTP.Path {
				t.Errorf("rawPath %q != requestContext.http.path %q", ev.RawPath, ev.RequestContext.HTTP.Path)
			}
			if ev.RequestContext.Stage != "$default" {
				t.Errorf("stage = %q, want $default", ev.RequestContext.Stage)
			}
			if strings.Contains(r.Path, "{id}") {
				id := ev.PathParameters["id"]
				if !ids.Valid("plc_", id) || ev.RawPath != "/v1/policies/"+id {
					t.Errorf("pathParameters.id = %q, rawPath = %q: want a well-formed policy id in both", id, ev.RawPath)
				}
			}
			key, ok := strings.CutPrefix(ev.Headers["authorization"], "Bearer ")
			if !ok {
				t.Fatalf("no Bearer authorization header")
			}
			if err := auth.CheckFormat(key); err != nil {
				t.Errorf("sample key is malformed, so sam local invoke would get 401 for the wrong reason: %v", err)
			}
		})
	}
}

// TestFunctionsAnswerEventSamples builds every function for this machine,
// runs each binary as a process against an in-test Runtime API with
// DynamoDB Local and a Secrets Manager endpoint behind it, and feeds it its
// events/ sample.
func TestFunctionsAnswerEventSamples(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Lambda binaries are linux executables")
	}
	fx := newFixture(t)
	agency, key, keyRec := fx.seed(t, account.Agency)
	_, proKey, _ := fx.seed(t, account.Pro)
	sm := fx.sm

	procs := map[string]*lambdaProcess{}
	for _, id := range logicalIDs() {
		dir := wantFunctions[id]
		bootstrap := makeBuild(t, id, runtime.GOARCH)
		procs[dir] = startFunction(t, "policygen-test-"+dir, bootstrap, fx.env(dir, "DEBUG"))
	}

	// Failed authentication first, while every function is cold: a missing
	// or malformed key gets 401 and must not have fetched the pepper.
	t.Run("unauthenticated", func(t *testing.T) {
		for _, dir := range []string{"generate-policy", "list-policies", "get-policy", "delete-policy", "get-profile", "get-catalog", "bulk-generate-policies"} {
			// Empty, malformed, and the sample key with one character of
			// its checksum changed: right length and alphabet, so only the
			// checksum check keeps it from a pepper read and a store lookup.
			sampleKey := strings.TrimPrefix(loadEvent(t, dir).Headers["authorization"], "Bearer ")
			badChecksum := sampleKey[:len(sampleKey)-1] + "A"
			if strings.HasSuffix(sampleKey, "A") {
				badChecksum = sampleKey[:len(sampleKey)-1] + "B"
			}
			if len(badChecksum) != auth.KeyLen {
				t.Fatalf("sample key %q is not %d characters", sampleKey, auth.KeyLen)
			}
			for _, bad := range []string{"", "pol_live_not-a-real-key", badChecksum} {
				resp := procs[dir].invoke(t, marshalEvent(t, withKey(loadEvent(t, dir), bad)))
				wantStatus(t, resp, http.StatusUnauthorized, "application/problem+json")
				if got := header(resp, "WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
					t.Errorf("%s: WWW-Authenticate = %q, want Bearer ...", dir, got)
				}
				var p problem
				decodeBody(t, resp, &p)
				if p.Status != http.StatusUnauthorized || (p.Code != "missing_api_key" && p.Code != "invalid_api_key") {
					t.Errorf("%s: problem = %+v", dir, p)
				}
			}
			if n := sm.Calls(secretID(dir)); n != 0 {
				t.Errorf("%s fetched the pepper %d times for requests that failed the key format check", dir, n)
			}
		}
	})

	var created []string // policy ids, oldest first
	t.Run("generate-policy", func(t *testing.T) {
		sample := loadEvent(t, "generate-policy")
		for range 3 {
			resp := procs["generate-policy"].invoke(t, marshalEvent(t, withKey(sample, key)))
			wantStatus(t, resp, http.StatusCreated, "application/json")
			var body struct {
				ID              string `json:"id"`
				BusinessName    string `json:"businessName"`
				Content         string `json:"content"`
				TemplateVersion string `json:"templateVersion"`
				CreatedAt       string `json:"createdAt"`
			}
			decodeBody(t, resp, &body)
			if !ids.Valid("plc_", body.ID) {
				t.Fatalf("id = %q", body.ID)
			}
			if got := header(resp, "Location"); got != "/v1/policies/"+body.ID {
				t.Errorf("Location = %q, want /v1/policies/%s", got, body.ID)
			}
			if body.BusinessName != "Acme Outdoor Gear" || body.Content == "" || body.TemplateVersion == "" || body.CreatedAt == "" {
				t.Errorf("policy body incomplete: %.300s", resp.Body)
			}
			created = append(created, body.ID)
		}
		// The pepper is read once and then cached for the process.
		if n := sm.Calls(secretID("generate-policy")); n != 1 {
			t.Errorf("pepper fetched %d times over 3 requests, want 1", n)
		}
	})
	if len(created) != 3 {
		t.Fatal("generate-policy failed; the other routes need its policies")
	}

	t.Run("list-policies", func(t *testing.T) {
		// The sample carries ?limit=2: the query string must pass through
		// API Gateway's event and the adapter intact.
		resp := procs["list-policies"].invoke(t, marshalEvent(t, withKey(loadEvent(t, "list-policies"), key)))
		wantStatus(t, resp, http.StatusOK, "application/json")
		var page struct {
			Data       []map[string]any `json:"data"`
			HasMore    bool             `json:"hasMore"`
			NextCursor *string          `json:"nextCursor"`
		}
		decodeBody(t, resp, &page)
		if len(page.Data) != 2 || !page.HasMore || page.NextCursor == nil || *page.NextCursor == "" {
			t.Fatalf("page = %d items, hasMore %v, nextCursor %v; want 2, true, a cursor", len(page.Data), page.HasMore, page.NextCursor)
		}
		if page.Data[0]["id"] != created[2] || page.Data[1]["id"] != created[1] {
			t.Errorf("ids = %v, %v; want newest first %s, %s", page.Data[0]["id"], page.Data[1]["id"], created[2], created[1])
		}
		for _, item := range page.Data {
			if _, ok := item["content"]; ok {
				t.Errorf("list item carries content")
			}
		}
		// Second page through the cursor, again via the raw query string.
		ev := withKey(loadEvent(t, "list-policies"), key)
		ev.RawQueryString = "limit=2&cursor=" + *page.NextCursor
		ev.QueryStringParameters = map[string]string{"limit": "2", "cursor": *page.NextCursor}
		resp = procs["list-policies"].invoke(t, marshalEvent(t, ev))
		wantStatus(t, resp, http.StatusOK, "application/json")
		page.Data, page.NextCursor = nil, nil
		decodeBody(t, resp, &page)
		if len(page.Data) != 1 || page.HasMore || page.NextCursor != nil || page.Data[0]["id"] != created[0] {
			t.Errorf("second page = %s; want only %s and no cursor", resp.Body, created[0])
		}
	})

	t.Run("get-policy", func(t *testing.T) {
		resp := procs["get-policy"].invoke(t, marshalEvent(t, withPolicyID(withKey(loadEvent(t, "get-policy"), key), created[0])))
		wantStatus(t, resp, http.StatusOK, "application/json")
		var body struct {
			ID      string `json:"id"`
			Content string `json:"content"`
		}
		decodeBody(t, resp, &body)
		if body.ID != created[0] || body.Content == "" {
			t.Errorf("got %.300s", resp.Body)
		}
		// The sample's own id exists nowhere: 404 problem+json.
		resp = procs["get-policy"].invoke(t, marshalEvent(t, withKey(loadEvent(t, "get-policy"), key)))
		wantStatus(t, resp, http.StatusNotFound, "application/problem+json")
	})

	t.Run("delete-policy", func(t *testing.T) {
		ev := marshalEvent(t, withPolicyID(withKey(loadEvent(t, "delete-policy"), key), created[0]))
		resp := procs["delete-policy"].invoke(t, ev)
		if resp.StatusCode != http.StatusNoContent || resp.Body != "" {
			t.Fatalf("delete: status %d body %q, want 204 and no body", resp.StatusCode, resp.Body)
		}
		resp = procs["delete-policy"].invoke(t, ev)
		wantStatus(t, resp, http.StatusNotFound, "application/problem+json")
		resp = procs["get-policy"].invoke(t, marshalEvent(t, withPolicyID(withKey(loadEvent(t, "get-policy"), key), created[0])))
		wantStatus(t, resp, http.StatusNotFound, "application/problem+json")
	})

	t.Run("get-profile", func(t *testing.T) {
		resp := procs["get-profile"].invoke(t, marshalEvent(t, withKey(loadEvent(t, "get-profile"), key)))
		wantStatus(t, resp, http.StatusOK, "application/json")
		if strings.Contains(resp.Body, keyRec.Hash) {
			t.Fatal("profile leaks the key hash")
		}
		var prof struct {
			Account struct {
				ID        string `json:"id"`
				Plan      string `json:"plan"`
				APIAccess bool   `json:"apiAccess"`
			} `json:"account"`
			Key struct {
				ID    string `json:"id"`
				Last4 string `json:"last4"`
			} `json:"key"`
			Usage struct {
				Generations int `json:"generations"`
			} `json:"usage"`
		}
		decodeBody(t, resp, &prof)
		if prof.Account.ID != agency.ID || prof.Account.Plan != "agency" || !prof.Account.APIAccess ||
			prof.Key.ID != keyRec.ID || prof.Key.Last4 != key[len(key)-4:] || prof.Usage.Generations != 3 {
			t.Errorf("profile = %s", resp.Body)
		}
		// A valid Pro key authenticates but is not entitled to the API.
		resp = procs["get-profile"].invoke(t, marshalEvent(t, withKey(loadEvent(t, "get-profile"), proKey)))
		wantStatus(t, resp, http.StatusForbidden, "application/problem+json")
		var p problem
		decodeBody(t, resp, &p)
		if p.Code != "plan_not_entitled" {
			t.Errorf("code = %q, want plan_not_entitled", p.Code)
		}
	})

	t.Run("get-catalog", func(t *testing.T) {
		// Any plan's key may read the catalog: a Pro key included.
		for _, k := range []string{key, proKey} {
			resp := procs["get-catalog"].invoke(t, marshalEvent(t, withKey(loadEvent(t, "get-catalog"), k)))
			wantStatus(t, resp, http.StatusOK, "application/json")
			var c struct {
				Jurisdictions []struct {
					ID string `json:"id"`
				} `json:"jurisdictions"`
				Services []struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				} `json:"services"`
			}
			decodeBody(t, resp, &c)
			if len(c.Jurisdictions) < 3 || len(c.Services) < 20 {
				t.Errorf("catalog: %d jurisdictions, %d services", len(c.Jurisdictions), len(c.Services))
			}
		}
	})

	t.Run("bulk-generate-policies", func(t *testing.T) {
		// A fresh account, so the profile's counts above stay as they are.
		_, bulkKey, _ := fx.seed(t, account.Agency)
		resp := procs["bulk-generate-policies"].invoke(t, marshalEvent(t, withKey(loadEvent(t, "bulk-generate-policies"), bulkKey)))
		wantStatus(t, resp, http.StatusOK, "application/json")
		var out struct {
			Created, Failed int
			Results         []struct {
				Reference string
				Status    int
			}
		}
		decodeBody(t, resp, &out)
		if out.Created != 2 || out.Failed != 1 || len(out.Results) != 3 || out.Results[1].Status != http.StatusUnprocessableEntity || out.Results[2].Reference != "client-003" {
			t.Errorf("bulk answer: %.500s", resp.Body)
		}
	})

	t.Run("fallback", func(t *testing.T) {
		resp := procs["fallback"].invoke(t, marshalEvent(t, loadEvent(t, "fallback")))
		wantStatus(t, resp, http.StatusNotFound, "application/problem+json")
		var p problem
		decodeBody(t, resp, &p)
		if p.Status != http.StatusNotFound || p.Code == "" {
			t.Errorf("problem = %s", resp.Body)
		}
		// A known path under another method: 405 with Allow.
		ev := loadEvent(t, "fallback")
		ev.RawPath, ev.RequestContext.HTTP.Path, ev.RequestContext.HTTP.Method = "/v1/policies", "/v1/policies", "PUT"
		resp = procs["fallback"].invoke(t, marshalEvent(t, ev))
		wantStatus(t, resp, http.StatusMethodNotAllowed, "application/problem+json")
		if got := header(resp, "Allow"); got != "GET" {
			t.Errorf("Allow = %q, want GET", got)
		}
		if n := sm.Calls(secretID("fallback")); n != 0 {
			t.Errorf("fallback fetched the pepper %d times", n)
		}
	})
}

// TestFunctionExitsOnBadConfig: a function without its configuration fails
// its cold start with a clear log line instead of serving errors.
func TestFunctionExitsOnBadConfig(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Lambda binaries are linux executables")
	}
	bootstrap := makeBuild(t, "GetProfileFunction", runtime.GOARCH)
	p := startFunction(t, "policygen-test-misconfigured", bootstrap, map[string]string{"AWS_REGION": "us-east-1"})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	select {
	case <-p.exited:
	case <-ctx.Done():
		t.Fatal("function kept running without TABLE_NAME")
	}
	if code := p.cmd.ProcessState.ExitCode(); code == 0 {
		t.Errorf("exit code 0, want non-zero")
	}
	out := p.output.String()
	for _, want := range []string{"init failed", "TABLE_NAME is not set", "PEPPER_SECRET_ID is not set"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestDashboardFunction runs the dashboard's binary through the Runtime API
// on DynamoDB Local: the sign-in page of its events/ sample, a sign-in with
// the page's CSRF token that stores a session, a signed-in settings page
// listing the account's key, and an API path answered as the API would.
func TestDashboardFunction(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Lambda binaries are linux executables")
	}
	fx := newFixture(t)
	agency, _, keyRec := fx.seed(t, account.Agency)
	const password = "a dashboard password long enough"
	hash, err := passwords.Hash(password)
	if err != nil {
		t.Fatal(err)
	}
	if err := fx.store.CreateUser(t.Context(), account.User{Email: agency.Email, AccountID: agency.ID, PasswordHash: hash, CreatedAt: agency.CreatedAt}, nil); err != nil {
		t.Fatal(err)
	}
	proc := startFunction(t, "policygen-test-dashboard", makeBuild(t, "DashboardFunction", runtime.GOARCH), fx.env("dashboard", "DEBUG"))

	page := proc.invoke(t, marshalEvent(t, loadEvent(t, "dashboard")))
	wantStatus(t, page, http.StatusOK, "text/html; charset=utf-8")
	var csrfCookie string
	for _, c := range page.Cookies {
		if strings.HasPrefix(c, "__Host-pg_csrf=") && strings.Contains(c, "Secure") && strings.Contains(c, "HttpOnly") {
			csrfCookie, _, _ = strings.Cut(c, ";")
		}
	}
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page.Body)
	if csrfCookie == "" || m == nil {
		t.Fatalf("sign-in page: cookies %v, token found %v", page.Cookies, m != nil)
	}
	if got := header(page, "Content-Security-Policy"); !strings.HasPrefix(got, "default-src 'self'") {
		t.Errorf("CSP = %q", got)
	}

	post := loadEvent(t, "dashboard")
	post.RequestContext.HTTP.Method, post.RouteKey, post.RequestContext.RouteKey = "POST", "POST /signin", "POST /signin"
	post.Headers["content-type"] = "application/x-www-form-urlencoded"
	post.Cookies = []string{csrfCookie}
	post.Body = url.Values{"csrf": {m[1]}, "email": {agency.Email}, "password": {password}}.Encode()
	signedIn := proc.invoke(t, marshalEvent(t, post))
	if signedIn.StatusCode != http.StatusSeeOther || header(signedIn, "Location") != "/policies" {
		t.Fatalf("sign-in = %d to %q: %.300s", signedIn.StatusCode, header(signedIn, "Location"), signedIn.Body)
	}
	var sessionCookie string
	for _, c := range signedIn.Cookies {
		if strings.HasPrefix(c, "__Host-pg_session=") {
			sessionCookie, _, _ = strings.Cut(c, ";")
		}
	}
	if sessionCookie == "" {
		t.Fatalf("no session cookie in %v", signedIn.Cookies)
	}

	settings := loadEvent(t, "dashboard")
	settings.RawPath, settings.RequestContext.HTTP.Path = "/settings", "/settings"
	settings.RouteKey, settings.RequestContext.RouteKey = "GET /settings", "GET /settings"
	settings.Cookies = []string{csrfCookie, sessionCookie}
	resp := proc.invoke(t, marshalEvent(t, settings))
	wantStatus(t, resp, http.StatusOK, "text/html; charset=utf-8")
	if !strings.Contains(resp.Body, "…"+keyRec.Last4) || !strings.Contains(resp.Body, agency.Email) {
		t.Errorf("settings page lacks the account's key or email: %.500s", resp.Body)
	}

	apiPath := loadEvent(t, "dashboard")
	apiPath.RawPath, apiPath.RequestContext.HTTP.Path = "/v1/nope", "/v1/nope"
	resp = proc.invoke(t, marshalEvent(t, apiPath))
	wantStatus(t, resp, http.StatusNotFound, "application/problem+json")
}
