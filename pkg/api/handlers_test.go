package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
)

// seed stores a policy directly, for tests about reading, listing and
// deleting that do not need the generator.
func (e *env) seed(accountID string) string {
	e.t.Helper()
	p := store.Policy{
		Summary: store.Summary{
			ID: ids.New(ids.Policy), AccountID: accountID,
			Request: policy.Request{Type: "privacy", BusinessName: "Seeded", WebsiteURL: "https://seeded.example",
				BusinessType: "saas", Language: "en", Jurisdiction: "UK", ThirdPartyServices: []string{},
				EffectiveDate: "2026-03-14", Format: "markdown"},
			RiskScore: 10, RiskLevel: "low",
			ComplianceFlags: []compliance.Flag{{Code: "c", Severity: compliance.SeverityInfo, Law: "UK GDPR",
				Citation: "Art. 13", Message: "m", Fix: "f"}},
			TemplateVersion: "test", CreatedAt: e.clock.Now().UTC().Truncate(time.Second),
		},
		Content: "# Privacy policy\n",
	}
	if err := e.store.CreatePolicy(context.Background(), p, store.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	return p.ID
}

func TestGenerate(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	rec := e.generate(key, validBody)
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var got map[string]any
	decode(t, rec, &got)
	id, _ := got["id"].(string)
	if !ids.Valid("plc_", id) {
		t.Fatalf("id %q", id)
	}
	if loc := rec.Header().Get("Location"); loc != "/v1/policies/"+id {
		t.Errorf("Location = %q", loc)
	}
	want := map[string]any{
		"type": "privacy", "businessName": "Acme Widgets Ltd", "websiteUrl": "https://acme.example",
		"businessType": "ecommerce", "language": "en", "jurisdiction": "EU", "collectsPayments": true,
		"collectsUserData": true, "usesAnalytics": true, "format": "markdown",
		"thirdPartyServices": []any{"google-analytics", "stripe"}, // normalised: sorted
		"createdAt":          "2026-03-14T15:09:26Z",
	}
	for k, v := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(v) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if c, _ := got["content"].(string); c == "" {
		t.Error("content is empty")
	}
	// GET returns the same object, byte for byte.
	g := e.get("/v1/policies/"+id, key)
	if g.Code != http.StatusOK || !bytes.Equal(g.Body.Bytes(), rec.Body.Bytes()) {
		t.Errorf("GET after generate: %d\n%s\nwant\n%s", g.Code, g.Body, rec.Body)
	}
	// The generation is counted.
	var prof struct{ Usage struct{ Generations int } }
	decode(t, e.get("/v1/auth/profile", key), &prof)
	if prof.Usage.Generations != 1 {
		t.Errorf("generations = %d, want 1", prof.Usage.Generations)
	}
}

// The document's "Last updated" date defaults to the creation day, and the
// normalised fields returned (effectiveDate included) regenerate the same
// bytes on another day.
func TestGenerateEffectiveDate(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	rec := e.generate(key, validBody)
	if rec.Code != http.StatusCreated {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var first map[string]any
	decode(t, rec, &first)
	if first["effectiveDate"] != "2026-03-14" {
		t.Fatalf("effectiveDate = %v, want the creation day 2026-03-14", first["effectiveDate"])
	}
	if c, _ := first["content"].(string); !strings.Contains(c, "Last updated: 14 March 2026") {
		t.Errorf("content does not carry the effective date:\n%.400s", c)
	}

	// A month later, the same normalised request gives the same document.
	e.clock.Set(e.clock.Now().Add(30 * 24 * time.Hour))
	replay := map[string]any{}
	for _, f := range []string{"type", "businessName", "websiteUrl", "businessType", "language", "jurisdiction",
		"collectsPayments", "collectsUserData", "usesAnalytics", "thirdPartyServices", "format", "effectiveDate"} {
		replay[f] = first[f]
	}
	body, _ := json.Marshal(replay)
	rec = e.generate(key, string(body))
	if rec.Code != http.StatusCreated {
		t.Fatalf("replay status %d: %s", rec.Code, rec.Body)
	}
	var second map[string]any
	decode(t, rec, &second)
	if second["content"] != first["content"] {
		t.Error("the same normalised request gave different content on another day")
	}
	if second["createdAt"] == first["createdAt"] {
		t.Error("createdAt did not move with the clock")
	}

	// An explicit date is used as given; a bad one is a field error.
	rec = e.generate(key, strings.Replace(validBody, `"type"`, `"effectiveDate": "2025-12-01", "type"`, 1))
	var third map[string]any
	decode(t, rec, &third)
	if c, _ := third["content"].(string); !strings.Contains(c, "Last updated: 1 December 2025") {
		t.Errorf("explicit effectiveDate not used:\n%.400s", c)
	}
	rec = e.generate(key, strings.Replace(validBody, `"type"`, `"effectiveDate": "2025-13-01", "type"`, 1))
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `"field":"effectiveDate"`) {
		t.Errorf("bad effectiveDate: %d %s", rec.Code, rec.Body)
	}
}

func TestGenerateValidation(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	tests := []struct {
		name       string
		body       string
		status     int
		code       string
		wantFields []string
	}{
		{"not JSON", `{`, 400, "invalid_json", nil},
		{"empty body", ``, 400, "invalid_json", nil},
		{"array", `[]`, 400, "invalid_json", nil},
		{"null", `null`, 400, "invalid_json", nil},
		{"two objects", `{} {}`, 400, "invalid_json", nil},
		{"empty object: every required field", `{}`, 422, "validation_failed", []string{
			"businessName", "businessType", "collectsPayments", "collectsUserData", "jurisdiction", "type",
			"usesAnalytics", "websiteUrl"}},
		{"wrong types and unknown fields", `{"type":1,"businessName":true,"websiteUrl":["x"],"businessType":{},
			"language":2,"jurisdiction":false,"collectsPayments":"yes","collectsUserData":0,"usesAnalytics":null,
			"thirdPartyServices":"stripe","contactEmail":5,"postalAddress":[],"format":1,"extra":1,"Type":"privacy"}`,
			422, "validation_failed", []string{"Type", "businessName", "businessType", "collectsPayments",
				"collectsUserData", "contactEmail", "extra", "format", "jurisdiction", "language", "postalAddress",
				"thirdPartyServices", "type", "usesAnalytics", "websiteUrl"}},
		{"empty strings and bad values", `{"type":"","businessName":"   ","websiteUrl":"ftp://acme.example",
			"businessType":"casino","language":"xx","jurisdiction":"MARS","collectsPayments":true,
			"collectsUserData":true,"usesAnalytics":false,"thirdPartyServices":["stripe","nope",7],
			"contactEmail":"Bob <bob@example.com>","format":"pdf"}`,
			422, "validation_failed", []string{"businessName", "businessType", "contactEmail", "format",
				"jurisdiction", "language", "thirdPartyServices[2]", "type", "websiteUrl"}},
		{"over-long and relative URL", `{"type":"privacy","businessName":"` + strings.Repeat("n", policy.MaxBusinessName+1) +
			`","websiteUrl":"/relative","businessType":"saas","jurisdiction":"EU","collectsPayments":false,
			"collectsUserData":false,"usesAnalytics":false,"postalAddress":"` + strings.Repeat("a", policy.MaxPostalAddress+1) + `"}`,
			422, "validation_failed", []string{"businessName", "postalAddress", "websiteUrl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := e.do(request{method: "POST", path: "/v1/policies/generate", key: key, body: tt.body,
				header: http.Header{"Content-Type": {"application/json"}}})
			p := wantProblem(t, rec, tt.status, tt.code)
			if got := fields(p); !slices.Equal(got, tt.wantFields) {
				t.Errorf("fields = %v\nwant     %v", got, tt.wantFields)
			}
		})
	}

	t.Run("unknown values are named with suggestions, never the whole list", func(t *testing.T) {
		body := `{"type":"privcy","businessType":"saass","language":"xx","jurisdiction":"EUU","thirdPartyServices":["stirpe"]}`
		rec := e.generate(key, body)
		p := wantProblem(t, rec, 422, "validation_failed")
		want := map[string][2]string{ // field: value, first suggestion ("" for none)
			"type": {"privcy", "privacy"}, "businessType": {"saass", "saas"}, "language": {"xx", ""},
			"jurisdiction": {"EUU", "EU"},
		}
		for _, fe := range p.Errors {
			w, ok := want[fe.Field]
			if !ok {
				continue
			}
			if fe.Value != w[0] || len(fe.Suggestions) > 3 || (w[1] != "" && (len(fe.Suggestions) == 0 || fe.Suggestions[0] != w[1])) {
				t.Errorf("%s: value %q suggestions %q, want %q first %q", fe.Field, fe.Value, fe.Suggestions, w[0], w[1])
			}
			delete(want, fe.Field)
		}
		if len(want) > 0 {
			t.Errorf("no error for %v", want)
		}
		// The error body stays small: no vocabulary dumps.
		if rec.Body.Len() > 4*len(body)+2048 {
			t.Errorf("error body of %d bytes for a %d-byte request", rec.Body.Len(), len(body))
		}
	})

	t.Run("governingLaw Canada is refused: contract law is a province's", func(t *testing.T) {
		for _, gl := range []string{"Canada", "CA"} {
			body := `{"type":"terms","businessName":"B","websiteUrl":"https://b.example","businessType":"saas","jurisdiction":"CA",` +
				`"collectsPayments":false,"collectsUserData":false,"usesAnalytics":false,"governingLaw":"` + gl + `"}`
			p := wantProblem(t, e.generate(key, body), 422, "validation_failed")
			if len(p.Errors) != 1 || p.Errors[0].Field != "governingLaw" || !strings.Contains(p.Errors[0].Message, "province") ||
				!slices.Equal(p.Errors[0].Suggestions, []string{"CA-ON", "CA-QC", "CA-BC"}) {
				t.Errorf("%s: %+v, want one governingLaw error naming provinces, suggesting CA-ON, CA-QC, CA-BC", gl, p.Errors)
			}
		}
		body := `{"type":"terms","businessName":"B","websiteUrl":"https://b.example","businessType":"saas","jurisdiction":"CA",` +
			`"collectsPayments":false,"collectsUserData":false,"usesAnalytics":false,"governingLaw":"Québec"}`
		if rec := e.generate(key, body); rec.Code != 200 && rec.Code != 201 {
			t.Errorf("governingLaw Québec: status %d: %s", rec.Code, rec.Body)
		}
	})
}

func TestGenerateBodyLimits(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	huge := `{"businessName":"` + strings.Repeat("a", api.MaxBodyBytes) + `"}`
	t.Run("declared length", func(t *testing.T) {
		wantProblem(t, e.generate(key, huge), 413, "request_too_large")
	})
	t.Run("chunked, no length", func(t *testing.T) {
		req := httptest.NewRequest("POST", "/v1/policies/generate", strings.NewReader(huge))
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		wantProblem(t, rec, 413, "request_too_large")
	})

	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/json-patch+json", "application/jsonx", "garbage;;",
		"application/json; charset=iso-8859-1", "application/json; charset=utf-16"} {
		t.Run("content type "+ct, func(t *testing.T) {
			rec := e.do(request{method: "POST", path: "/v1/policies/generate", key: key, body: validBody,
				header: http.Header{"Content-Type": {ct}}})
			wantProblem(t, rec, 415, "unsupported_media_type")
		})
	}
	t.Run("content type with charset is JSON", func(t *testing.T) {
		rec := e.do(request{method: "POST", path: "/v1/policies/generate", key: key, body: `{}`,
			header: http.Header{"Content-Type": {"Application/JSON; charset=utf-8"}}})
		wantProblem(t, rec, 422, "validation_failed")
	})
}

// routeRequests is one request per route, for tests that apply to all.
func routeRequests(key, policyID string) []request {
	return []request{
		{method: "POST", path: "/v1/policies/generate", key: key, body: validBody},
		{method: "GET", path: "/v1/policies", key: key},
		{method: "GET", path: "/v1/policies/" + policyID, key: key},
		{method: "DELETE", path: "/v1/policies/" + policyID, key: key},
		{method: "GET", path: "/v1/auth/profile", key: key},
		{method: "GET", path: "/v1/catalog", key: key},
		{method: "POST", path: "/v1/policies/bulk", key: key, body: bulkBody(validBody)},
	}
}

// bulkBody is a bulk request of the given generation requests, referenced r0, r1...
func bulkBody(reqs ...string) string {
	var items []string
	for i, r := range reqs {
		items = append(items, fmt.Sprintf(`{"reference":"r%d","request":%s}`, i, r))
	}
	return `{"items":[` + strings.Join(items, ",") + `]}`
}

func TestUnauthenticated(t *testing.T) {
	e := newEnv(t)
	acct, key := e.account(account.Agency)
	pid := e.seed(acct)
	ctx := context.Background()

	unknown, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	secretRevoked, k, err := auth.Issue(ctx, e.store, e.hasher, acct, e.clock.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.RevokeKey(ctx, k.ID, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	exp := e.clock.Now().Add(time.Hour)
	secretExpired, _, err := auth.Issue(ctx, e.store, e.hasher, acct, e.clock.Now(), &exp)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Set(exp.Add(time.Second))

	tests := []struct {
		name, authorization, code string
	}{
		{"no header", "", "missing_api_key"},
		{"other scheme", "Basic " + base64.StdEncoding.EncodeToString([]byte("a:b")), "missing_api_key"},
		{"scheme only", "Bearer", "missing_api_key"},
		{"garbage", "Bearer not-a-key", "invalid_api_key"},
		{"bad checksum", "Bearer " + key[:len(key)-1] + flip(key[len(key)-1]), "invalid_api_key"},
		{"unknown key", "Bearer " + unknown, "invalid_api_key"},
		{"revoked key", "Bearer " + secretRevoked, "revoked_api_key"},
		{"expired key", "Bearer " + secretExpired, "expired_api_key"},
	}
	for _, tt := range tests {
		for _, r := range routeRequests("", pid) {
			t.Run(tt.name+" "+r.method+" "+r.path, func(t *testing.T) {
				if tt.authorization != "" {
					r.header = http.Header{"Authorization": {tt.authorization}}
				}
				rec := e.do(r)
				wantProblem(t, rec, 401, tt.code)
				if ch := rec.Header().Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Bearer ") {
					t.Errorf("WWW-Authenticate = %q", ch)
				}
			})
		}
	}
	// Several Authorization headers: none wins, not even a valid key (API
	// Gateway joins them into one value, which is no key).
	for _, hdrs := range [][]string{
		{"Bearer " + key, "Bearer not-a-key"},
		{"Bearer not-a-key", "Bearer " + key},
		{"Bearer " + key, "Bearer " + key},
	} {
		for _, r := range routeRequests("", pid) {
			t.Run(fmt.Sprintf("%d headers %s %s", len(hdrs), r.method, r.path), func(t *testing.T) {
				r.header = http.Header{"Authorization": hdrs}
				wantProblem(t, e.do(r), 401, "invalid_api_key")
			})
		}
	}
	// The policy survived all those DELETEs.
	if _, err := e.store.Policy(ctx, acct, pid); err != nil {
		t.Errorf("policy gone after unauthenticated deletes: %v", err)
	}
}

// brokenPepper is a pepper source that always fails, like Secrets Manager
// out of reach.
type brokenPepper struct{}

func (brokenPepper) Value(context.Context) ([]byte, error) {
	return nil, errors.New("secrets manager unreachable")
}

// TestMalformedKeyNeedsNoSecret: a cold function answers missing and
// malformed keys without the pepper; only a well-formed key needs it.
func TestMalformedKeyNeedsNoSecret(t *testing.T) {
	e := newEnv(t)
	e.deps.Auth = &auth.Authenticator{Store: e.store, Hasher: &auth.Hasher{Pepper: brokenPepper{}}, CacheTTL: -1}
	e.h = api.NewServer(e.deps)
	wantProblem(t, e.get("/v1/policies", ""), 401, "missing_api_key")
	wantProblem(t, e.get("/v1/policies", "pol_live_short"), 401, "invalid_api_key")
	wellFormed, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	p := wantProblem(t, e.get("/v1/policies", wellFormed), 500, "internal_error")
	if !strings.Contains(e.logs.String(), "secrets manager unreachable") || strings.Contains(p.Detail, "secrets") {
		t.Errorf("cause should be logged, not sent: %+v\n%s", p, e.logs)
	}
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func TestPlanNotEntitled(t *testing.T) {
	e := newEnv(t)
	for _, plan := range []account.Plan{account.Starter, account.Pro} {
		acct, key := e.account(plan)
		pid := e.seed(acct)
		for _, r := range routeRequests(key, pid) {
			t.Run(string(plan)+" "+r.method+" "+r.path, func(t *testing.T) {
				if r.path == "/v1/catalog" {
					// Any plan's key may read the catalog.
					if rec := e.do(r); rec.Code != http.StatusOK {
						t.Fatalf("catalog with a %s key: %d %s", plan, rec.Code, rec.Body)
					}
					return
				}
				p := wantProblem(t, e.do(r), 403, "plan_not_entitled")
				if !strings.Contains(p.Detail, "Agency plan") {
					t.Errorf("detail %q does not name the Agency plan", p.Detail)
				}
			})
		}
		// An upgrade takes effect (the test authenticator has no cache).
		if err := e.store.SetPlan(context.Background(), acct, account.Agency); err != nil {
			t.Fatal(err)
		}
		if rec := e.get("/v1/policies/"+pid, key); rec.Code != 200 {
			t.Errorf("after upgrade: %d %s", rec.Code, rec.Body)
		}
	}
}

type listBody struct {
	Data       []map[string]any
	HasMore    bool
	NextCursor *string
}

func TestListPaging(t *testing.T) {
	e := newEnv(t)
	acct, key := e.account(account.Agency)
	other, _ := e.account(account.Agency)
	e.seed(other)
	var created []string
	for range 45 {
		created = append(created, e.seed(acct))
	}
	slices.Reverse(created) // newest first

	var got []string
	var sizes []int
	path := "/v1/policies?limit=20"
	for page := 0; ; page++ {
		if page > 5 {
			t.Fatal("paging does not end")
		}
		rec := e.get(path, key)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		var l listBody
		decode(t, rec, &l)
		sizes = append(sizes, len(l.Data))
		for _, it := range l.Data {
			if _, ok := it["content"]; ok {
				t.Fatal("list item has content")
			}
			got = append(got, it["id"].(string))
		}
		if l.HasMore != (l.NextCursor != nil) {
			t.Fatalf("hasMore %v with nextCursor %v", l.HasMore, l.NextCursor)
		}
		if !l.HasMore {
			break
		}
		path = "/v1/policies?limit=20&cursor=" + *l.NextCursor
	}
	if !slices.Equal(sizes, []int{20, 20, 5}) {
		t.Errorf("page sizes = %v, want [20 20 5]", sizes)
	}
	if !slices.Equal(got, created) {
		t.Errorf("listed ids (newest first, no dupes) =\n%v\nwant\n%v", got, created)
	}

	var l listBody
	decode(t, e.get("/v1/policies", key), &l)
	if len(l.Data) != api.DefaultListLimit || !l.HasMore {
		t.Errorf("default page: %d items, hasMore %v", len(l.Data), l.HasMore)
	}
	decode(t, e.get("/v1/policies?limit=100", key), &l)
	if len(l.Data) != 45 || l.HasMore || l.NextCursor != nil {
		t.Errorf("limit=100: %d items, hasMore %v, next %v", len(l.Data), l.HasMore, l.NextCursor)
	}
}

func TestListBadParameters(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		query, code string
		fields      []string
	}{
		{"limit=0", "invalid_limit", []string{"limit"}},
		{"limit=101", "invalid_limit", []string{"limit"}},
		{"limit=-1", "invalid_limit", []string{"limit"}},
		{"limit=abc", "invalid_limit", []string{"limit"}},
		{"limit=", "invalid_limit", []string{"limit"}},
		{"limit=1.5", "invalid_limit", []string{"limit"}},
		{"limit=99999999999999999999", "invalid_limit", []string{"limit"}},
		{"cursor=", "invalid_cursor", []string{"cursor"}},
		{"cursor=!!!", "invalid_cursor", []string{"cursor"}},
		{"cursor=" + enc("hello"), "invalid_cursor", []string{"cursor"}},
		{"cursor=" + enc(ids.New("acct_")), "invalid_cursor", []string{"cursor"}},
		{"cursor=" + ids.New("plc_"), "invalid_cursor", []string{"cursor"}},
		{"cursor=" + base64.URLEncoding.EncodeToString([]byte(ids.New("plc_")+"x")), "invalid_cursor", []string{"cursor"}},
		{"limit=0&cursor=zzz", "invalid_query", []string{"cursor", "limit"}},
		// Pairs url.Values would silently drop, serving the default page.
		{"limit=%ZZ", "invalid_limit", []string{"limit"}},
		{"limit=5;cursor=x", "invalid_limit", []string{"limit"}},
		{"cursor=%ZZ", "invalid_cursor", []string{"cursor"}},
		// Repeated: which one was meant is unknown.
		{"limit=1&limit=500", "invalid_limit", []string{"limit"}},
		{"limit=5&l%69mit=5", "invalid_limit", []string{"limit"}},
		{"cursor=" + enc(ids.New("plc_")) + "&cursor=" + enc(ids.New("plc_")), "invalid_cursor", []string{"cursor"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := wantProblem(t, e.get("/v1/policies?"+tt.query, key), 400, tt.code)
			if !slices.Equal(fields(p), tt.fields) {
				t.Errorf("fields = %v, want %v", fields(p), tt.fields)
			}
		})
	}
	// A well-formed cursor for an id that does not exist is just a position.
	if rec := e.get("/v1/policies?cursor="+enc(ids.New("plc_")), key); rec.Code != 200 {
		t.Errorf("unknown but valid cursor: %d %s", rec.Code, rec.Body)
	}
	// Escaped values are decoded; other parameters are ignored, even
	// undecodable ones.
	acct, key2 := e.account(account.Agency)
	for range 3 {
		e.seed(acct)
	}
	for _, q := range []string{"l%69mit=%32", "limit=2&x=%ZZ", "limit=2&a;b=c"} {
		var l listBody
		rec := e.get("/v1/policies?"+q, key2)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
		}
		if decode(t, rec, &l); len(l.Data) != 2 {
			t.Errorf("%s: %d items, want 2", q, len(l.Data))
		}
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	acct, key := e.account(account.Agency)
	pid := e.seed(acct)
	keep := e.seed(acct)
	del := request{method: "DELETE", path: "/v1/policies/" + pid, key: key}
	rec := e.do(del)
	if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
		t.Fatalf("delete: %d %q", rec.Code, rec.Body)
	}
	wantProblem(t, e.get("/v1/policies/"+pid, key), 404, "policy_not_found")
	wantProblem(t, e.do(del), 404, "policy_not_found")
	if rec := e.get("/v1/policies/"+keep, key); rec.Code != 200 {
		t.Errorf("other policy: %d", rec.Code)
	}
}

func TestTenantIsolation(t *testing.T) {
	e := newEnv(t)
	acctA, keyA := e.account(account.Agency)
	_, keyB := e.account(account.Agency)
	pid := e.seed(acctA)
	never := ids.New("plc_")

	// Same incoming request id, so the responses can be compared whole.
	hdr := http.Header{"X-Request-Id": {"fixed-id"}}
	resp := func(method, id, key string) *httptest.ResponseRecorder {
		return e.do(request{method: method, path: "/v1/policies/" + id, key: key, header: hdr})
	}
	for _, method := range []string{"GET", "DELETE"} {
		theirs := resp(method, pid, keyB)
		wantProblem(t, theirs, 404, "policy_not_found")
		for _, other := range []string{never, "plc_malformed", "x"} {
			missing := resp(method, other, keyB)
			if !bytes.Equal(theirs.Body.Bytes(), missing.Body.Bytes()) {
				t.Errorf("%s: body for another account's policy\n%s\ndiffers from %s\n%s", method, theirs.Body, other, missing.Body)
			}
			// RateLimit counts down with every request of the key, by
			// design; everything else must be the same.
			th, mh := theirs.Header().Clone(), missing.Header().Clone()
			th.Del("RateLimit")
			mh.Del("RateLimit")
			if fmt.Sprint(th) != fmt.Sprint(mh) {
				t.Errorf("%s: headers %v\ndiffer from %s %v", method, th, other, mh)
			}
		}
	}
	var l listBody
	decode(t, e.get("/v1/policies", keyB), &l)
	if len(l.Data) != 0 {
		t.Errorf("B lists %d policies", len(l.Data))
	}
	if rec := e.get("/v1/policies/"+pid, keyA); rec.Code != 200 {
		t.Errorf("A's policy after B's attempts: %d", rec.Code)
	}
	decode(t, e.get("/v1/policies", keyA), &l)
	if len(l.Data) != 1 {
		t.Errorf("A lists %d policies", len(l.Data))
	}
}

func TestProfile(t *testing.T) {
	e := newEnv(t)
	acct, key := e.account(account.Agency)
	for range 3 {
		e.seed(acct)
	}
	rec := e.get("/v1/auth/profile", key)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var p struct {
		Account struct {
			ID, Email, Name, Plan, CreatedAt string
			APIAccess                        bool
		}
		Key struct {
			ID, Prefix, Last4, CreatedAt string
			ExpiresAt                    *string
		}
		Usage struct {
			Month       string
			Generations int
		}
	}
	decode(t, rec, &p)
	if p.Account.ID != acct || p.Account.Plan != "agency" || !p.Account.APIAccess || p.Account.Email != "agency@example.com" {
		t.Errorf("account = %+v", p.Account)
	}
	if p.Key.Prefix != "pol_live_" || p.Key.Last4 != key[len(key)-4:] || p.Key.ExpiresAt != nil || !ids.Valid("key_", p.Key.ID) {
		t.Errorf("key = %+v", p.Key)
	}
	if p.Usage.Month != "2026-03" || p.Usage.Generations != 3 {
		t.Errorf("usage = %+v", p.Usage)
	}
	k, err := e.store.Key(context.Background(), p.Key.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rec.Body.String(), k.Hash) || strings.Contains(rec.Body.String(), key) {
		t.Error("profile contains the key hash or the key")
	}
	// A new month starts at zero.
	e.clock.Set(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC))
	decode(t, e.get("/v1/auth/profile", key), &p)
	if p.Usage.Month != "2026-04" || p.Usage.Generations != 0 {
		t.Errorf("next month usage = %+v", p.Usage)
	}

	exp := e.clock.Now().Add(48 * time.Hour)
	secret, _, err := auth.Issue(context.Background(), e.store, e.hasher, acct, e.clock.Now(), &exp)
	if err != nil {
		t.Fatal(err)
	}
	decode(t, e.get("/v1/auth/profile", secret), &p)
	if p.Key.ExpiresAt == nil || *p.Key.ExpiresAt != "2026-04-03T00:00:00Z" {
		t.Errorf("expiresAt = %v", p.Key.ExpiresAt)
	}
}

func TestRoutingProblems(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	tests := []struct {
		method, path string
		status       int
		code, allow  string
	}{
		{"GET", "/", 404, "route_not_found", ""},
		{"GET", "/nope", 404, "route_not_found", ""},
		{"GET", "/v1", 404, "route_not_found", ""},
		{"GET", "/v1/policies/", 404, "route_not_found", ""},
		{"GET", "/v1//policies", 404, "route_not_found", ""},
		{"GET", "/v1/policies/../auth/profile", 404, "route_not_found", ""},
		{"GET", "/v1/policies/a/b", 404, "route_not_found", ""},
		{"POST", "/v2/policies/generate", 404, "route_not_found", ""},
		// generate is the generate route's literal path, never a policy id.
		{"GET", "/v1/policies/generate", 405, "method_not_allowed", "POST"},
		{"DELETE", "/v1/policies/generate", 405, "method_not_allowed", "POST"},
		{"GET", "/v1/policies/generate/", 404, "route_not_found", ""},
		{"PUT", "/v1/policies/generate", 405, "method_not_allowed", "POST"},
		{"POST", "/v1/policies", 405, "method_not_allowed", "GET"},
		{"DELETE", "/v1/policies", 405, "method_not_allowed", "GET"},
		{"PUT", "/v1/policies/x", 405, "method_not_allowed", "DELETE, GET"},
		{"PATCH", "/v1/policies/x", 405, "method_not_allowed", "DELETE, GET"},
		{"HEAD", "/v1/auth/profile", 405, "method_not_allowed", "GET"},
		{"OPTIONS", "/v1/auth/profile", 405, "method_not_allowed", "GET"},
		{"DELETE", "/v1/auth/profile", 405, "method_not_allowed", "GET"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, "http://x"+tt.path, nil)
			req.URL.Path = tt.path // keep unclean paths as sent
			req.Header.Set("Authorization", "Bearer "+key)
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			if tt.method != "HEAD" {
				wantProblem(t, rec, tt.status, tt.code)
			} else if rec.Code != tt.status {
				t.Errorf("status %d", rec.Code)
			}
			if got := rec.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
		})
	}
}

func TestCommonHeaders(t *testing.T) {
	e := newEnv(t)
	acct, key := e.account(account.Agency)
	pid := e.seed(acct)
	seen := map[string]bool{}
	reqs := append(routeRequests(key, pid), request{method: "GET", path: "/nope"}, request{method: "PUT", path: "/v1/policies"},
		request{method: "GET", path: "/v1/policies"})
	for _, r := range reqs {
		rec := e.do(r)
		id := rec.Header().Get("X-Request-Id")
		if id == "" || seen[id] {
			t.Errorf("%s %s: X-Request-Id %q missing or reused", r.method, r.path, id)
		}
		seen[id] = true
		if rec.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: security headers %v", r.method, r.path, rec.Header())
		}
	}
	for in, keep := range map[string]bool{
		"abc-123_x.y:z":          true,
		strings.Repeat("a", 128): true,
		strings.Repeat("a", 129): false,
		"has space":              false,
		"<script>":               false,
	} {
		rec := e.do(request{method: "GET", path: "/v1/policies", key: key, header: http.Header{"X-Request-Id": {in}}})
		if got := rec.Header().Get("X-Request-Id"); (got == in) != keep || got == "" {
			t.Errorf("incoming %q: X-Request-Id %q", in, got)
		}
	}
}

func TestAPIGatewayRequestID(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	ev := events.APIGatewayV2HTTPRequest{
		RawPath: "/v1/auth/profile",
		Headers: map[string]string{"authorization": "Bearer " + key, "x-request-id": "client-id"},
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RequestID: "JKlmnoPQrsTUvw=",
			HTTP:      events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/v1/auth/profile"},
		},
	}
	req, err := (&core.RequestAccessorV2{}).EventToRequestWithContext(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Header().Get("X-Request-Id") != "JKlmnoPQrsTUvw=" {
		t.Errorf("%d, X-Request-Id %q, want API Gateway's id", rec.Code, rec.Header().Get("X-Request-Id"))
	}
}

// TestListThroughLambdaAdapter pages through the request conversion of
// aws-lambda-go-api-proxy (payload 2.0), which has had query-string
// encoding bugs: cursors must survive it unchanged.
func TestListThroughLambdaAdapter(t *testing.T) {
	e := newEnv(t)
	acct, key := e.account(account.Agency)
	for range 5 {
		e.seed(acct)
	}
	query := "limit=2"
	var n, pages int
	for ; pages < 5; pages++ {
		ev := events.APIGatewayV2HTTPRequest{
			RawPath:        "/v1/policies",
			RawQueryString: query,
			Headers:        map[string]string{"authorization": "Bearer " + key},
			RequestContext: events.APIGatewayV2HTTPRequestContext{
				HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/v1/policies"},
			},
		}
		req, err := (&core.RequestAccessorV2{}).EventToRequestWithContext(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", query, rec.Code, rec.Body)
		}
		var l listBody
		decode(t, rec, &l)
		n += len(l.Data)
		if l.NextCursor == nil {
			break
		}
		query = "limit=2&cursor=" + *l.NextCursor
	}
	if n != 5 || pages != 2 {
		t.Errorf("read %d policies in %d pages, want 5 in 3", n, pages+1)
	}
}

type logLine struct {
	Level, Msg, Method, Path, RequestID, AccountID, Error string
	Status                                                int
	Bytes                                                 int
}

func logLines(t *testing.T, e *env) []logLine {
	var out []logLine
	for _, l := range strings.Split(strings.TrimSpace(e.logs.String()), "\n") {
		if l == "" {
			continue
		}
		var ll logLine
		if err := json.Unmarshal([]byte(l), &ll); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, ll)
	}
	return out
}

func TestAccessLog(t *testing.T) {
	e := newEnv(t)
	acct, key := e.account(account.Agency)
	pid := e.seed(acct)
	rec := e.get("/v1/policies/"+pid, key)
	e.get("/nope/"+pid, key)
	e.get("/v1/policies", "")
	lines := logLines(t, e)
	if len(lines) != 3 {
		t.Fatalf("want 3 log lines, got %d:\n%s", len(lines), e.logs)
	}
	want := []logLine{
		{Level: "INFO", Msg: "request", Method: "GET", Path: "/v1/policies/{id}", Status: 200, RequestID: rec.Header().Get("X-Request-Id"), AccountID: acct, Bytes: rec.Body.Len()},
		{Level: "INFO", Msg: "request", Method: "GET", Path: "unmatched", Status: 404},
		{Level: "INFO", Msg: "request", Method: "GET", Path: "/v1/policies", Status: 401},
	}
	for i, w := range want {
		g := lines[i]
		if i > 0 {
			w.RequestID, w.Bytes = g.RequestID, g.Bytes
		}
		if g != w {
			t.Errorf("line %d = %+v\nwant %+v", i, g, w)
		}
	}
	if strings.Contains(e.logs.String(), pid) || strings.Contains(e.logs.String(), key) {
		t.Errorf("log has the policy id or key:\n%s", e.logs)
	}
}

// A policy the store cannot hold whole is the client's 422, not a 500, and
// nothing is counted.
func TestGeneratePolicyTooLarge(t *testing.T) {
	base := newEnv(t)
	e := newEnvStore(t, tooLargeStore{base.store})
	_, key := e.account(account.Agency)
	rec := e.generate(key, validBody)
	wantProblem(t, rec, http.StatusUnprocessableEntity, "policy_too_large")
	var prof struct{ Usage struct{ Generations int } }
	decode(t, e.get("/v1/auth/profile", key), &prof)
	if prof.Usage.Generations != 0 {
		t.Errorf("generations = %d, want 0", prof.Usage.Generations)
	}
}

// tooLargeStore refuses every policy as the real stores refuse one over
// store.MaxStoredContent (which today's field limits cannot reach).
type tooLargeStore struct{ store.Store }

func (tooLargeStore) CreatePolicy(context.Context, store.Policy, store.CreateOptions) error {
	return store.ErrTooLarge
}

// faultyStore fails or panics on ListPolicies, to exercise the 500 paths.
type faultyStore struct {
	store.Store
	panic bool
}

func (f faultyStore) ListPolicies(ctx context.Context, accountID string, opt store.ListOptions) (store.Page, error) {
	if f.panic {
		panic("list exploded: secret detail")
	}
	return store.Page{}, errors.New("disk on fire: secret detail")
}

func TestInternalErrors(t *testing.T) {
	for _, panics := range []bool{false, true} {
		t.Run(fmt.Sprintf("panic=%v", panics), func(t *testing.T) {
			base := newEnv(t)
			e := newEnvStore(t, faultyStore{Store: base.store, panic: panics})
			_, key := e.account(account.Agency)
			rec := e.get("/v1/policies", key)
			p := wantProblem(t, rec, 500, "internal_error")
			if p.Detail != "internal error" || strings.Contains(rec.Body.String(), "secret") {
				t.Errorf("body leaks: %s", rec.Body)
			}
			var found bool
			for _, l := range logLines(t, e) {
				if l.Level == "ERROR" && l.RequestID == p.RequestID && strings.Contains(l.Error, "secret detail") {
					found = true
				}
			}
			if !found {
				t.Errorf("cause not logged with request id:\n%s", e.logs)
			}
			// The server keeps serving.
			if rec := e.get("/v1/auth/profile", key); rec.Code != 200 {
				t.Errorf("after failure: %d", rec.Code)
			}
		})
	}
}

func TestRouteHandler(t *testing.T) {
	e := newEnv(t)
	acct, key := e.account(account.Agency)
	pid := e.seed(acct)
	h, err := api.NewRouteHandler("getPolicy", e.deps)
	if err != nil {
		t.Fatal(err)
	}
	serve := func(h http.Handler, method, path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := serve(h, "GET", "/v1/policies/"+pid); rec.Code != 200 {
		t.Errorf("own route: %d %s", rec.Code, rec.Body)
	}
	wantProblem(t, serve(h, "GET", "/v1/auth/profile"), 404, "route_not_found")
	rec := serve(h, "PUT", "/v1/policies/"+pid)
	wantProblem(t, rec, 405, "method_not_allowed")
	if rec.Header().Get("Allow") != "DELETE, GET" {
		t.Errorf("Allow = %q", rec.Header().Get("Allow"))
	}
	// API Gateway routes GET and DELETE /v1/policies/generate to the
	// {id} functions: they answer as NewServer does.
	for _, name := range []string{"getPolicy", "deletePolicy"} {
		rh, err := api.NewRouteHandler(name, e.deps)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"GET", "DELETE"} {
			rec := serve(rh, m, "/v1/policies/generate")
			wantProblem(t, rec, 405, "method_not_allowed")
			if rec.Header().Get("Allow") != "POST" {
				t.Errorf("%s %s /v1/policies/generate: Allow = %q, want POST", name, m, rec.Header().Get("Allow"))
			}
		}
	}

	for _, r := range api.Routes() {
		if _, err := api.NewRouteHandler(r.Name, e.deps); err != nil {
			t.Error(err)
		}
	}
	if _, err := api.NewRouteHandler("nope", e.deps); err == nil {
		t.Error("unknown route name accepted")
	}

	fb := wire.NewFallbackHandler(e.deps.Logger)
	wantProblem(t, serve(fb, "GET", "/nope"), 404, "route_not_found")
	wantProblem(t, serve(fb, "GET", "/v1/policies"), 404, "route_not_found")
	wantProblem(t, serve(fb, "GET", "/v1/policies/generate"), 405, "method_not_allowed")
	rec = serve(fb, "PUT", "/v1/policies/x")
	wantProblem(t, rec, 405, "method_not_allowed")
	if rec.Header().Get("Allow") != "DELETE, GET" {
		t.Errorf("fallback Allow = %q", rec.Header().Get("Allow"))
	}
}

func FuzzGenerate(f *testing.F) {
	f.Add([]byte(validBody))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"type":"privacy","thirdPartyServices":[1,"stripe",null]}`))
	f.Add([]byte(`{"websiteUrl":"http://[::1]:namedport"}`))
	f.Add([]byte("\xff\xfe"))
	e := newEnv(f)
	// No rate or quota in the way: every input reaches the handler.
	e.setLimits(noLimits, noLimits)
	_, key := e.account(account.Agency)
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "/v1/policies/generate", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%d for %q: %s", rec.Code, body, rec.Body)
		}
	})
}

func TestCatalog(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Starter) // any plan's key
	rec := e.get("/v1/catalog", key)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var c struct {
		Jurisdictions []struct {
			ID   string `json:"id"`
			Laws []struct {
				ID string `json:"id"`
			} `json:"laws"`
			MemberStates []struct {
				Code string `json:"code"`
			} `json:"memberStates"`
		} `json:"jurisdictions"`
		BusinessTypes []struct {
			ID         string   `json:"id"`
			SectorLaws []string `json:"sectorLaws"`
		} `json:"businessTypes"`
		Purposes []string `json:"purposes"`
		Services []struct {
			ID      string   `json:"id"`
			Aliases []string `json:"aliases"`
		} `json:"services"`
	}
	decode(t, rec, &c)
	laws := map[string][]string{}
	for _, j := range c.Jurisdictions {
		for _, l := range j.Laws {
			laws[j.ID] = append(laws[j.ID], l.ID)
		}
	}
	if !slices.Contains(laws["EU"], "gdpr") || !slices.Contains(laws["UK"], "pecr") || !slices.Contains(laws["US-CA"], "caloppa") {
		t.Errorf("laws per jurisdiction = %v", laws)
	}
	if len(c.BusinessTypes) < 20 || !slices.ContainsFunc(c.BusinessTypes, func(b struct {
		ID         string   `json:"id"`
		SectorLaws []string `json:"sectorLaws"`
	}) bool {
		return b.ID == "healthcare" && slices.Contains(b.SectorLaws, "HIPAA")
	}) {
		t.Errorf("business types = %+v", c.BusinessTypes)
	}
	if !slices.Contains(c.Purposes, "analytics") {
		t.Errorf("purposes = %v", c.Purposes)
	}
	i := slices.IndexFunc(c.Services, func(s struct {
		ID      string   `json:"id"`
		Aliases []string `json:"aliases"`
	}) bool {
		return s.ID == "google-analytics"
	})
	if i < 0 || !slices.Contains(c.Services[i].Aliases, "GA4") {
		t.Errorf("google-analytics missing or without its GA4 alias")
	}
	// It takes no query parameters.
	if rec := e.get("/v1/catalog?format=xml", key); rec.Code != http.StatusBadRequest {
		t.Errorf("catalog with a query: %d", rec.Code)
	}
}

func TestEvidence(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	id := e.mustGenerate(key)
	var plain map[string]any
	decode(t, e.get("/v1/policies/"+id, key), &plain)
	if _, ok := plain["evidence"]; ok {
		t.Error("evidence present without include=evidence")
	}
	var p struct {
		Content  string            `json:"content"`
		Evidence []policy.Evidence `json:"evidence"`
	}
	decode(t, e.get("/v1/policies/"+id+"?include=evidence", key), &p)
	if len(p.Evidence) < 10 {
		t.Fatalf("%d evidence entries", len(p.Evidence))
	}
	var reqs []string
	for _, ev := range p.Evidence {
		reqs = append(reqs, ev.Requirement)
		if ev.Citation == "" || ev.Heading == "" || ev.Anchor == "" {
			t.Errorf("incomplete evidence %+v", ev)
		}
		// The anchor is the one the document's table of contents links to.
		if !strings.Contains(p.Content, "(<#"+ev.Anchor+">)") {
			t.Errorf("anchor %q not linked in the document", ev.Anchor)
		}
	}
	if !slices.Contains(reqs, "gdpr.13.1.a") {
		t.Errorf("evidence lacks gdpr.13.1.a: %v", reqs)
	}
	for _, q := range []string{"?include=evidence,content", "?include=evidence&include=evidence", "?expand=evidence"} {
		wantProblem(t, e.get("/v1/policies/"+id+q, key), http.StatusBadRequest, "invalid_query")
	}
}

// TestBulk: one result per item in order; valid items stored and counted
// even when another fails; a replay with the same Idempotency-Key is the
// same answer and stores nothing more; a batch over the quota stores
// nothing; more than 100 items is a 422.
func TestBulk(t *testing.T) {
	stores(t, func(t *testing.T, e *env) {
		acct, key := e.account(account.Agency)
		body := bulkBody(validBody, `{"type":"privacy","businessName":"","websiteUrl":"x"}`, strings.Replace(validBody, "Acme Widgets Ltd", "Second Client", 1))
		do := func() *httptest.ResponseRecorder {
			return e.do(request{method: "POST", path: "/v1/policies/bulk", key: key, body: body, header: http.Header{"Idempotency-Key": {"batch-1"}}})
		}
		rec := do()
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var got struct {
			Created, Failed int
			Results         []struct {
				Index     int
				Reference string
				Status    int
				Policy    *struct{ ID, BusinessName string }
				Problem   *struct {
					Code   string
					Errors []struct{ Field string }
				}
			}
		}
		decode(t, rec, &got)
		if got.Created != 2 || got.Failed != 1 || len(got.Results) != 3 {
			t.Fatalf("created %d failed %d results %d", got.Created, got.Failed, len(got.Results))
		}
		for i, r := range got.Results {
			if r.Index != i || r.Reference != fmt.Sprintf("r%d", i) {
				t.Errorf("result %d: index %d reference %q", i, r.Index, r.Reference)
			}
		}
		if r := got.Results[1]; r.Status != 422 || r.Problem == nil || r.Problem.Code != "validation_failed" || r.Policy != nil {
			t.Errorf("invalid item: %+v", r)
		}
		for _, i := range []int{0, 2} {
			r := got.Results[i]
			if r.Status != 201 || r.Policy == nil {
				t.Fatalf("item %d: %+v", i, r)
			}
			var p struct{ BusinessName, Content string }
			decode(t, e.get("/v1/policies/"+r.Policy.ID, key), &p)
			if p.BusinessName != r.Policy.BusinessName || p.Content == "" {
				t.Errorf("item %d not stored whole: %+v", i, p)
			}
		}
		if n, _ := e.store.GenerationCount(t.Context(), acct, store.Month(e.clock.Now())); n != 2 {
			t.Errorf("generations counted = %d, want 2", n)
		}
		again := do()
		if again.Body.String() != rec.Body.String() || again.Header().Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay differs")
		}
		if n, _ := e.store.GenerationCount(t.Context(), acct, store.Month(e.clock.Now())); n != 2 {
			t.Errorf("after the replay, generations = %d, want 2", n)
		}

		// Over the quota: refused whole.
		e.setLimits(3, 1000)
		p := wantProblem(t, e.do(request{method: "POST", path: "/v1/policies/bulk", key: key, body: bulkBody(validBody, validBody)}), 429, "quota_exceeded")
		if !strings.Contains(p.Detail, "2 valid items and 1 generations are left") {
			t.Errorf("detail %q", p.Detail)
		}
		if n, _ := e.store.GenerationCount(t.Context(), acct, store.Month(e.clock.Now())); n != 2 {
			t.Errorf("a refused batch stored something: %d generations", n)
		}

		many := make([]string, api.MaxBulkItems+1)
		for i := range many {
			many[i] = validBody
		}
		wantProblem(t, e.do(request{method: "POST", path: "/v1/policies/bulk", key: key, body: bulkBody(many...)}), 422, "validation_failed")
	})
}

// TestBulkFullBatch: a batch of 100 is stored whole and its outcome, kept
// for Idempotency-Key replays, fits the store (compressed) on both stores.
func TestBulkFullBatch(t *testing.T) {
	stores(t, func(t *testing.T, e *env) {
		acct, key := e.account(account.Agency)
		reqs := make([]string, api.MaxBulkItems)
		for i := range reqs {
			reqs[i] = strings.Replace(validBody, "Acme Widgets Ltd", fmt.Sprintf("Client %03d", i), 1)
		}
		r := request{method: "POST", path: "/v1/policies/bulk", key: key, body: bulkBody(reqs...), header: http.Header{"Idempotency-Key": {"full-batch"}}}
		first := e.do(r)
		var got struct{ Created, Failed int }
		decode(t, first, &got)
		if first.Code != http.StatusOK || got.Created != api.MaxBulkItems || got.Failed != 0 {
			t.Fatalf("status %d, created %d, failed %d", first.Code, got.Created, got.Failed)
		}
		again := e.do(r)
		if again.Body.String() != first.Body.String() || again.Header().Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay of a full batch differs (%d bytes vs %d)", again.Body.Len(), first.Body.Len())
		}
		if n, _ := e.store.GenerationCount(t.Context(), acct, store.Month(e.clock.Now())); n != api.MaxBulkItems {
			t.Errorf("generations = %d", n)
		}
	})
}
