package policy

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/errs"
)

// valid is a complete request; tests change one thing at a time.
func valid() map[string]any {
	return map[string]any{
		"type": "privacy", "businessName": "Acme", "websiteUrl": "https://acme.example", "businessType": "saas",
		"jurisdiction": "EU", "collectsPayments": true, "collectsUserData": true, "usesAnalytics": false,
		"thirdPartyServices": []any{"stripe"},
	}
}

func body(t *testing.T, m map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func with(changes map[string]any) map[string]any {
	m := valid()
	for k, v := range changes {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

func TestParseRequestValid(t *testing.T) {
	tests := []struct {
		name   string
		in     map[string]any
		assert func(t *testing.T, r Request)
	}{
		{"defaults", valid(), func(t *testing.T, r Request) {
			if r.Language != "en" || r.Format != "markdown" || r.ContactEmail != "" {
				t.Errorf("defaults not applied: %+v", r)
			}
		}},
		{"enums are case-insensitive and canonicalised", with(map[string]any{"type": "PRIVACY", "businessType": "SaaS", "jurisdiction": "us-ca", "language": "EN", "format": "HTML"}), func(t *testing.T, r Request) {
			if r.Type != "privacy" || r.BusinessType != "saas" || r.Jurisdiction != "US-CA" || r.Language != "en" || r.Format != "html" {
				t.Errorf("not canonical: %+v", r)
			}
		}},
		{"strings are trimmed", with(map[string]any{"businessName": "  Acme  ", "postalAddress": " 1 Road\nTown "}), func(t *testing.T, r Request) {
			if r.BusinessName != "Acme" || r.PostalAddress != "1 Road\nTown" {
				t.Errorf("not trimmed: %q %q", r.BusinessName, r.PostalAddress)
			}
		}},
		{"url scheme and host lower-cased", with(map[string]any{"websiteUrl": "HTTPS://Acme.EXAMPLE/Path"}), func(t *testing.T, r Request) {
			if r.WebsiteURL != "https://acme.example/Path" {
				t.Errorf("url = %q", r.WebsiteURL)
			}
		}},
		{"services lower-cased, de-duplicated and sorted", with(map[string]any{"thirdPartyServices": []any{"Stripe", "google-analytics", "stripe "}}), func(t *testing.T, r Request) {
			if !reflect.DeepEqual(r.ThirdPartyServices, []string{"google-analytics", "stripe"}) {
				t.Errorf("services = %v", r.ThirdPartyServices)
			}
		}},
		{"services omitted or null is empty", with(map[string]any{"thirdPartyServices": nil}), func(t *testing.T, r Request) {
			if r.ThirdPartyServices == nil || len(r.ThirdPartyServices) != 0 {
				t.Errorf("services = %#v", r.ThirdPartyServices)
			}
		}},
		{"postalAddress CR LF becomes LF", with(map[string]any{"postalAddress": "1 Road\r\nTown"}), func(t *testing.T, r Request) {
			if r.PostalAddress != "1 Road\nTown" {
				t.Errorf("postalAddress = %q", r.PostalAddress)
			}
		}},
		{"jurisdiction aliases", with(map[string]any{"jurisdiction": "GB"}), func(t *testing.T, r Request) {
			if r.Jurisdiction != "UK" {
				t.Errorf("GB read as %q, want UK", r.Jurisdiction)
			}
		}},
		{"jurisdiction by name", with(map[string]any{"jurisdiction": "European Economic Area"}), func(t *testing.T, r Request) {
			if r.Jurisdiction != "EU" {
				t.Errorf("read as %q, want EU", r.Jurisdiction)
			}
		}},
		{"values as people type them", with(map[string]any{"businessType": "Professional Services", "jurisdiction": "us ca",
			"thirdPartyServices": []any{"Google Analytics", "Meta Pixel", "STRIPE", "google_analytics", "GA4", "Facebook Pixel"}}), func(t *testing.T, r Request) {
			if r.BusinessType != "professional_services" || r.Jurisdiction != "US-CA" ||
				!slices.Equal(r.ThirdPartyServices, []string{"google-analytics", "meta-pixel", "stripe"}) {
				t.Errorf("not resolved: %q %q %q", r.BusinessType, r.Jurisdiction, r.ThirdPartyServices)
			}
		}},
		{"optional contact fields", with(map[string]any{"contactEmail": "privacy@acme.example", "postalAddress": "1 Road"}), func(t *testing.T, r Request) {
			if r.ContactEmail != "privacy@acme.example" || r.PostalAddress != "1 Road" {
				t.Errorf("%+v", r)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRequest(body(t, tt.in))
			if err != nil {
				t.Fatal(err)
			}
			tt.assert(t, r)
		})
	}
}

// fieldErr is one expected field error; suggestions non-nil means the
// error must suggest exactly those values (and never list them all).
type fieldErr struct {
	field, msg  string
	suggestions []string
}

// ref ends every unknown-value message.
const ref = " GET /v1/catalog lists the accepted values."

const hygiene = "remove it (invisible formatting and control characters cannot appear in a published document)"

func TestParseRequestInvalid(t *testing.T) {
	long := strings.Repeat("x", MaxBusinessName+1)
	tests := []struct {
		name string
		in   map[string]any
		want []fieldErr
	}{
		{"unknown field", with(map[string]any{"colour": "red"}), []fieldErr{{"colour", "unknown field", nil}}},
		{"type missing", with(map[string]any{"type": nil}), []fieldErr{{"type", "is required", nil}}},
		{"type not a string", with(map[string]any{"type": 1}), []fieldErr{{"type", "must be a string", nil}}},
		{"type empty", with(map[string]any{"type": " "}), []fieldErr{{"type", "must not be empty", nil}}},
		{"type not allowed", with(map[string]any{"type": "invoice"}), []fieldErr{{"type", `"invoice" is not a known document type.` + ref, []string{}}}},
		{"businessName missing", with(map[string]any{"businessName": nil}), []fieldErr{{"businessName", "is required", nil}}},
		{"businessName too long", with(map[string]any{"businessName": long}), []fieldErr{{"businessName", "must be at most 200 characters", nil}}},
		{"businessName control character", with(map[string]any{"businessName": "A\x07B"}), []fieldErr{{"businessName", "must not contain the control character U+0007: " + hygiene, nil}}},
		{"businessName tab", with(map[string]any{"businessName": "A\tB"}), []fieldErr{{"businessName", "must not contain the control character U+0009: " + hygiene, nil}}},
		{"businessName line feed", with(map[string]any{"businessName": "A\nB"}), []fieldErr{{"businessName", "must not contain the control character U+000A: " + hygiene, nil}}},
		{"businessName DEL", with(map[string]any{"businessName": "A\x7fB"}), []fieldErr{{"businessName", "must not contain the control character U+007F: " + hygiene, nil}}},
		{"businessName C1 CSI", with(map[string]any{"businessName": "A\u009bB"}), []fieldErr{{"businessName", "must not contain the control character U+009B: " + hygiene, nil}}},
		{"businessName C1 NEL", with(map[string]any{"businessName": "A\u0085B"}), []fieldErr{{"businessName", "must not contain the control character U+0085: " + hygiene, nil}}},
		{"businessName RLO", with(map[string]any{"businessName": "Acme \u202eLtd"}), []fieldErr{{"businessName", "must not contain U+202E RIGHT-TO-LEFT OVERRIDE: " + hygiene, nil}}},
		{"businessName LRE", with(map[string]any{"businessName": "Acme \u202aLtd"}), []fieldErr{{"businessName", "must not contain U+202A LEFT-TO-RIGHT EMBEDDING: " + hygiene, nil}}},
		{"businessName RLI", with(map[string]any{"businessName": "Acme \u2067Ltd"}), []fieldErr{{"businessName", "must not contain U+2067 RIGHT-TO-LEFT ISOLATE: " + hygiene, nil}}},
		{"businessName PDI", with(map[string]any{"businessName": "Acme \u2069Ltd"}), []fieldErr{{"businessName", "must not contain U+2069 POP DIRECTIONAL ISOLATE: " + hygiene, nil}}},
		{"postalAddress CR alone", with(map[string]any{"postalAddress": "1 Road\rTown"}), []fieldErr{{"postalAddress", "must not contain the control character U+000D: " + hygiene, nil}}},
		{"postalAddress FSI", with(map[string]any{"postalAddress": "1 Road\u2068x"}), []fieldErr{{"postalAddress", "must not contain U+2068 FIRST STRONG ISOLATE: " + hygiene, nil}}},
		{"contactEmail C1", with(map[string]any{"contactEmail": "a\u0080@b.example"}), []fieldErr{{"contactEmail", "must not contain the control character U+0080: " + hygiene, nil}}},
		{"websiteUrl bidi", with(map[string]any{"websiteUrl": "https://acme.example/\u202e"}), []fieldErr{{"websiteUrl", "must not contain U+202E RIGHT-TO-LEFT OVERRIDE: " + hygiene, nil}}},
		{"websiteUrl relative", with(map[string]any{"websiteUrl": "acme.example"}), []fieldErr{{"websiteUrl", "must be an absolute http or https URL such as https://example.com", nil}}},
		{"websiteUrl ftp", with(map[string]any{"websiteUrl": "ftp://acme.example"}), []fieldErr{{"websiteUrl", "must use the http or https scheme", nil}}},
		{"websiteUrl javascript", with(map[string]any{"websiteUrl": "javascript:alert(1)"}), []fieldErr{{"websiteUrl", "must be an absolute http or https URL such as https://example.com", nil}}},
		{"websiteUrl userinfo", with(map[string]any{"websiteUrl": "https://u:p@acme.example"}), []fieldErr{{"websiteUrl", "must not contain user information", nil}}},
		{"businessType not allowed", with(map[string]any{"businessType": "casino"}), []fieldErr{{"businessType", `"casino" is not a known business type.` + ref, []string{}}}},
		{"businessType typo", with(map[string]any{"businessType": "ecomerce"}), []fieldErr{{"businessType", `"ecomerce" is not a known business type; did you mean "ecommerce"?` + ref, []string{"ecommerce"}}}},
		{"language not allowed", with(map[string]any{"language": "fr"}), []fieldErr{{"language", `"fr" is not a known language.` + ref, []string{}}}},
		{"jurisdiction not allowed", with(map[string]any{"jurisdiction": "Narnia"}), []fieldErr{{"jurisdiction", `"Narnia" is not a known jurisdiction.` + ref, []string{}}}},
		{"jurisdiction missing", with(map[string]any{"jurisdiction": nil}), []fieldErr{{"jurisdiction", "is required", nil}}},
		{"booleans missing", with(map[string]any{"collectsPayments": nil, "collectsUserData": nil, "usesAnalytics": nil}), []fieldErr{
			{"collectsPayments", "is required", nil}, {"collectsUserData", "is required", nil}, {"usesAnalytics", "is required", nil}}},
		{"boolean as string", with(map[string]any{"usesAnalytics": "yes"}), []fieldErr{{"usesAnalytics", "must be a boolean", nil}}},
		{"affiliateLinks as string", with(map[string]any{"type": "disclaimer", "affiliateLinks": "yes"}), []fieldErr{{"affiliateLinks", "must be true, false or null (null or absent: not stated)", nil}}},
		// Refund policy (issue 8, t3).
		{"refundWindowDays too long", with(map[string]any{"type": "refund", "refundWindowDays": 366}), []fieldErr{{"refundWindowDays", "must be a whole number of days from 0 to 365 (0: no returns beyond those the law gives)", nil}}},
		{"refundWindowDays negative", with(map[string]any{"type": "refund", "refundWindowDays": -1}), []fieldErr{{"refundWindowDays", "must be a whole number of days from 0 to 365 (0: no returns beyond those the law gives)", nil}}},
		{"returnShippingPaidBy unknown", with(map[string]any{"type": "refund", "returnShippingPaidBy": "shop"}), []fieldErr{{"returnShippingPaidBy", "must be customer or business", []string{"customer", "business"}}}},
		{"services not an array", with(map[string]any{"thirdPartyServices": "stripe"}), []fieldErr{{"thirdPartyServices", "must be an array of strings", nil}}},
		// An unknown service is accepted (TestUnknownServicesAccepted); only
		// a value that is not a name is refused.
		{"service not a string", with(map[string]any{"thirdPartyServices": []any{"stripe", "acme-pay", 3}}), []fieldErr{
			{"thirdPartyServices[2]", "must be a string", nil}}},
		{"service empty", with(map[string]any{"thirdPartyServices": []any{"  "}}), []fieldErr{
			{"thirdPartyServices[0]", "must not be empty", nil}}},
		{"too many services", with(map[string]any{"thirdPartyServices": func() []any {
			s := make([]any, MaxServices+1)
			for i := range s {
				s[i] = "stripe"
			}
			return s
		}()}), []fieldErr{{"thirdPartyServices", "must have at most 50 entries", nil}}},
		{"contactEmail invalid", with(map[string]any{"contactEmail": "Acme <a@b.example>"}), []fieldErr{{"contactEmail", "must be a plain email address such as privacy@example.com", nil}}},
		{"postalAddress too long", with(map[string]any{"postalAddress": strings.Repeat("x", MaxPostalAddress+1)}), []fieldErr{{"postalAddress", "must be at most 500 characters", nil}}},
		{"format not allowed", with(map[string]any{"format": "pdf"}), []fieldErr{{"format", `"pdf" is not a known format.` + ref, []string{}}}},
		{"everything at once", map[string]any{"type": "x", "websiteUrl": "nope", "extra": true, "usesAnalytics": 1}, []fieldErr{
			{"businessName", "is required", nil}, {"businessType", "is required", nil}, {"collectsPayments", "is required", nil},
			{"collectsUserData", "is required", nil}, {"extra", "unknown field", nil}, {"jurisdiction", "is required", nil},
			{"type", `"x" is not a known document type.` + ref, []string{}}, {"usesAnalytics", "must be a boolean", nil},
			{"websiteUrl", "must be an absolute http or https URL such as https://example.com", nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRequest(body(t, tt.in))
			e := errs.As(err)
			if e == nil || e.Kind != errs.Unprocessable || e.Code != "validation_failed" {
				t.Fatalf("err = %v, want 422 validation_failed", err)
			}
			if len(e.Fields) != len(tt.want) {
				t.Fatalf("fields = %+v, want %+v", e.Fields, tt.want)
			}
			for i, w := range tt.want {
				g := e.Fields[i]
				if g.Field != w.field || g.Message != w.msg {
					t.Errorf("field %d = %s %q, want %s %q", i, g.Field, g.Message, w.field, w.msg)
				}
				if w.suggestions != nil && !slices.Equal(g.Suggestions, w.suggestions) {
					t.Errorf("field %s suggestions = %q, want %q", g.Field, g.Suggestions, w.suggestions)
				}
				if len(g.Suggestions) > 3 {
					t.Errorf("field %s suggests %d values, at most 3", g.Field, len(g.Suggestions))
				}
			}
		})
	}
}

func TestParseRequestBadJSON(t *testing.T) {
	for _, in := range []string{``, `nope`, `[]`, `null`, `"x"`, `{"type":"privacy"} {}`, `{"type":`,
		`{}}`, `{}]`, `{} x`, `{"a":1,}`, "{\"businessName\":\"\xff\xfe\"}"} {
		_, err := ParseRequest([]byte(in))
		e := errs.As(err)
		if e == nil || e.Kind != errs.Invalid || e.Code != "invalid_json" {
			t.Errorf("ParseRequest(%q) = %v, want 400 invalid_json", in, err)
		}
	}
}

// A repeated member is ambiguous (parsers disagree on which one wins), so it
// is a field error rather than silently taking the last value.
func TestParseRequestDuplicateMembers(t *testing.T) {
	_, err := ParseRequest([]byte(`{"type":"x","type":"privacy","businessName":"A","businessName":"A"}`))
	e := errs.As(err)
	if e == nil || e.Code != "validation_failed" {
		t.Fatalf("err = %v, want validation_failed", err)
	}
	dup := map[string]bool{}
	for _, f := range e.Fields {
		if f.Message == "appears more than once" {
			dup[f.Field] = true
		}
	}
	if !dup["type"] || !dup["businessName"] || len(dup) != 2 {
		t.Errorf("duplicate fields reported = %v, want type and businessName", dup)
	}
}

func TestAllowedSetsComeFromCatalog(t *testing.T) {
	c := mustCatalog(t)
	if !slices.Equal(ServiceIDs(), c.ServiceIDs()) || !slices.Equal(BusinessTypes(), c.BusinessTypeIDs()) ||
		!slices.Equal(Jurisdictions(), c.JurisdictionIDs()) || !slices.Equal(Types(), c.Types) || !slices.Equal(Languages(), []string{"en"}) {
		t.Errorf("sets: %v %v %v %v %v", ServiceIDs(), BusinessTypes(), Jurisdictions(), Types(), Languages())
	}
}

// TestUnknownServicesAccepted: a service the catalog does not know is kept
// by the name given, never a 422; the document names it, a to-do asks for
// it (with did-you-mean suggestions for a typo) and a flag raises it.
func TestUnknownServicesAccepted(t *testing.T) {
	req, err := ParseRequest(body(t, with(map[string]any{"thirdPartyServices": []any{"stirpe", "Acme  Pay", "Google Analytics", "acme pay"}})))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	if want := []string{"Acme Pay", "google-analytics", "stirpe"}; !slices.Equal(req.ThirdPartyServices, want) {
		t.Fatalf("services = %q, want %q", req.ThirdPartyServices, want)
	}
	req.ContactEmail = "a@example.com"
	res, err := Generate(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusNeedsInput {
		t.Errorf("status = %s, want needs_input", res.Status)
	}
	var whys []string
	for _, td := range res.Todos {
		if td.Field == "thirdPartyServices" {
			whys = append(whys, td.Why)
		}
	}
	if len(whys) != 2 || !strings.Contains(strings.Join(whys, "\n"), `Did you mean "stripe"?`) {
		t.Errorf("todos for unknown services = %q", whys)
	}
	if !strings.Contains(res.Content, "We also use Acme Pay and stirpe.") {
		t.Errorf("unknown services not named in the document")
	}
	n := 0
	for _, f := range res.Flags {
		if f.Code == "unknown_service" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d unknown_service flags, want 2", n)
	}
}

// TestMemberStates: an EU or EEA member state, by code or name, means the
// EU with that state's supervisory authority named for complaints.
func TestMemberStates(t *testing.T) {
	for _, tc := range []struct{ in, member, authority string }{
		{"DE", "DE", "German federal state (Land) where we are established"},
		{"France", "FR", "Commission nationale de l'informatique et des libertés (CNIL)"},
		{"ie", "IE", "Data Protection Commission (DPC)"},
		{"Norway", "NO", "Norwegian Data Protection Authority"},
	} {
		req, err := ParseRequest(body(t, with(map[string]any{"jurisdiction": tc.in, "contactEmail": "a@example.com"})))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if req.Jurisdiction != "EU" || req.MemberState != tc.member {
			t.Errorf("%s: jurisdiction %s member %s", tc.in, req.Jurisdiction, req.MemberState)
		}
		res, err := Generate(req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Content, tc.authority) {
			t.Errorf("%s: the document does not name %q", tc.in, tc.authority)
		}
	}
	// GB is the UK, not a member state; a member state with another
	// jurisdiction, or a country outside the EEA, is refused.
	if req, err := ParseRequest(body(t, with(map[string]any{"jurisdiction": "GB"}))); err != nil || req.Jurisdiction != "UK" || req.MemberState != "" {
		t.Errorf("GB: %+v %v", req, err)
	}
	for _, m := range []map[string]any{
		{"jurisdiction": "UK", "memberState": "DE"},
		{"jurisdiction": "EU", "memberState": "CH"},
		{"jurisdiction": "DE", "memberState": "FR"},
	} {
		if _, err := ParseRequest(body(t, with(m))); err == nil {
			t.Errorf("%v accepted", m)
		}
	}
}

func TestTransferSafeguards(t *testing.T) {
	req, err := ParseRequest(body(t, with(map[string]any{"jurisdiction": "UK", "transferSafeguards": map[string]any{"Google Analytics": []any{"uk_idta", "uk_idta"}}})))
	if err != nil {
		t.Fatal(err)
	}
	if got := req.TransferSafeguards["google-analytics"]; !slices.Equal(got, []string{"uk_idta"}) {
		t.Errorf("safeguards = %v", req.TransferSafeguards)
	}
	for _, bad := range []map[string]any{
		{"jurisdiction": "UK", "transferSafeguards": map[string]any{"google-analytics": []any{"eu_sccs"}}}, // an EU tool under UK law
		{"jurisdiction": "EU", "transferSafeguards": map[string]any{"acme": []any{"eu_sccs"}}},             // not a catalog service
		{"jurisdiction": "US-CA", "transferSafeguards": map[string]any{"stripe": []any{"eu_sccs"}}},
		{"jurisdiction": "EU", "transferSafeguards": map[string]any{"stripe": []any{}}},
		{"jurisdiction": "EU", "transferSafeguards": []any{"eu_sccs"}},
	} {
		if _, err := ParseRequest(body(t, with(bad))); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestSeveralJurisdictions: a comma-separated list means one document for
// every listed market, stored in catalog order so that order and spelling
// do not change the bytes.
func TestSeveralJurisdictions(t *testing.T) {
	for _, tc := range []struct{ in, want, member string }{
		{"US-CA, EU", "EU,US-CA", ""},
		{"California,Germany", "EU,US-CA", "DE"},
		{"EU, EEA, eu", "EU", ""},
		{" UK ,US-CA", "UK,US-CA", ""},
		{"GB, Ireland", "EU,UK", "IE"},
	} {
		req, err := ParseRequest(body(t, with(map[string]any{"jurisdiction": tc.in})))
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if req.Jurisdiction != tc.want || req.MemberState != tc.member {
			t.Errorf("%q read as %q (member %q), want %q (%q)", tc.in, req.Jurisdiction, req.MemberState, tc.want, tc.member)
		}
	}
	a, _ := ParseRequest(body(t, with(map[string]any{"jurisdiction": "US-CA, EU", "contactEmail": "a@example.com"})))
	b, _ := ParseRequest(body(t, with(map[string]any{"jurisdiction": "EU,California", "contactEmail": "a@example.com"})))
	ra, err := Generate(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := Generate(b)
	if ra.Content != rb.Content {
		t.Error("the same markets in another order give other bytes")
	}
	// Both laws' checklists are met in the one document.
	evidence, err := EvidenceOf(ra.Request)
	if err != nil {
		t.Fatal(err)
	}
	for _, law := range []string{"gdpr", "ccpa", "caloppa"} {
		if !slices.ContainsFunc(evidence, func(e Evidence) bool { return strings.HasPrefix(e.Requirement, law+".") }) {
			t.Errorf("no evidence for %s in the EU,US-CA document", law)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"EU,,US-CA", "empty entry"},
		{"EU, Narnia", `"Narnia"`},
		{"Germany, France", "two EU or EEA member states"},
	} {
		_, err := ParseRequest(body(t, with(map[string]any{"jurisdiction": tc.in})))
		if err == nil || !strings.Contains(err.Error()+fieldMessages(err), tc.want) {
			t.Errorf("%q: error %v, want one mentioning %q", tc.in, err, tc.want)
		}
	}
}

// fieldMessages joins the field messages of a validation error.
func fieldMessages(err error) string {
	var e *errs.Error
	if !errors.As(err, &e) {
		return ""
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Field+": "+f.Message)
	}
	return strings.Join(out, "; ")
}

// TestAffiliateLinks: the disclaimer's optional affiliateLinks is read as
// true, false or not stated, and only "not stated" is a todo.
func TestAffiliateLinks(t *testing.T) {
	for _, tt := range []struct {
		in   any
		want *bool
		todo bool
	}{{true, ptr(true), false}, {false, ptr(false), false}, {nil, nil, true}} {
		in := with(map[string]any{"type": "disclaimer", "contactEmail": "a@acme.example", "affiliateLinks": tt.in})
		req, err := ParseRequest(body(t, in))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(req.AffiliateLinks, tt.want) {
			t.Errorf("affiliateLinks %v: got %v", tt.in, req.AffiliateLinks)
		}
		res, err := Generate(req)
		if err != nil {
			t.Fatal(err)
		}
		todo := slices.ContainsFunc(res.Todos, func(td compliance.Todo) bool { return td.Field == "affiliateLinks" })
		if todo != tt.todo {
			t.Errorf("affiliateLinks %v: todo = %v, want %v (todos %+v)", tt.in, todo, tt.todo, res.Todos)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestCountMembers: the fast path of decodeObject counts an object's
// member names as the token decoder sees them, repeated ones included, so
// that a repeated member is never let through.
func TestCountMembers(t *testing.T) {
	for body, want := range map[string]int{
		`{}`:            0,
		` { "a" : 1 } `: 1,
		`{"a":1,"b":"x,\"c\":2","c":[1,{"d":2,"e":3}],"f":{"g":{"h":[]}}}`: 4,
		`{"a\"b":1,"a\\":{"x":"}"},"":null}`:                               3,
		`{"a":1,"a":2}`:                                                    2,
		`{"type":"privacy","nested":{"type":"x"},"type":"cookie"}`:         3,
	} {
		if got := countMembers([]byte(body)); got != want {
			t.Errorf("countMembers(%s) = %d, want %d", body, got, want)
		}
		raw, dups, err := decodeObject([]byte(body))
		if err != nil {
			t.Fatalf("decodeObject(%s): %v", body, err)
		}
		if len(raw)+len(dups) < want && len(dups) == 0 {
			t.Errorf("decodeObject(%s): %d members and no repeated one, want %d", body, len(raw), want)
		}
	}
	if _, dups, _ := decodeObject([]byte(`{"type":"privacy","nested":{"type":"x"},"type":"cookie"}`)); !slices.Equal(dups, []string{"type"}) {
		t.Errorf("repeated member not reported: %v", dups)
	}
}
