package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/bolt"
)

// server is the real API (pkg/api on a bolt store) behind httptest, with
// an Agency key.
type server struct {
	url, key string
	store    store.Store
	account  string
}

func newServer(t *testing.T, wrap func(http.Handler) http.Handler) *server {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	hasher := &auth.Hasher{Pepper: secrets.NewStatic([]byte("0123456789abcdef0123456789abcdef"))}
	now := time.Now().UTC().Truncate(time.Second)
	a := account.Account{ID: ids.New("acct_"), Email: "agency@example.com", Name: "Agency", Plan: account.Agency, CreatedAt: now}
	if err := st.CreateAccount(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	key, _, err := auth.Issue(context.Background(), st, hasher, a.ID, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = api.NewServer(api.Deps{
		Store:  st,
		Auth:   &auth.Authenticator{Store: st, Hasher: hasher},
		Now:    time.Now,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &server{url: srv.URL + "/v1", key: key, store: st, account: a.ID}
}

// cmd runs policygen with the server's key and base URL.
func (s *server) cmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	env := map[string]string{"POLICYGEN_API_KEY": s.key, "POLICYGEN_BASE_URL": s.url}
	var out, errOut bytes.Buffer
	c := &cli{getenv: func(k string) string { return env[k] }, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		sleep: func(context.Context, int) error { return nil }}
	code := 0
	if err := c.run(context.Background(), args); err != nil {
		fmt.Fprintln(&errOut, err)
		code = 1
	}
	return out.String(), errOut.String(), code
}

const request = `{"type":"privacy","businessName":"CLI Client Ltd","websiteUrl":"https://cli.example","businessType":"ecommerce",
"jurisdiction":"EU","collectsPayments":true,"collectsUserData":true,"usesAnalytics":false,"thirdPartyServices":["Stripe"],
"contactEmail":"privacy@cli.example"}`

func TestCommands(t *testing.T) {
	s := newServer(t, nil)
	dir := t.TempDir()
	req := filepath.Join(dir, "req.json")
	if err := os.WriteFile(req, []byte(request), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := s.cmd(t, "generate", "--file", req)
	if code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	var p struct{ ID, Content, Format string }
	if err := json.Unmarshal([]byte(out), &p); err != nil || !strings.HasPrefix(p.ID, "plc_") || p.Format != "markdown" {
		t.Fatalf("generate printed %.300s (%v)", out, err)
	}

	// Another format, rendered here from the stored request: the same
	// document the API would make, and nothing generated again.
	html := filepath.Join(dir, "policy.html")
	if _, stderr, code := s.cmd(t, "get", p.ID, "--format", "html", "-o", html); code != 0 {
		t.Fatalf("get: %s", stderr)
	}
	b, _ := os.ReadFile(html)
	if !bytes.HasPrefix(b, []byte(`<article class="policy"`)) || !bytes.Contains(b, []byte("CLI Client Ltd")) {
		t.Errorf("policy.html: %.200s", b)
	}
	if n, _ := s.store.GenerationCount(context.Background(), s.account, store.Month(time.Now())); n != 1 {
		t.Errorf("generations = %d, want 1", n)
	}
	if out, _, code := s.cmd(t, "list", "--limit", "5"); code != 0 || !strings.Contains(out, p.ID) {
		t.Errorf("list: %s", out)
	}
	if out, _, code := s.cmd(t, "profile"); code != 0 || !strings.Contains(out, `"plan": "agency"`) {
		t.Errorf("profile: %s", out)
	}
	if out, _, code := s.cmd(t, "delete", p.ID); code != 0 || !strings.Contains(out, "deleted "+p.ID) {
		t.Errorf("delete: %s", out)
	}
	if _, stderr, code := s.cmd(t, "get", p.ID); code == 0 || !strings.Contains(stderr, "404 policy_not_found") {
		t.Errorf("get after delete: %d %s", code, stderr)
	}
	// Validation errors name the fields.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"type":"privacy"}`), 0o644)
	if _, stderr, code := s.cmd(t, "generate", "--file", bad); code == 0 || !strings.Contains(stderr, "businessName: is required") {
		t.Errorf("bad generate: %s", stderr)
	}
}

func TestRunUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	env := func(string) string { return "" }
	if code := run(context.Background(), []string{"nope"}, env, nil, &out, &errOut); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
	if code := run(context.Background(), []string{"profile"}, env, nil, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "POLICYGEN_API_KEY") {
		t.Errorf("no key: exit %d, %s", code, errOut.String())
	}
}

// TestBulkCSV: 25 rows, one of them invalid: 24 policies and one error in
// the results; the first attempt of each batch fails with a 503 and the
// retry, with the same Idempotency-Key, generates each policy once.
func TestBulkCSV(t *testing.T) {
	var calls atomic.Int32
	keys := map[string]int{}
	flaky := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/policies/bulk" {
				keys[r.Header.Get("Idempotency-Key")]++
				if calls.Add(1) == 1 {
					w.Header().Set("Retry-After", "1")
					http.Error(w, `{"code":"service_unavailable","detail":"try again"}`, http.StatusServiceUnavailable)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	s := newServer(t, flaky)
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("reference,businessName,websiteUrl,businessType,jurisdiction,collectsPayments,collectsUserData,usesAnalytics,thirdPartyServices,contactEmail,hostingProvider\n")
	for i := 1; i <= 25; i++ {
		name := fmt.Sprintf("Client %02d", i)
		if i == 13 {
			name = "" // the bad row
		}
		fmt.Fprintf(&b, "client-%02d,%s,https://c%02d.example,ecommerce,GB,yes,yes,no,Stripe;Google Analytics,privacy@c%02d.example,AWS\n", i, name, i, i)
	}
	in := filepath.Join(dir, "clients.csv")
	os.WriteFile(in, []byte(b.String()), 0o644)
	out, stderr, code := s.cmd(t, "bulk", "--csv", in)
	if code != 0 || !strings.Contains(out, "24 created, 1 failed") {
		t.Fatalf("bulk: %d %s %s", code, out, stderr)
	}
	// 25 rows go in three batches (10, 10, 5), and the bar shows each.
	for _, step := range []string{"(0/25", "(10/25", "(20/25", "(25/25"} {
		if !strings.Contains(stderr, step) {
			t.Errorf("progress bar never showed %s; stderr:\n%q", step, stderr)
		}
	}
	f, _ := os.Open(filepath.Join(dir, "clients.results.csv"))
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 26 {
		t.Fatalf("results: %d rows, %v", len(recs), err)
	}
	for _, r := range recs[1:] {
		ok := r[2] == "201" && strings.HasPrefix(r[3], "plc_")
		if r[1] == "client-13" {
			if r[2] != "422" || !strings.Contains(r[6], "businessName") {
				t.Errorf("bad row: %v", r)
			}
		} else if !ok {
			t.Errorf("row: %v", r)
		}
	}
	// One key per batch; the batch refused with 503 was retried with its key.
	uses := slices.Sorted(maps.Values(keys))
	if !slices.Equal(uses, []int{1, 1, 2}) {
		t.Errorf("idempotency keys used: %v, want three (one per batch), the first twice", keys)
	}
	if n, _ := s.store.GenerationCount(context.Background(), s.account, store.Month(time.Now())); n != 24 {
		t.Errorf("generations = %d, want 24 (the retry must not generate twice)", n)
	}
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	page := `<html><head><script async src="https://www.googletagmanager.com/gtag/js?id=G-X"></script>
<script>(function(){var s=document.createElement('script');s.src='//connect.facebook.net/en_US/fbevents.js';})();</script>
<link href="https://fonts.googleapis.com/css2?family=Inter" rel="stylesheet">
<img src="https://cdn.unknown-widget.example/pixel.gif"><a href="https://shop.example/about">About</a></head></html>`
	html := filepath.Join(dir, "page.html")
	os.WriteFile(html, []byte(page), 0o644)
	s := &server{}
	out, stderr, code := s.cmd(t, "detect", html)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, want := range []string{"google-tag-manager", "meta-pixel", "google-fonts", "cdn.unknown-widget.example", `"thirdPartyServices": [`} {
		if !strings.Contains(out, want) {
			t.Errorf("detect output lacks %q:\n%s", want, out)
		}
	}
	// A HAR file: every request the browser made; the first is the page.
	har := `{"log":{"entries":[{"request":{"url":"https://shop.example/"}},{"request":{"url":"https://js.stripe.com/v3/"}},
{"request":{"url":"https://static.shop.example/app.js"}},{"request":{"url":"https://www.google-analytics.com/g/collect"}}]}}`
	harPath := filepath.Join(dir, "page.har")
	os.WriteFile(harPath, []byte(har), 0o644)
	out, _, _ = s.cmd(t, "detect", harPath)
	if !strings.Contains(out, `"thirdPartyServices": ["google-analytics","stripe"]`) || strings.Contains(out, "static.shop.example") {
		t.Errorf("HAR detect:\n%s", out)
	}
	// A URL is fetched from this machine.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, page) }))
	defer site.Close()
	out, _, _ = s.cmd(t, "detect", site.URL)
	if !strings.Contains(out, "google-tag-manager") {
		t.Errorf("URL detect:\n%s", out)
	}
}

func TestBatchSize(t *testing.T) {
	for n, want := range map[int]int{1: 10, 25: 10, 101: 11, 250: 25, 999: 100, 5000: 100} {
		if got := batchSize(n); got != want {
			t.Errorf("batchSize(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestBulkColumnsCoverEveryField: every field of a generation request can
// be a column of the bulk CSV.
func TestBulkColumnsCoverEveryField(t *testing.T) {
	for _, f := range policy.FieldNames() {
		if !boolColumns[f] && !jsonColumns[f] && !stringColumns[f] && !listColumns[f] {
			t.Errorf("request field %q is not a bulk CSV column", f)
		}
	}
}
