package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/policygen/policygen/internal/testenv"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
)

// instance is a running policyd: run() in a goroutine on a random port.
type instance struct {
	base   string
	lines  []string // stdout up to the last line of the start-up message
	stderr *testenv.Buffer
	stop   func() error
}

// start runs policyd and reads its start-up output until a line matching
// until; reading the pipe blocks, so there is no sleeping or polling.
func start(t *testing.T, spec string, until *regexp.Regexp, extra ...string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	inst := &instance{stderr: &testenv.Buffer{}}
	done := make(chan error, 1)
	go func() {
		args := append([]string{"--addr", "127.0.0.1:0", "--store", spec}, extra...)
		err := run(ctx, args, func(string) string { return "" }, pw, inst.stderr)
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		inst.lines = append(inst.lines, line)
		if m := regexp.MustCompile(`listening on (https?://\S+)`).FindStringSubmatch(line); m != nil {
			inst.base = m[1]
		}
		if until.MatchString(line) {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if inst.base == "" {
		cancel()
		t.Fatalf("policyd did not start: %v\nstdout: %q\nstderr: %s", <-done, inst.lines, inst.stderr)
	}
	inst.stop = func() error { cancel(); return <-done }
	t.Cleanup(func() { cancel() })
	return inst
}

func TestRunFirstStartAndRestart(t *testing.T) {
	dir := t.TempDir()
	spec := "bolt:" + filepath.Join(dir, "data", "policygen.db")

	first := start(t, spec, regexp.MustCompile(`^curl `))
	out := strings.Join(first.lines, "\n")
	key := regexp.MustCompile(`pol_live_[0-9A-Za-z]{38}`).FindString(out)
	if key == "" || !strings.Contains(out, "Demo Agency") && !strings.Contains(out, "demo@example.com") {
		t.Fatalf("no key or demo account in start-up output:\n%s", out)
	}
	curl := first.lines[len(first.lines)-1]
	if !strings.Contains(curl, first.base+"/v1/policies/generate") || !strings.Contains(curl, key) {
		t.Fatalf("curl command %q does not use %s and the key", curl, first.base)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "pepper")); err != nil {
		t.Errorf("pepper file next to the store: %v", err)
	}

	// The printed command, run exactly as printed, by the real curl.
	res, err := exec.Command("sh", "-c", curl+" -w '\\n%{http_code}'").Output()
	if err != nil {
		t.Fatalf("curl: %v", err)
	}
	out2 := strings.TrimSpace(string(res))
	i := strings.LastIndex(out2, "\n")
	body, code := strings.TrimSpace(out2[:max(i, 0)]), out2[i+1:]
	if code != "201" {
		t.Fatalf("printed curl answered %s: %s", code, body)
	}
	var pol struct{ ID, Content, BusinessName string }
	if err := json.Unmarshal([]byte(body), &pol); err != nil || pol.ID == "" || pol.Content == "" {
		t.Fatalf("curl body %s: %v", body, err)
	}

	acct := profileAccount(t, first.base, key)
	if err := first.stop(); err != nil {
		t.Fatalf("run returned %v after cancel", err)
	}
	// One JSON access log line per request, naming the route, not the id.
	var logged bool
	for _, l := range strings.Split(first.stderr.String(), "\n") {
		var m map[string]any
		if l == "" {
			continue
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Errorf("stderr line is not JSON: %q", l)
		}
		if m["msg"] == "request" && m["path"] == "/v1/policies/generate" && m["status"] == float64(201) && m["requestId"] != "" {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no access log line for generate:\n%s", first.stderr)
	}

	// A restart keeps the account and makes no new one.
	second := start(t, spec, regexp.MustCompile(`policyctl`))
	out = strings.Join(second.lines, "\n")
	if strings.Contains(out, "pol_live_") || strings.Contains(out, "Created demo") {
		t.Errorf("restart created another account:\n%s", out)
	}
	if !strings.Contains(out, "key create --account") {
		t.Errorf("restart does not say how to mint a key:\n%s", out)
	}
	// policyctl cannot open a bolt file policyd holds, so the hint must say
	// to stop policyd first.
	if !strings.Contains(out, "Stop policyd first") {
		t.Errorf("restart hint does not say to stop policyd before running policyctl:\n%s", out)
	}
	if got := profileAccount(t, second.base, key); got != acct {
		t.Errorf("account after restart = %s, want %s", got, acct)
	}
	if err := second.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestRestartHintKeepsPepper: the policyctl commands printed on restart use
// the pepper policyd was given, or the keys they mint would never work.
func TestRestartHintKeepsPepper(t *testing.T) {
	dir := t.TempDir()
	spec := "bolt:" + filepath.Join(dir, "policygen.db")
	pepper := filepath.Join(dir, "elsewhere", "pepper")
	first := start(t, spec, regexp.MustCompile(`^curl `), "--pepper-file", pepper)
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}
	second := start(t, spec, regexp.MustCompile(`policyctl`), "--pepper-file", pepper)
	want := "go run ./cmd/policyctl --store " + spec + " --pepper-file " + pepper + " key create --account"
	if out := strings.Join(second.lines, "\n"); !strings.Contains(out, want) {
		t.Errorf("restart hint does not name the pepper file; want %q in\n%s", want, out)
	}
	if err := second.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestOptionsStar: "OPTIONS *" gets the API's problem+json and a request
// id like every other request, not net/http's own empty 200.
func TestOptionsStar(t *testing.T) {
	inst := start(t, "bolt:"+filepath.Join(t.TempDir(), "policygen.db"), regexp.MustCompile(`^curl `))
	conn, err := net.Dial("tcp", strings.TrimPrefix(inst.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/problem+json" || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("OPTIONS *: %d %v", resp.StatusCode, resp.Header)
	}
	if err := inst.stop(); err != nil {
		t.Fatal(err)
	}
}

func profileAccount(t *testing.T, base, key string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/auth/profile", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p struct {
		Account struct{ ID, Name, Plan string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != 200 {
		t.Fatalf("profile: %d %v", resp.StatusCode, err)
	}
	if p.Account.Name != "Demo Agency" || p.Account.Plan != "agency" {
		t.Errorf("profile account = %+v", p.Account)
	}
	return p.Account.ID
}

func TestRunBadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--store", "mysql:x"}, `unknown kind "mysql"`},
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, "unexpected arguments: [extra]"},
		{[]string{"--store", "dynamodb:table"}, "a DynamoDB store needs the pepper"}, // no pepper source named
		{[]string{"--store", "bolt:" + filepath.Join(t.TempDir(), "db"), "--pepper-file", "p", "--pepper-secret", "s"}, "not both"},
		{[]string{"--tls-cert", "c.pem"}, "give both --tls-cert and --tls-key"},
	} {
		err := run(context.Background(), tt.args, func(string) string { return "" }, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q) = %v, want an error saying %q", tt.args, err, tt.want)
		}
	}
}

// TestRunSilentStore: pointed at a DynamoDB endpoint that accepts
// connections and never answers, policyd gives up within the store
// deadline with an error naming the store, rather than listening forever
// without serving.
func TestRunSilentStore(t *testing.T) {
	t.Setenv(dynamo.EndpointEnv, testenv.SilentEndpoint(t))
	args := []string{"--addr", "127.0.0.1:0", "--store", "dynamodb:policygen-test",
		"--pepper-file", filepath.Join(t.TempDir(), "pepper")}
	start := time.Now()
	err := run(t.Context(), args, func(string) string { return "" }, io.Discard, io.Discard)
	took := time.Since(start)
	t.Logf("policyd start against a silent store ended after %s: %v", took.Round(time.Millisecond), err)
	if err == nil || !strings.Contains(err.Error(), "store dynamodb:policygen-test") || !errs.Is(err, errs.Unavailable) {
		t.Fatalf("run = %v, want an Unavailable error naming the store", err)
	}
	if took > store.CallTimeout+2*time.Second {
		t.Errorf("start took %s; the store deadline is %s", took, store.CallTimeout)
	}
}

// The demo account's dashboard user signs in with the password printed at
// the first start.
func TestDemoUserSignsIn(t *testing.T) {
	inst := start(t, "bolt:"+filepath.Join(t.TempDir(), "policygen.db"), regexp.MustCompile(`^curl `))
	out := strings.Join(inst.lines, "\n")
	m := regexp.MustCompile(`Dashboard: (\S+) \(sign in as (\S+) with password (\S+); shown once\)`).FindStringSubmatch(out)
	if m == nil || m[1] != inst.base+"/" {
		t.Fatalf("no dashboard line for %s in:\n%s", inst.base, out)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(inst.base + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tok := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindSubmatch(page)
	if tok == nil {
		t.Fatalf("sign-in page without a CSRF token: %d", resp.StatusCode)
	}
	resp, err = c.PostForm(inst.base+"/signin", url.Values{"csrf": {string(tok[1])}, "email": {m[2]}, "password": {m[3]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/policies" {
		t.Errorf("demo sign-in = %d to %q, want 303 to /policies", resp.StatusCode, resp.Header.Get("Location"))
	}
}
