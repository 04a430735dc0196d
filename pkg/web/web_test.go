package web_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/web"
)

// client is a browser without a browser: a cookie jar and no redirects
// followed, so each answer can be checked.
type client struct {
	t    *testing.T
	s    *site
	http *http.Client
}

func newClient(t *testing.T, s *site) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, s: s, http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (c *client) do(req *http.Request) answer {
	c.t.Helper()
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func (c *client) get(path string) answer {
	req, _ := http.NewRequest("GET", c.s.url+path, nil)
	return c.do(req)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token is the CSRF token of the form on the page at path.
func (c *client) token(path string) string {
	c.t.Helper()
	m := csrfRE.FindStringSubmatch(c.get(path).body)
	if m == nil {
		c.t.Fatalf("no CSRF token on %s", path)
	}
	return m[1]
}

func (c *client) post(path string, form url.Values, header ...string) answer {
	req, _ := http.NewRequest("POST", c.s.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.do(req)
}

func (c *client) signIn(email, password string) answer {
	return c.post("/signin", url.Values{"csrf": {c.token("/signin")}, "email": {email}, "password": {password}})
}

func TestSignInThrottledPerEmail(t *testing.T) {
	s := newSite(t)
	s.user(t, account.Starter, "a@example.com", goodPassword)
	c := newClient(t, s)
	for i := range web.SignInPerEmail {
		if got := c.signIn("a@example.com", "wrong password number "+string(rune('a'+i))).status; got != 401 {
			t.Fatalf("attempt %d: %d, want 401", i+1, got)
		}
	}
	a := c.signIn("a@example.com", goodPassword)
	if a.status != 429 || a.header.Get("Retry-After") == "" || !strings.Contains(a.body, "Too many attempts") {
		t.Errorf("attempt %d (right password) = %d, want 429 with Retry-After", web.SignInPerEmail+1, a.status)
	}
	// The same refusal for an address without an account: the throttle
	// tells nothing either.
	for range web.SignInPerEmail {
		c.signIn("nobody@example.com", "wrong password entirely")
	}
	if got := c.signIn("nobody@example.com", "wrong password entirely").status; got != 429 {
		t.Errorf("unknown email over the limit = %d, want 429", got)
	}
	// A new minute lets the owner in.
	s.clock.Add(time.Minute)
	if got := c.signIn("a@example.com", goodPassword).status; got != 303 {
		t.Errorf("next minute, right password = %d, want 303", got)
	}
}

func TestSignInThrottledPerAddress(t *testing.T) {
	s := newSite(t)
	c := newClient(t, s)
	for i := range web.SignInPerAddress {
		c.signIn("user"+string(rune('a'+i))+"@example.com", "some wrong password here")
	}
	if got := c.signIn("fresh@example.com", "some wrong password here").status; got != 429 {
		t.Errorf("attempt %d from one address = %d, want 429", web.SignInPerAddress+1, got)
	}
}

func TestFormsNeedTheirCSRFToken(t *testing.T) {
	s := newSite(t)
	s.user(t, account.Agency, "a@example.com", goodPassword)
	c := newClient(t, s)
	if got := c.post("/signin", url.Values{"email": {"a@example.com"}, "password": {goodPassword}}).status; got != 403 {
		t.Errorf("sign-in without a token = %d, want 403", got)
	}
	if got := c.signIn("a@example.com", goodPassword).status; got != 303 {
		t.Fatalf("sign-in = %d", got)
	}
	for _, path := range []string{"/settings/keys", "/signout", "/policies"} {
		if got := c.post(path, url.Values{"csrf": {"forged"}}).status; got != 403 {
			t.Errorf("POST %s with a forged token = %d, want 403", path, got)
		}
		if got := c.post(path, url.Values{}).status; got != 403 {
			t.Errorf("POST %s without a token = %d, want 403", path, got)
		}
	}
	other := newClient(t, s)
	if got := other.post("/signout", url.Values{"csrf": {c.token("/settings")}}).status; got != 403 {
		t.Errorf("another browser's token = %d, want 403", got)
	}
	if keys, _ := s.store.AccountKeys(t.Context(), mustUser(t, s, "a@example.com").AccountID); len(keys) != 0 {
		t.Errorf("refused forms made %d keys", len(keys))
	}
	// A right token from another site's page is refused too: the browser
	// says where the request came from.
	a := c.post("/settings/keys", url.Values{"csrf": {c.token("/settings")}}, "Sec-Fetch-Site", "cross-site")
	if a.status != 403 {
		t.Errorf("cross-site POST with a valid token = %d, want 403", a.status)
	}
}

func mustUser(t *testing.T, s *site, email string) account.User {
	t.Helper()
	u, err := s.store.User(t.Context(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestCookiesAndHeaders(t *testing.T) {
	s := newSite(t)
	s.user(t, account.Starter, "a@example.com", goodPassword)
	c := newClient(t, s)
	a := c.signIn("a@example.com", goodPassword)
	var session *http.Cookie
	for _, ck := range (&http.Response{Header: a.header}).Cookies() {
		if ck.Name == "pg_session" {
			session = ck
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/" || session.MaxAge != int(web.DefaultSessionTTL.Seconds()) {
		t.Errorf("session cookie on loopback HTTP = %+v, want HttpOnly, SameSite=Lax, Path=/, 12 h", session)
	}
	page := c.get("/policies")
	if csp := page.header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP = %q", csp)
	}
	if page.header.Get("Cache-Control") != "no-store" || page.header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("page headers %v", page.header)
	}
	if regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).MatchString(page.body) {
		t.Error("a page loads something from another origin")
	}
	// Anywhere but loopback HTTP the cookies are Secure and __Host- named.
	req := httptest.NewRequest("GET", "https://dash.example.com/signin", nil)
	rec := httptest.NewRecorder()
	h, _ := web.New(web.Deps{Store: s.store, Hasher: s.hasher, Now: s.clock.Now})
	h.ServeHTTP(rec, req)
	ck := rec.Result().Cookies()
	if len(ck) != 1 || ck[0].Name != "__Host-pg_csrf" || !ck[0].Secure || rec.Header().Get("Strict-Transport-Security") == "" {
		t.Errorf("over HTTPS: cookies %+v, HSTS %q; want a Secure __Host- cookie and HSTS", ck, rec.Header().Get("Strict-Transport-Security"))
	}
}

func TestSignInReturnsOnlyToLocalPaths(t *testing.T) {
	s := newSite(t)
	s.user(t, account.Starter, "a@example.com", goodPassword)
	for next, want := range map[string]string{
		"/settings":             "/settings",
		"//evil.example/":       "/policies",
		"/\\evil.example":       "/policies",
		"https://evil.example/": "/policies",
	} {
		c := newClient(t, s)
		a := c.post("/signin", url.Values{"csrf": {c.token("/signin")}, "email": {"a@example.com"}, "password": {goodPassword}, "next": {next}})
		if got := a.header.Get("Location"); got != want {
			t.Errorf("next=%q: Location %q, want %q", next, got, want)
		}
	}
}

// generateForm is a complete, valid generate form.
func generateForm(csrf, nonce string) url.Values {
	return url.Values{
		"csrf": {csrf}, "nonce": {nonce}, "type": {"privacy"}, "language": {"en"}, "format": {"markdown"},
		"jurisdiction": {"DE"}, "businessName": {"Acme"}, "websiteUrl": {"https://acme.example"},
		"businessType": {"saas"}, "collectsUserData": {"on"}, "thirdPartyServices": {"stripe", "google-analytics"},
		"otherServices": {"Acme Mailer"}, "consentBanner": {"yes"}, "retention": {"orders: 10 years\r\n"},
	}
}

func TestGenerateFormStoresOncePerForm(t *testing.T) {
	s := newSite(t)
	u := s.user(t, account.Pro, "a@example.com", goodPassword)
	c := newClient(t, s)
	c.signIn("a@example.com", goodPassword)
	csrf := c.token("/policies/new")
	nonce := strings.Repeat("n", 43)
	first := c.post("/policies", generateForm(csrf, nonce))
	if first.status != 303 || !strings.HasPrefix(first.header.Get("Location"), "/policies/plc_") {
		t.Fatalf("generate = %d %s", first.status, first.header.Get("Location"))
	}
	again := c.post("/policies", generateForm(csrf, nonce))
	if again.status != 303 || again.header.Get("Location") != first.header.Get("Location") {
		t.Errorf("the same form again = %d %s, want the first policy %s", again.status, again.header.Get("Location"), first.header.Get("Location"))
	}
	items := policies(t, s, u.ID)
	if len(items) != 1 {
		t.Fatalf("%d policies stored, want 1", len(items))
	}
	p := items[0]
	if p.Jurisdiction != "EU" || p.MemberState != "DE" || !slicesEqual(p.ThirdPartyServices, []string{"Acme Mailer", "google-analytics", "stripe"}) ||
		p.ConsentBanner == nil || !*p.ConsentBanner || p.Retention["orders"] != "10 years" || p.CollectsPayments {
		t.Errorf("stored request %+v does not match the form", p.Request)
	}
	if n, _ := s.store.GenerationCount(t.Context(), u.ID, store.Month(s.clock.Now())); n != 1 {
		t.Errorf("usage %d, want 1", n)
	}
	// The policy's page and the API agree on what was stored.
	view := c.get(first.header.Get("Location"))
	if view.status != 200 || !strings.Contains(view.body, "Acme Mailer") {
		t.Errorf("policy page = %d", view.status)
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGenerateFormErrorsNameFields(t *testing.T) {
	s := newSite(t)
	u := s.user(t, account.Starter, "a@example.com", goodPassword)
	c := newClient(t, s)
	c.signIn("a@example.com", goodPassword)
	form := generateForm(c.token("/policies/new"), strings.Repeat("e", 43))
	form.Set("businessType", "ecomerce")
	form.Set("websiteUrl", "")
	form.Set("retention", "orders 10 years")
	a := c.post("/policies", form)
	if a.status != 422 {
		t.Fatalf("bad form = %d, want 422", a.status)
	}
	for _, id := range []string{"f-businessType-error", "f-websiteUrl-error", "f-retention-error"} {
		if !strings.Contains(a.body, `id="`+id+`"`) {
			t.Errorf("no %s on the page", id)
		}
	}
	if !strings.Contains(a.body, "Did you mean") || !strings.Contains(a.body, `value="Acme"`) {
		t.Errorf("the page lacks the suggestion or the entered values:\n%s", a.body)
	}
	if n := len(policies(t, s, u.ID)); n != 0 {
		t.Errorf("a bad form stored %d policies", n)
	}
}

func TestQuotaShownOnTheForm(t *testing.T) {
	s := newSite(t)
	u := s.user(t, account.Starter, "a@example.com", goodPassword)
	c := newClient(t, s)
	c.signIn("a@example.com", goodPassword)
	csrf := c.token("/policies/new")
	quota := account.Starter.Limits().MonthlyGenerations
	for i := range quota {
		if got := c.post("/policies", generateForm(csrf, strings.Repeat(string(rune('a'+i)), 43))).status; got != 303 {
			t.Fatalf("generation %d = %d", i+1, got)
		}
	}
	a := c.post("/policies", generateForm(csrf, strings.Repeat("z", 43)))
	if a.status != 429 || !strings.Contains(a.body, "All 10 generations of the Starter plan") {
		t.Errorf("over the quota = %d, want 429 with the quota message", a.status)
	}
	if n := len(policies(t, s, u.ID)); n != quota {
		t.Errorf("%d policies, want %d", n, quota)
	}
}

// One account's pages never show another's policies or keys: the same 404
// as for an id that does not exist.
func TestAccountsAreApart(t *testing.T) {
	s := newSite(t)
	s.user(t, account.Agency, "a@example.com", goodPassword)
	s.user(t, account.Agency, "b@example.com", goodPassword)
	a, b := newClient(t, s), newClient(t, s)
	a.signIn("a@example.com", goodPassword)
	b.signIn("b@example.com", goodPassword)
	loc := a.post("/policies", generateForm(a.token("/policies/new"), strings.Repeat("a", 43))).header.Get("Location")
	a.post("/settings/keys", url.Values{"csrf": {a.token("/settings")}})
	keyID := regexp.MustCompile(`/settings/keys/(key_[0-9a-z]+)/revoke`).FindStringSubmatch(a.get("/settings").body)
	if loc == "" || keyID == nil {
		t.Fatal("setup: no policy or key")
	}
	missing := "/policies/plc_01m82xvb7n10fcevd8n4njd44f"
	for _, path := range []string{loc, loc + "/download/md", loc + "/delete", missing} {
		if got := b.get(path); got.status != 404 || strings.Contains(got.body, "Acme") {
			t.Errorf("B GET %s = %d, want 404 without A's data", path, got.status)
		}
	}
	if got := b.post(loc+"/delete", url.Values{"csrf": {b.token("/settings")}}).status; got != 404 {
		t.Errorf("B deleting A's policy = %d, want 404", got)
	}
	for _, action := range []string{"revoke", "rotate"} {
		if got := b.post("/settings/keys/"+keyID[1]+"/"+action, url.Values{"csrf": {b.token("/settings")}, "grace": {"0"}}).status; got != 404 {
			t.Errorf("B %s of A's key = %d, want 404", action, got)
		}
	}
	if got := a.get(loc).status; got != 200 {
		t.Errorf("A's policy after B's attempts = %d", got)
	}
	k, _ := s.store.Key(t.Context(), keyID[1])
	if k.RevokedAt != nil {
		t.Error("B revoked A's key")
	}
}

// failingStore answers session reads with an outage.
type failingStore struct{ store.Store }

func (failingStore) Session(context.Context, string) (account.Session, error) {
	return account.Session{}, store.Unavailable(errors.New("connection refused"))
}

func TestStoreOutageIsAPage(t *testing.T) {
	s := newSite(t)
	h, _ := web.New(web.Deps{Store: failingStore{s.store}, Hasher: s.hasher, Now: s.clock.Now})
	req := httptest.NewRequest("GET", "http://127.0.0.1/policies", nil)
	req.AddCookie(&http.Cookie{Name: "pg_session", Value: strings.Repeat("t", 43)})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "Try again") {
		t.Errorf("outage = %d %q, want a 503 page with Retry-After", rec.Code, rec.Body.String())
	}
}

func TestUnknownPagesAre404(t *testing.T) {
	s := newSite(t)
	c := newClient(t, s)
	if a := c.get("/nope"); a.status != 404 || !strings.Contains(a.body, "Page not found") {
		t.Errorf("GET /nope = %d", a.status)
	}
	// API paths keep the API's answers.
	if a := c.get("/v1/nope"); a.status != 404 || !strings.HasPrefix(a.header.Get("Content-Type"), "application/problem+json") {
		t.Errorf("GET /v1/nope = %d %s, want the API's problem+json", a.status, a.header.Get("Content-Type"))
	}
}

// TestGenerateFormHasEveryField: the dashboard's form offers every field
// the API takes, so a field added to the request cannot be left out of it.
func TestGenerateFormHasEveryField(t *testing.T) {
	s := newSite(t)
	s.user(t, account.Starter, "a@example.com", goodPassword)
	c := newClient(t, s)
	c.signIn("a@example.com", goodPassword)
	page := c.get("/policies/new").body
	for _, f := range policy.FieldNames() {
		if !strings.Contains(page, `name="`+f+`"`) {
			t.Errorf("the generate form has no control named %q", f)
		}
	}
}

// TestGenerateTermsFromTheForm: the contract fields of the form reach the
// request: the governing law, the minimum age and renewing subscriptions.
func TestGenerateTermsFromTheForm(t *testing.T) {
	s := newSite(t)
	u := s.user(t, account.Pro, "a@example.com", goodPassword)
	c := newClient(t, s)
	c.signIn("a@example.com", goodPassword)
	form := generateForm(c.token("/policies/new"), strings.Repeat("t", 43))
	form.Set("type", "terms")
	form.Set("collectsPayments", "on")
	form.Set("contactEmail", "legal@acme.example")
	form.Set("governingLaw", "Ireland")
	form.Set("minimumAge", "18")
	form.Set("subscriptions", "renews")
	form.Set("subscriptionBillingPeriod", "month")
	form.Set("subscriptionCancellation", "online")
	if a := c.post("/policies", form); a.status != 303 {
		t.Fatalf("generate terms = %d\n%s", a.status, a.body)
	}
	ps := policies(t, s, u.ID)
	if len(ps) != 1 {
		t.Fatalf("%d policies stored, want 1", len(ps))
	}
	r := ps[0].Request
	if r.Type != "terms" || r.GoverningLaw != "IE" || r.MinimumAge != 18 || r.Subscriptions == nil ||
		r.Subscriptions.AutoRenews == nil || !*r.Subscriptions.AutoRenews || r.Subscriptions.BillingPeriod != "month" || r.Subscriptions.Cancellation != "online" {
		t.Errorf("stored request = %+v (subscriptions %+v)", r, r.Subscriptions)
	}
	form = generateForm(c.token("/policies/new"), strings.Repeat("u", 43))
	form.Set("type", "terms")
	form.Set("minimumAge", "eighteen")
	if a := c.post("/policies", form); a.status != 422 || !strings.Contains(a.body, `id="f-minimumAge-error"`) {
		t.Errorf("a minimum age in words = %d, want 422 with the error at its field", a.status)
	}
}

// TestGenerateSeveralJurisdictions: the form's jurisdiction boxes are sent
// as one value per box, or as a comma-separated list; either reaches the
// request as the API's comma-separated jurisdiction, stored in catalog
// order. The boxes stay ticked when the form comes back with an error, and
// the list and the policy's page name every jurisdiction.
func TestGenerateSeveralJurisdictions(t *testing.T) {
	s := newSite(t)
	u := s.user(t, account.Pro, "a@example.com", goodPassword)
	c := newClient(t, s)
	c.signIn("a@example.com", goodPassword)
	csrf := c.token("/policies/new")
	ticked := func(body, id string) bool {
		return regexp.MustCompile(`<input type="checkbox" id="j-` + regexp.QuoteMeta(id) + `" name="jurisdiction" value="` + regexp.QuoteMeta(id) + `" checked>`).MatchString(body)
	}

	for i, tc := range []struct {
		name          string
		values        []string
		memberState   string
		want, wantMem string
	}{
		{"one box each", []string{"US-CA", "EU"}, "", "EU,US-CA", ""},
		{"one comma-joined value", []string{"California, EU"}, "", "EU,US-CA", ""},
		{"boxes and a member state", []string{"EU", "UK", "US-CA"}, "DE", "EU,UK,US-CA", "DE"},
		{"a member state as a jurisdiction", []string{"France", "US-CA"}, "", "EU,US-CA", "FR"},
	} {
		form := generateForm(csrf, strings.Repeat(string(rune('a'+i)), 43))
		form["jurisdiction"] = tc.values
		if tc.memberState != "" {
			form.Set("memberState", tc.memberState)
		}
		a := c.post("/policies", form)
		if a.status != 303 {
			t.Fatalf("%s: generate = %d\n%s", tc.name, a.status, a.body)
		}
		p, err := s.store.Policy(t.Context(), u.ID, strings.TrimPrefix(a.header.Get("Location"), "/policies/"))
		if err != nil {
			t.Fatal(err)
		}
		if p.Jurisdiction != tc.want || p.MemberState != tc.wantMem {
			t.Errorf("%s: stored jurisdiction %q, member state %q; want %q, %q", tc.name, p.Jurisdiction, p.MemberState, tc.want, tc.wantMem)
		}
		if !strings.Contains(p.Content, "Information for California residents") || !strings.Contains(p.Content, "Your right to object") {
			t.Errorf("%s: the document lacks the CCPA or the GDPR section", tc.name)
		}
		if tc.name == "boxes and a member state" {
			view := c.get(a.header.Get("Location"))
			for _, want := range []string{"European Union <span class=\"code\">(EU)</span>, member state: Germany", "United Kingdom <span class=\"code\">(UK)</span>", "California <span class=\"code\">(US-CA)</span>"} {
				if !strings.Contains(view.body, want) {
					t.Errorf("the policy's page lacks %q", want)
				}
			}
		}
	}
	if list := c.get("/policies").body; !strings.Contains(list, "<td>European Union (Germany), United Kingdom, California</td>") ||
		!strings.Contains(list, "<td>European Union, California</td>") {
		t.Errorf("the policy list does not name the jurisdictions:\n%s", list)
	}

	// An error elsewhere keeps the boxes ticked and the member state chosen.
	form := generateForm(csrf, strings.Repeat("x", 43))
	form["jurisdiction"] = []string{"UK", "US-CA"}
	form.Set("memberState", "AT")
	a := c.post("/policies", form)
	if a.status != 422 || !strings.Contains(a.body, `id="f-memberState-error"`) {
		t.Fatalf("a member state without the EU = %d, want 422 with the error at its field", a.status)
	}
	if !ticked(a.body, "UK") || !ticked(a.body, "US-CA") || ticked(a.body, "EU") || !strings.Contains(a.body, `<option value="AT" selected>`) {
		t.Errorf("the form after an error does not keep UK and US-CA ticked (and only them) and Austria chosen")
	}
	// No box ticked: the error belongs to the group.
	form = generateForm(csrf, strings.Repeat("y", 43))
	delete(form, "jurisdiction")
	a = c.post("/policies", form)
	if a.status != 422 || !strings.Contains(a.body, `id="f-jurisdiction-error"`) || !strings.Contains(a.body, `aria-describedby="f-jurisdiction-help f-jurisdiction-error"`) {
		t.Errorf("no jurisdiction = %d, want 422 with the error linked to the jurisdiction fieldset", a.status)
	}
	if n := len(policies(t, s, u.ID)); n != 4 {
		t.Errorf("%d policies stored, want 4", n)
	}
}

// TestGenerateFormListsEveryJurisdiction: a box for every catalog
// jurisdiction, named, inside a labelled group; the EU alone ticked at
// first.
func TestGenerateFormListsEveryJurisdiction(t *testing.T) {
	s := newSite(t)
	s.user(t, account.Starter, "a@example.com", goodPassword)
	c := newClient(t, s)
	c.signIn("a@example.com", goodPassword)
	page := c.get("/policies/new").body
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	box := regexp.MustCompile(`<input type="checkbox" id="j-([A-Z-]+)" name="jurisdiction" value="([A-Z-]+)"( checked)?> <label for="j-([A-Z-]+)">([^<]+) <span class="code">\(([A-Z-]+)\)</span></label>`)
	found := map[string]string{}
	for _, m := range box.FindAllStringSubmatch(page, -1) {
		if m[1] != m[2] || m[1] != m[4] || m[1] != m[6] {
			t.Errorf("box %q: id, value and label disagree", m[0])
		}
		if (m[3] != "") != (m[1] == "EU") {
			t.Errorf("box %s ticked = %v on a new form, want only EU", m[1], m[3] != "")
		}
		found[m[1]] = m[5]
	}
	for _, j := range cat.Jurisdictions {
		name, ok := found[j.ID]
		if !ok {
			t.Errorf("no box for %s", j.ID)
		} else if name == "" || name == j.ID || strings.ToUpper(name) == name {
			t.Errorf("box %s is named %q, want a name", j.ID, name)
		}
	}
	if len(found) != len(cat.Jurisdictions) {
		t.Errorf("%d boxes for %d jurisdictions", len(found), len(cat.Jurisdictions))
	}
	if !strings.Contains(page, `<legend>Jurisdictions <span class="req">(at least one)</span></legend>`) || strings.Count(page, `<fieldset class="area">`) < 3 {
		t.Error("the jurisdictions are not in a labelled fieldset grouped by area")
	}
}
