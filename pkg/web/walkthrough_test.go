package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/store"
)

const goodPassword = "plenty of words make this long"

func signIn(t *testing.T, ctx context.Context, s *site, email, password string) {
	t.Helper()
	open(t, ctx, s.url+"/signin")
	run(t, ctx, "fill sign-in", chromedp.SetValue("#email", email, chromedp.ByQuery), chromedp.SetValue("#password", password, chromedp.ByQuery))
	submit(t, ctx, "form[action='/signin'] button")
}

func policies(t *testing.T, s *site, acct string) []store.Summary {
	t.Helper()
	pg, err := s.store.ListPolicies(t.Context(), acct, store.ListOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return pg.Items
}

// TestDashboardStarter walks a new customer through the dashboard in
// Chromium: sign up, a form with errors, generate, view, the three
// downloads, a forged CSRF token, the plan gate, delete, sign out, and a
// session that expires.
func TestDashboardStarter(t *testing.T) {
	s := newSite(t)
	ctx, downloads := newBrowser(t)

	open(t, ctx, s.url+"/signup")
	checkPage(t, ctx, "sign-up")
	run(t, ctx, "fill sign-up",
		chromedp.SendKeys("#name", "Corner Bakery", chromedp.ByQuery),
		chromedp.SendKeys("#email", "Owner@Bakery.example", chromedp.ByQuery),
		chromedp.SendKeys("#password", "too short", chromedp.ByQuery))
	submit(t, ctx, "form[action='/signup'] button")
	if msg := text(t, ctx, "#password-error"); !strings.Contains(msg, "at least 15") {
		t.Errorf("short password: error %q, want the length rule next to the field", msg)
	}
	run(t, ctx, "fix password", chromedp.SetValue("#password", goodPassword, chromedp.ByQuery))
	submit(t, ctx, "form[action='/signup'] button")
	if u := location(t, ctx); !strings.HasSuffix(u, "/policies?welcome=1") {
		t.Fatalf("after sign-up at %s, want /policies?welcome=1", u)
	}
	u, err := s.store.User(t.Context(), "owner@bakery.example")
	if err != nil {
		t.Fatalf("signed-up user (email stored lower-case): %v", err)
	}
	if a, _ := s.store.Account(t.Context(), u.AccountID); a.Plan != account.Starter || a.Name != "Corner Bakery" {
		t.Errorf("signed-up account = %+v, want Starter named Corner Bakery", a)
	}
	checkPage(t, ctx, "policies")

	// Generate, first with a bad website address.
	open(t, ctx, s.url+"/policies/new")
	checkPage(t, ctx, "generate")
	run(t, ctx, "fill generate",
		chromedp.SendKeys("#f-businessName", "Corner Bakery", chromedp.ByQuery),
		chromedp.SendKeys("#f-websiteUrl", "bakery dot example", chromedp.ByQuery),
		chromedp.SetValue("#f-businessType", "ecommerce", chromedp.ByQuery),
		chromedp.SendKeys("#f-contactEmail", "privacy@bakery.example", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('svc-stripe').closest('details').open = true`, nil),
		chromedp.Click("#svc-stripe", chromedp.ByQuery))
	if st := submit(t, ctx, "form.generate button[type=submit]"); st != 422 {
		t.Errorf("bad website address: status %d, want 422", st)
	}
	if msg := text(t, ctx, "#f-websiteUrl-error"); msg == "" {
		t.Error("bad website address: no error next to the field")
	}
	var kept string
	var stripe bool
	run(t, ctx, "form kept", chromedp.Value("#f-businessName", &kept, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('svc-stripe').checked`, &stripe))
	if kept != "Corner Bakery" || !stripe {
		t.Errorf("form after an error: businessName %q, stripe ticked %v; want both kept", kept, stripe)
	}
	if n := len(policies(t, s, u.AccountID)); n != 0 {
		t.Errorf("an invalid form stored %d policies", n)
	}
	run(t, ctx, "fix website", chromedp.SetValue("#f-websiteUrl", "https://bakery.example", chromedp.ByQuery))
	submit(t, ctx, "form.generate button[type=submit]")
	if u := location(t, ctx); !strings.Contains(u, "/policies/plc_") {
		t.Fatalf("after generate at %s, want the policy's page", u)
	}
	if h := text(t, ctx, "h1"); !strings.Contains(h, "Corner Bakery") {
		t.Errorf("policy page heading %q", h)
	}
	if doc := text(t, ctx, "section.document"); !strings.Contains(doc, "Stripe") || !strings.Contains(doc, "privacy@bakery.example") {
		t.Errorf("policy page document lacks Stripe or the contact email")
	}
	checkPage(t, ctx, "policy")
	pols := policies(t, s, u.AccountID)
	if len(pols) != 1 {
		t.Fatalf("stored %d policies, want 1", len(pols))
	}

	// The three downloads, as files the browser saves (a click on a
	// download link loads no page).
	base := "corner-bakery-privacy-policy-" + s.clock.Now().Format("2006-01-02")
	for _, f := range []struct{ ext, starts string }{{"md", "# "}, {"html", "<article"}, {"txt", ""}} {
		run(t, ctx, "download "+f.ext, chromedp.Click("a[href$='/download/"+f.ext+"']", chromedp.ByQuery))
		got := waitDownload(t, downloads, base+"."+f.ext)
		if !strings.HasPrefix(got, f.starts) || !strings.Contains(got, "Corner Bakery") {
			t.Errorf("%s download starts %q, want %q and the business name", f.ext, got[:min(40, len(got))], f.starts)
		}
		if f.ext == "txt" && (strings.Contains(got, "<") || strings.Contains(got, "](") || strings.HasPrefix(got, "#")) {
			t.Errorf("text download holds HTML or Markdown")
		}
	}

	// A forged CSRF token is refused and stores nothing.
	open(t, ctx, s.url+"/policies/new")
	run(t, ctx, "forge",
		chromedp.SendKeys("#f-businessName", "Forged", chromedp.ByQuery),
		chromedp.SendKeys("#f-websiteUrl", "https://forged.example", chromedp.ByQuery),
		chromedp.SetValue("#f-businessType", "blog", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('form.generate input[name=csrf]').value = 'forged-token'`, nil))
	if st := submit(t, ctx, "form.generate button[type=submit]"); st != 403 || text(t, ctx, "h1") != "This form has expired" {
		t.Errorf("forged CSRF token: %d %q, want 403 and the refusal", st, text(t, ctx, "h1"))
	}
	if n := len(policies(t, s, u.AccountID)); n != 1 {
		t.Errorf("after a forged form %d policies, want 1", n)
	}

	// The plan gate: no keys for Starter, in the page or by a made-up POST.
	open(t, ctx, s.url+"/settings")
	checkPage(t, ctx, "settings (Starter)")
	if body := text(t, ctx, "main"); !strings.Contains(body, "API access needs the Agency plan") || !strings.Contains(body, "1 of 10") {
		t.Errorf("Starter settings page lacks the plan gate or the usage 1 of 10: %q", body)
	}
	if has(t, ctx, "form[action='/settings/keys']") {
		t.Error("Starter settings page offers to create a key")
	}
	run(t, ctx, "make key form", chromedp.Evaluate(`(() => {
	  const f = document.createElement('form'); f.method = 'post'; f.action = '/settings/keys';
	  const c = document.createElement('input'); c.type = 'hidden'; c.name = 'csrf';
	  c.value = document.querySelector('.signout input[name=csrf]').value; f.appendChild(c);
	  const b = document.createElement('button'); b.id = 'made-up'; b.textContent = 'Create'; f.appendChild(b);
	  document.body.appendChild(f); return true; })()`, nil))
	if st := submit(t, ctx, "#made-up"); st != 403 || text(t, ctx, "h1") != "API keys need the Agency plan" {
		t.Errorf("Starter POST /settings/keys: %d %q, want 403 and the plan gate", st, text(t, ctx, "h1"))
	}
	if keys, _ := s.store.AccountKeys(t.Context(), u.AccountID); len(keys) != 0 {
		t.Errorf("Starter account has %d keys", len(keys))
	}

	// Delete, with confirmation.
	open(t, ctx, s.url+"/policies/"+pols[0].ID)
	submit(t, ctx, "a.danger")
	checkPage(t, ctx, "delete")
	submit(t, ctx, "form button.danger")
	if u := location(t, ctx); !strings.HasSuffix(u, "/policies?deleted=1") {
		t.Errorf("after delete at %s", u)
	}
	if n := len(policies(t, s, u.AccountID)); n != 0 {
		t.Errorf("after delete %d policies", n)
	}

	// Sign out, and the pages are closed.
	submit(t, ctx, ".signout button")
	if u := location(t, ctx); !strings.HasSuffix(u, "/signin?signedout=1") {
		t.Errorf("after sign-out at %s", u)
	}
	open(t, ctx, s.url+"/policies")
	if u := location(t, ctx); !strings.Contains(u, "/signin?next=%2Fpolicies") {
		t.Errorf("signed out, /policies went to %s, want sign-in", u)
	}

	// An expired session sends the browser to sign in.
	signIn(t, ctx, s, "owner@bakery.example", goodPassword)
	if u := location(t, ctx); !strings.HasSuffix(u, "/policies") {
		t.Fatalf("sign-in landed on %s", u)
	}
	s.clock.Add(13 * time.Hour)
	open(t, ctx, s.url+"/settings")
	if u := location(t, ctx); !strings.Contains(u, "/signin?") || !strings.Contains(u, "expired=1") {
		t.Errorf("expired session: at %s, want sign-in with expired=1", u)
	}
	if msg := text(t, ctx, "main"); !strings.Contains(msg, "Your session has ended") {
		t.Errorf("expired session: page says %q", msg)
	}
}

// TestDashboardAgency: sign-in failures say the same thing for a wrong
// password and an unknown address; an Agency account creates, rotates and
// revokes API keys, and the API honours each step.
func TestDashboardAgency(t *testing.T) {
	s := newSite(t)
	s.user(t, account.Agency, "owner@agency.example", goodPassword)
	ctx, _ := newBrowser(t)

	signIn(t, ctx, s, "owner@agency.example", "a wrong password, long enough")
	wrong := text(t, ctx, "#form-error")
	signIn(t, ctx, s, "nobody@agency.example", goodPassword)
	unknown := text(t, ctx, "#form-error")
	if wrong == "" || wrong != unknown {
		t.Errorf("sign-in errors differ: wrong password %q, unknown email %q", wrong, unknown)
	}
	checkPage(t, ctx, "sign-in")
	signIn(t, ctx, s, "owner@agency.example", goodPassword)
	if u := location(t, ctx); !strings.HasSuffix(u, "/policies") {
		t.Fatalf("sign-in landed on %s", u)
	}

	open(t, ctx, s.url+"/settings")
	submit(t, ctx, "form[action='/settings/keys'] button")
	var first string
	run(t, ctx, "secret", chromedp.Value("#secret", &first, chromedp.ByQuery))
	if !strings.HasPrefix(first, "pol_live_") {
		t.Fatalf("new key page shows %q", first)
	}
	checkPage(t, ctx, "key issued")
	if got := apiStatus(t, s, first); got != 200 {
		t.Fatalf("the new key: GET /v1/auth/profile = %d", got)
	}
	open(t, ctx, s.url+"/settings")
	checkPage(t, ctx, "settings (Agency)")
	row := text(t, ctx, "table.keys tbody tr")
	if !strings.Contains(row, first[len(first)-4:]) || strings.Contains(row, "Never") || !strings.Contains(row, "Active") {
		t.Errorf("key row %q: want its last four, a last-used time and Active", row)
	}

	// Rotate with no grace period: the old key stops at once.
	run(t, ctx, "no grace", chromedp.SetValue("table.keys select", "0", chromedp.ByQuery))
	submit(t, ctx, "form[action$='/rotate'] button")
	var second string
	run(t, ctx, "secret", chromedp.Value("#secret", &second, chromedp.ByQuery))
	if !strings.HasPrefix(second, "pol_live_") || second == first {
		t.Fatalf("rotation showed %q", second)
	}
	if got := apiStatus(t, s, first); got != 401 {
		t.Errorf("the rotated key: %d, want 401", got)
	}
	if got := apiStatus(t, s, second); got != 200 {
		t.Errorf("the rotation's new key: %d, want 200", got)
	}

	// Revoke the new key.
	open(t, ctx, s.url+"/settings")
	submit(t, ctx, "form[action$='/revoke'] button")
	if u := location(t, ctx); !strings.HasSuffix(u, "/settings?revoked=1") {
		t.Errorf("after revoke at %s", u)
	}
	if got := apiStatus(t, s, second); got != 401 {
		t.Errorf("the revoked key: %d, want 401", got)
	}
	if has(t, ctx, "form[action$='/revoke']") {
		t.Error("a revoked key still offers revoke")
	}
}

// TestDashboardPro: Pro, like Starter, sees that API keys need Agency.
func TestDashboardPro(t *testing.T) {
	s := newSite(t)
	s.user(t, account.Pro, "owner@pro.example", goodPassword)
	ctx, _ := newBrowser(t)
	signIn(t, ctx, s, "owner@pro.example", goodPassword)
	open(t, ctx, s.url+"/settings")
	if body := text(t, ctx, "main"); !strings.Contains(body, "API access needs the Agency plan") || !strings.Contains(body, "0 of 100") {
		t.Errorf("Pro settings page: %q", body)
	}
	if has(t, ctx, "form[action='/settings/keys']") {
		t.Error("Pro settings page offers to create a key")
	}
}

// axNode is one node of Chromium's accessibility tree as a screen reader
// gets it: role, accessible name and description.
type axNode struct{ Role, Name, Description string }

// axValue is a node's value in the Accessibility domain's answer.
type axValue struct {
	Value any `json:"value"`
}

func (v *axValue) String() string {
	if v == nil {
		return ""
	}
	s, _ := v.Value.(string)
	return s
}

// axAncestry is the accessibility node of the element sel matches and its
// ancestors, the element first. The answer is decoded here rather than by
// cdproto, whose enumerations lag Chromium's (an ignored node's reasons
// fail to decode).
func axAncestry(t *testing.T, ctx context.Context, sel string) []axNode {
	t.Helper()
	var nodes []*cdp.Node
	run(t, ctx, "node "+sel, chromedp.Nodes(sel, &nodes, chromedp.ByQuery))
	var res struct {
		Nodes []struct {
			Ignored     bool     `json:"ignored"`
			Role        *axValue `json:"role"`
			Name        *axValue `json:"name"`
			Description *axValue `json:"description"`
		} `json:"nodes"`
	}
	run(t, ctx, "accessibility of "+sel, chromedp.ActionFunc(func(ctx context.Context) error {
		if err := accessibility.Enable().Do(ctx); err != nil {
			return err
		}
		return cdp.Execute(ctx, accessibility.CommandGetAXNodeAndAncestors, accessibility.GetAXNodeAndAncestors().WithBackendNodeID(nodes[0].BackendNodeID), &res)
	}))
	var out []axNode
	for _, n := range res.Nodes {
		if !n.Ignored {
			out = append(out, axNode{n.Role.String(), n.Name.String(), n.Description.String()})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no accessibility node for %s", sel)
	}
	return out
}

// TestDashboardSeveralJurisdictions: one policy for the EU and California
// from the form in Chromium. The jurisdiction boxes are named groups for a
// screen reader and ticked with the keyboard; they stay ticked when the
// form comes back with an error; the stored document has both laws'
// sections, and the policy's page and the list name both jurisdictions.
func TestDashboardSeveralJurisdictions(t *testing.T) {
	s := newSite(t)
	acct := s.user(t, account.Pro, "owner@shop.example", goodPassword)
	ctx, _ := newBrowser(t)
	signIn(t, ctx, s, "owner@shop.example", goodPassword)

	open(t, ctx, s.url+"/policies/new")
	// What a screen reader announces for California's box: its name, in
	// the group "United States", in the group "Jurisdictions" with its help.
	ax := axAncestry(t, ctx, "#j-US-CA")
	var groups []string
	var described bool
	for _, n := range ax[1:] {
		if n.Role == "group" {
			groups = append(groups, n.Name)
			described = described || n.Name == "Jurisdictions (at least one)" && strings.Contains(n.Description, "Tick every market")
		}
	}
	if ax[0].Role != "checkbox" || ax[0].Name != "California (US-CA)" || len(groups) < 2 || groups[0] != "United States" || !described {
		t.Errorf("California's box reads as %+v in groups %q (help read with the Jurisdictions group: %v)", ax[0], groups, described)
	}

	// EU is ticked already; California is ticked with the space bar. The
	// business name is left out, so the form comes back.
	run(t, ctx, "tick California", chromedp.Focus("#j-US-CA", chromedp.ByQuery), chromedp.KeyEvent(" "))
	run(t, ctx, "fill generate",
		chromedp.SendKeys("#f-websiteUrl", "https://shop.example", chromedp.ByQuery),
		chromedp.SetValue("#f-businessType", "ecommerce", chromedp.ByQuery),
		chromedp.SendKeys("#f-contactEmail", "privacy@shop.example", chromedp.ByQuery),
		chromedp.SetValue("#f-format", "markdown", chromedp.ByQuery))
	if st := submit(t, ctx, "form.generate button[type=submit]"); st != 422 {
		t.Fatalf("no business name: status %d, want 422", st)
	}
	var ticked []string
	run(t, ctx, "ticked", chromedp.Evaluate(`[...document.querySelectorAll('input[name=jurisdiction]:checked')].map(e => e.value)`, &ticked))
	if strings.Join(ticked, ",") != "EU,US-CA" {
		t.Errorf("after an error the ticked jurisdictions are %q, want EU and US-CA", ticked)
	}
	run(t, ctx, "business name", chromedp.SendKeys("#f-businessName", "Corner Shop", chromedp.ByQuery))
	submit(t, ctx, "form.generate button[type=submit]")
	if u := location(t, ctx); !strings.Contains(u, "/policies/plc_") {
		t.Fatalf("after generate at %s, want the policy's page", u)
	}
	shown := text(t, ctx, ".jurisdictions-list")
	if !strings.Contains(shown, "European Union (EU)") || !strings.Contains(shown, "California (US-CA)") {
		t.Errorf("the policy's page lists the jurisdictions as %q", shown)
	}

	items := policies(t, s, acct.ID)
	if len(items) != 1 {
		t.Fatalf("%d policies stored, want 1", len(items))
	}
	p, err := s.store.Policy(t.Context(), acct.ID, items[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Jurisdiction != "EU,US-CA" {
		t.Errorf("stored jurisdiction %q, want EU,US-CA", p.Jurisdiction)
	}
	for _, want := range []string{
		"(GDPR)", "## International transfers", "## Your right to object", // GDPR Arts. 13, 21
		`(the "CCPA")`, "## Information for California residents", "## Your California privacy rights",
	} {
		if !strings.Contains(p.Content, want) {
			t.Errorf("the stored document lacks %q", want)
		}
	}

	open(t, ctx, s.url+"/policies")
	if row := text(t, ctx, "table.list tbody tr"); !strings.Contains(row, "European Union, California") {
		t.Errorf("the policy list's row %q does not name both jurisdictions", row)
	}
}
