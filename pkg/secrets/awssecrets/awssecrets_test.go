package awssecrets

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/policygen/policygen/internal/testenv"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/secrets"
)

// fakeSecretsManager speaks the part of the Secrets Manager JSON 1.1
// protocol the real SDK uses for GetSecretValue.
type fakeSecretsManager struct {
	t       *testing.T
	calls   atomic.Int64
	mu      sync.Mutex
	secrets map[string]map[string]any // SecretId -> response fields
	fail    bool                      // answer InternalServiceError
	hold    chan struct{}             // if set, each call waits for it
	entered chan struct{}             // if set, signalled when a call arrives
}

func (f *fakeSecretsManager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	f.mu.Lock()
	entered, hold := f.entered, f.hold
	f.mu.Unlock()
	if entered != nil {
		entered <- struct{}{}
	}
	if hold != nil {
		<-hold
	}
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		f.t.Errorf("request %s %s, want POST /", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("X-Amz-Target"); got != "secretsmanager.GetSecretValue" {
		f.t.Errorf("X-Amz-Target = %q", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/x-amz-json-1.1" {
		f.t.Errorf("Content-Type = %q", got)
	}
	if r.Header.Get("Authorization") == "" {
		f.t.Errorf("request is not signed")
	}
	var in struct{ SecretId string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		f.t.Errorf("decode body: %v", err)
	}
	f.mu.Lock()
	out, ok := f.secrets[in.SecretId]
	fail := f.fail
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	switch {
	case fail:
		// Not retried forever: a read gives up after MaxAttempts
		// attempts, and a 400 that is not a throttle is not retried.
		w.Header().Set("X-Amzn-ErrorType", "InvalidRequestException")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"__type": "InvalidRequestException", "message": "unavailable for the test"})
	case !ok:
		w.Header().Set("X-Amzn-ErrorType", "ResourceNotFoundException")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"__type": "ResourceNotFoundException", "message": "Secrets Manager can't find the specified secret."})
	default:
		json.NewEncoder(w).Encode(out)
	}
}

// block makes the following calls signal f.entered and wait for f.hold.
func (f *fakeSecretsManager) block() {
	f.mu.Lock()
	f.hold = make(chan struct{})
	f.entered = make(chan struct{}, 100)
	f.mu.Unlock()
}

func newFake(t *testing.T) (*fakeSecretsManager, *httptest.Server) {
	f := &fakeSecretsManager{t: t, secrets: map[string]map[string]any{
		"policygen/pepper": {
			"ARN":          "arn:aws:secretsmanager:eu-west-1:123456789012:secret:policygen/pepper-AbCdEf",
			"Name":         "policygen/pepper",
			"SecretString": "s3cr3t-pepper-value",
			"VersionId":    "v1",
		},
		"binary": {
			"ARN":          "arn:aws:secretsmanager:eu-west-1:123456789012:secret:binary-AbCdEf",
			"Name":         "binary",
			"SecretBinary": []byte{0, 1, 2, 3, 254, 255}, // JSON base64, as the service sends it
			"VersionId":    "v1",
		},
	}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func newClient(srv *httptest.Server) Client {
	return Client{
		Region:      "eu-west-1",
		Endpoint:    srv.URL,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
	}
}

func TestSecretsManagerValues(t *testing.T) {
	_, srv := newFake(t)
	client := newClient(srv)
	tests := []struct {
		id       string
		want     string
		notFound bool
	}{
		{id: "policygen/pepper", want: "s3cr3t-pepper-value"},
		{id: "binary", want: string([]byte{0, 1, 2, 3, 254, 255})},
		{id: "missing", notFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := New(client, tt.id, time.Minute).Value(context.Background())
			if tt.notFound {
				var nf *APIError
				if !errors.As(err, &nf) || nf.Code != "ResourceNotFoundException" {
					t.Fatalf("err = %v, want ResourceNotFoundException", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("value = %q, want %q", got, tt.want)
			}
		})
	}
}

// The endpoint the deployed functions and policyctl rely on comes from the
// standard per-service environment variable through the default config.
func TestSecretsManagerEndpointFromEnv(t *testing.T) {
	f, srv := newFake(t)
	dir := t.TempDir()
	t.Setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", srv.URL)
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_CONFIG_FILE", dir+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", dir+"/none")
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := New(ClientFromConfig(cfg, os.Getenv), "policygen/pepper", 0).Value(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "s3cr3t-pepper-value" || f.calls.Load() != 1 {
		t.Fatalf("value %q after %d calls", got, f.calls.Load())
	}
}

func TestSecretsManagerCachesAndRefreshes(t *testing.T) {
	f, srv := newFake(t)
	f.block()
	clk := testenv.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	const ttl = 5 * time.Minute
	src := newSource(newClient(srv), "policygen/pepper", ttl, clk.Now)

	// Many concurrent first uses: one call to Secrets Manager.
	var wg sync.WaitGroup
	errc := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			v, err := src.Value(context.Background())
			if err == nil && string(v) != "s3cr3t-pepper-value" {
				err = errors.New("wrong value " + string(v))
			}
			errc <- err
		})
	}
	close(f.hold)
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := f.calls.Load(); n != 1 {
		t.Fatalf("%d GetSecretValue calls for 50 concurrent first uses, want 1", n)
	}

	clk.Add(ttl - time.Nanosecond)
	if _, err := src.Value(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := f.calls.Load(); n != 1 {
		t.Fatalf("%d calls within ttl, want 1", n)
	}
	clk.Add(time.Nanosecond)
	if _, err := src.Value(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := f.calls.Load(); n != 2 {
		t.Fatalf("%d calls after ttl, want 2", n)
	}

	// A failed refresh serves the previous value and retries next time.
	f.mu.Lock()
	f.fail = true
	f.mu.Unlock()
	clk.Add(ttl)
	v, err := src.Value(context.Background())
	if err != nil || string(v) != "s3cr3t-pepper-value" {
		t.Fatalf("failed refresh: %q, %v; want the previous value", v, err)
	}
	if n := f.calls.Load(); n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
	// During the outage the stale value is served without a call until
	// secrets.RetryDelay has passed; then one more attempt is made.
	clk.Add(secrets.RetryDelay - time.Nanosecond)
	if v, err := src.Value(context.Background()); err != nil || string(v) != "s3cr3t-pepper-value" {
		t.Fatalf("during the outage: %q, %v", v, err)
	}
	if n := f.calls.Load(); n != 3 {
		t.Fatalf("%d calls within the retry delay, want 3", n)
	}
	f.mu.Lock()
	f.fail = false
	f.mu.Unlock()
	clk.Add(time.Nanosecond)
	if _, err := src.Value(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := f.calls.Load(); n != 4 {
		t.Fatalf("%d calls after the retry delay, want 4", n)
	}
	// Recovered: cached for a full ttl again.
	clk.Add(ttl - time.Nanosecond)
	src.Value(context.Background())
	if n := f.calls.Load(); n != 4 {
		t.Fatalf("%d calls after recovery, want 4", n)
	}
}

func TestSecretsManagerFirstFetchErrorIsNotCached(t *testing.T) {
	f, srv := newFake(t)
	f.mu.Lock()
	f.fail = true
	f.mu.Unlock()
	src := New(newClient(srv), "policygen/pepper", time.Hour)
	if _, err := src.Value(context.Background()); err == nil {
		t.Fatal("want an error")
	}
	f.mu.Lock()
	f.fail = false
	f.mu.Unlock()
	if v, err := src.Value(context.Background()); err != nil || string(v) != "s3cr3t-pepper-value" {
		t.Fatalf("after recovery: %q, %v", v, err)
	}
}

// A caller waiting behind a slow fetch can give up with its context.
func TestSecretsManagerWaitHonoursContext(t *testing.T) {
	f, srv := newFake(t)
	f.block()
	src := New(newClient(srv), "policygen/pepper", time.Hour)
	done := make(chan error, 1)
	go func() { _, err := src.Value(context.Background()); done <- err }()
	<-f.entered // the first fetch is in flight and holds the slot

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Value(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	close(f.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// While one caller refreshes a stale value, others get the stale value
// without waiting for Secrets Manager.
func TestSecretsManagerStaleWhileRefreshing(t *testing.T) {
	f, srv := newFake(t)
	clk := testenv.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newSource(newClient(srv), "policygen/pepper", time.Minute, clk.Now)
	if _, err := src.Value(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Minute)
	f.block()
	done := make(chan error, 1)
	go func() { _, err := src.Value(context.Background()); done <- err }()
	<-f.entered // the refresh is in flight and blocked

	v, err := src.Value(context.Background()) // would deadlock if it waited
	if err != nil || string(v) != "s3cr3t-pepper-value" {
		t.Fatalf("during refresh: %q, %v", v, err)
	}
	close(f.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := f.calls.Load(); n != 2 {
		t.Fatalf("%d calls, want 2", n)
	}
}

// A Secrets Manager that never answers, or resets connections, costs a read
// at most FetchTimeout and is errs.Unavailable (a 503: the key may be fine);
// a missing secret is not.
func TestSecretsManagerOutageIsUnavailable(t *testing.T) {
	for name, url := range map[string]string{
		"silent": testenv.SilentEndpoint(t),
		"reset":  testenv.ResettingEndpoint(t),
	} {
		t.Run(name, func(t *testing.T) {
			client := Client{
				Region:      "eu-west-1",
				Endpoint:    url,
				Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
			}
			start := time.Now()
			_, err := New(client, "policygen/pepper", 0).Value(context.Background())
			took := time.Since(start)
			t.Logf("%s: %v after %s", name, err, took.Round(time.Millisecond))
			if !errs.Is(err, errs.Unavailable) {
				t.Fatalf("err = %v, want Unavailable", err)
			}
			if took > FetchTimeout+time.Second {
				t.Errorf("took %s; FetchTimeout is %s", took, FetchTimeout)
			}
		})
	}
	_, srv := newFake(t)
	client := newClient(srv)
	_, err := New(client, "no/such/secret", 0).Value(context.Background())
	if err == nil || errs.Is(err, errs.Unavailable) {
		t.Fatalf("missing secret: err = %v, want a non-retryable error", err)
	}
}

// A 5xx or a throttle is tried again, up to MaxAttempts, within one read.
func TestSecretsManagerRetriesTransientErrors(t *testing.T) {
	for name, fail := range map[string]func(w http.ResponseWriter){
		"5xx": func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"__type":"InternalServiceError","message":"try again"}`)
		},
		"throttled": func(w http.ResponseWriter) {
			w.Header().Set("X-Amzn-ErrorType", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"__type":"ThrottlingException","Message":"Rate exceeded"}`)
		},
	} {
		t.Run(name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/x-amz-json-1.1")
				if calls.Add(1) < MaxAttempts {
					fail(w)
					return
				}
				io.WriteString(w, `{"Name":"p","SecretString":"third time lucky"}`)
			}))
			defer srv.Close()
			v, err := New(newClient(srv), "p", 0).Value(context.Background())
			if err != nil || string(v) != "third time lucky" || calls.Load() != MaxAttempts {
				t.Fatalf("got %q, %v after %d calls", v, err, calls.Load())
			}
			// One more failure than attempts: Unavailable.
			calls.Store(-1)
			_, err = New(newClient(srv), "p", 0).Value(context.Background())
			if !errs.Is(err, errs.Unavailable) || calls.Load() != MaxAttempts-1 {
				t.Fatalf("err = %v after %d calls, want Unavailable after %d", err, calls.Load()+1, MaxAttempts)
			}
		})
	}
}

// A session token (a Lambda role's credentials have one) is sent with
// the signature.
func TestSecretsManagerSendsSessionToken(t *testing.T) {
	var token string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token = r.Header.Get("X-Amz-Security-Token")
		io.WriteString(w, `{"Name":"p","SecretString":"v"}`)
	}))
	defer srv.Close()
	c := newClient(srv)
	c.Credentials = credentials.NewStaticCredentialsProvider("ASIATEST", "secret", "the-session-token")
	if _, err := New(c, "p", 0).Value(context.Background()); err != nil || token != "the-session-token" {
		t.Fatalf("token %q, err %v", token, err)
	}
}
