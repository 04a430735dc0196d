package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/policygen/policygen/internal/testenv"
	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/auth/passwords"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/bolt"
	"github.com/policygen/policygen/pkg/web"
)

// site is policyd's handler (dashboard at /, API at /v1) on a bolt store,
// served on loopback, with a clock the test moves.
type site struct {
	url    string
	store  store.Store
	clock  *testenv.Clock
	hasher *auth.Hasher
}

func newSite(t *testing.T) *site {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "policygen.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := &site{store: st, clock: testenv.NewClock(time.Now().UTC()), hasher: &auth.Hasher{Pepper: secrets.NewStatic([]byte("browser-test-pepper-0123456789"))}}
	quiet := slog.New(slog.DiscardHandler)
	dash, err := web.New(web.Deps{Store: st, Hasher: s.hasher, Now: s.clock.Now, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	authn := &auth.Authenticator{Store: st, Hasher: s.hasher, Now: s.clock.Now}
	srv := httptest.NewServer(web.Mount(dash, api.NewServer(api.Deps{Store: st, Auth: authn, Now: s.clock.Now, Logger: quiet})))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// user makes an account on plan with a dashboard user, as policyctl does.
func (s *site) user(t *testing.T, plan account.Plan, email, password string) account.Account {
	t.Helper()
	a := account.Account{ID: ids.New(ids.Account), Email: email, Name: "Test " + string(plan), Plan: plan, CreatedAt: s.clock.Now()}
	hash, err := passwords.Hash(password)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.CreateUser(t.Context(), account.User{Email: email, AccountID: a.ID, PasswordHash: hash, CreatedAt: a.CreatedAt}, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// newBrowser starts headless Chromium with a fresh profile, downloads going
// to the returned directory.
func newBrowser(t *testing.T) (context.Context, string) {
	t.Helper()
	exe := testenv.Chromium(t)
	// Not t.TempDir: Chromium may still be writing its profile when the
	// test ends, and a failed removal would fail the test.
	profile, err := os.MkdirTemp("", "policygen-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1200, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(func() {
		cancelA()
		os.RemoveAll(profile)
	})
	// cdproto lags Chromium; events it cannot decode are logged by
	// chromedp and harmless here.
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...any) {}))
	t.Cleanup(func() {
		chromedp.Cancel(ctx) // closes the browser and waits for it
		cancel()
	})
	downloads := t.TempDir()
	if err := chromedp.Run(ctx, browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(downloads).WithEventsEnabled(true)); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx, downloads
}

// run runs browser actions with a deadline, failing the test on error.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func location(t *testing.T, ctx context.Context) string {
	t.Helper()
	var u string
	run(t, ctx, "location", chromedp.Location(&u))
	return u
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	var s string
	run(t, ctx, "text of "+sel, chromedp.Text(sel, &s, chromedp.ByQuery))
	return s
}

func has(t *testing.T, ctx context.Context, sel string) bool {
	t.Helper()
	var n int
	run(t, ctx, "count "+sel, chromedp.Evaluate(`document.querySelectorAll(`+jsString(sel)+`).length`, &n))
	return n > 0
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// submit clicks a button or link that loads a page, waits for that page
// and returns its HTTP status.
func submit(t *testing.T, ctx context.Context, button string) int {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(c, chromedp.Click(button, chromedp.ByQuery))
	if err != nil {
		t.Fatalf("click %s: %v", button, err)
	}
	return int(resp.Status)
}

func open(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	run(t, ctx, "open "+url, chromedp.Navigate(url), chromedp.WaitReady("body", chromedp.ByQuery))
}

// checkPage asserts what every page must have: each form control labelled,
// every button named, and every visible control, link and summary reached
// by the Tab key alone, in order.
func checkPage(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var problems []string
	run(t, ctx, "label check", chromedp.Evaluate(`(() => {
	  const p = [];
	  for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
	    const named = (el.labels && [...el.labels].some(l => l.textContent.trim())) || el.getAttribute('aria-label');
	    if (!named) p.push('unlabelled control ' + (el.id || el.name));
	  }
	  for (const el of document.querySelectorAll('button')) {
	    if (!el.textContent.trim() && !el.getAttribute('aria-label')) p.push('unnamed button');
	  }
	  if (!document.querySelector('h1')) p.push('no h1');
	  if (!document.documentElement.lang) p.push('no lang');
	  return p;
	})()`, &problems))
	for _, p := range problems {
		t.Errorf("%s: %s", name, p)
	}
	var total int
	run(t, ctx, "mark focusable", chromedp.Evaluate(`(() => {
	  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary';
	  const els = [...document.querySelectorAll(sel)].filter(e => !e.disabled && e.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true}));
	  els.forEach((e, i) => e.dataset.k = i);
	  window.__seen = new Set();
	  document.addEventListener('focusin', ev => { if (ev.target.dataset.k !== undefined) window.__seen.add(ev.target.dataset.k); });
	  document.activeElement && document.activeElement.blur();
	  return els.length;
	})()`, &total))
	for range total + 3 {
		run(t, ctx, "tab", chromedp.KeyEvent(kb.Tab))
	}
	var missed []string
	run(t, ctx, "reached", chromedp.Evaluate(`[...document.querySelectorAll('[data-k]')].filter(e => !window.__seen.has(e.dataset.k)).map(e => e.outerHTML.slice(0, 80))`, &missed))
	for _, m := range missed {
		t.Errorf("%s: not reachable with Tab: %s", name, m)
	}
	if total == 0 {
		t.Errorf("%s: no focusable element found", name)
	}
}

// waitDownload waits for a file named name in dir and returns its bytes.
func waitDownload(t *testing.T, dir, name string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil && len(b) > 0 {
			return string(b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	t.Fatalf("download %s did not arrive; the folder holds %v", name, names)
	return ""
}

// apiStatus calls GET /v1/auth/profile with key and returns the status.
func apiStatus(t *testing.T, s *site, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", s.url+"/v1/auth/profile", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
