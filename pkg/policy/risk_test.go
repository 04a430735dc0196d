package policy

import (
	"slices"
	"testing"

	"github.com/policygen/policygen/pkg/compliance"
)

// generated parses and generates a golden request, changed by edit.
func generated(t *testing.T, golden string, edit func(*Request)) Result {
	t.Helper()
	req, err := ParseRequest([]byte(goldenRequests[golden]))
	if err != nil {
		t.Fatalf("%s: %v", golden, err)
	}
	if edit != nil {
		edit(&req)
	}
	res, err := Generate(req)
	if err != nil {
		t.Fatalf("%s: %v", golden, err)
	}
	return res
}

func resultIDs(res Result) (factors, flags []string) {
	for _, f := range res.RiskFactors {
		factors = append(factors, f.ID)
	}
	for _, f := range res.Flags {
		flags = append(flags, f.Code)
	}
	return factors, flags
}

// TestRiskPerType: each document's score and flags concern what it
// covers (docs/SCORING.md, "Per document type"). Before, every type got
// the privacy policy's: a shipping policy for a health business was
// flagged sector_hipaa and scored for payment data, a cookie policy
// carried the GDPR's DPO flag and the CCPA's request methods, and a
// renewing subscription did not count in the terms.
func TestRiskPerType(t *testing.T) {
	tests := []struct {
		name    string
		golden  string
		edit    func(*Request)
		want    []string // factors or flags that must be there
		notWant []string // factors or flags that must not
	}{
		{name: "shipping policy of a health business in California", golden: "shipping-incomplete",
			edit:    func(r *Request) { r.BusinessType = "healthcare" },
			want:    []string{"goods_delivery"},
			notWant: []string{"sector_hipaa", "sector_data", "sensitive_data", "payments", "dpo_not_stated", "ccpa_web_request_method"}},
		{name: "cookie policy, EU", golden: "cookie-eu-complete",
			want:    []string{"sells_or_shares", "non_essential_cookies", "cookie_consent_required"},
			notWant: []string{"dpo_not_stated", "automated_decisions_assumed", "sensitive_data", "payments", "transfers_contractual"}},
		{name: "cookie policy, US-CA", golden: "cookie-us-ca",
			want:    []string{"sells_or_shares"},
			notWant: []string{"ccpa_web_request_method", "ccpa_opt_out_link", "caloppa_do_not_track"}},
		{name: "terms with renewing subscriptions, US-CA", golden: "terms-us-ca-autorenew",
			want: []string{"auto_renewal"}},
		{name: "terms, EU, under the law of England and Wales", golden: "terms-eu-complete",
			edit: func(r *Request) { r.GoverningLaw = "GB-EAW" },
			want: []string{"governing_law_abroad", "withdrawal_right"}},
		{name: "terms, UK, under Scots law", golden: "terms-uk",
			edit:    func(r *Request) { r.GoverningLaw = "GB-SCT" },
			notWant: []string{"governing_law_abroad"}},
		{name: "refund policy, UK, 7-day window", golden: "refund-uk",
			edit: func(r *Request) { n := 7; r.RefundWindowDays = &n },
			want: []string{"withdrawal_right", "refund_window_below_withdrawal"}},
		{name: "acceptable use policy, EU", golden: "acceptable-use-uk",
			edit: func(r *Request) { r.Jurisdiction = "EU" },
			want: []string{"content_moderation_eu"}},
		{name: "disclaimer of a health blog, US-CA", golden: "disclaimer-us-ca-health-blog",
			want:    []string{"affiliate_links"},
			notWant: []string{"sector_hipaa", "sector_data", "analytics"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := generated(t, tt.golden, tt.edit)
			factors, flags := resultIDs(res)
			got := slices.Concat(factors, flags)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("%s lacks %s: factors %v, flags %v", res.Request.Type, w, factors, flags)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(got, w) {
					t.Errorf("%s has %s: factors %v, flags %v", res.Request.Type, w, factors, flags)
				}
			}
		})
	}
}

// TestGoldenRiskConcernsType: in every golden document, each factor and
// flag is one the model gives to that document's type.
func TestGoldenRiskConcernsType(t *testing.T) {
	for name := range goldenRequests {
		res := generated(t, name, nil)
		for _, f := range res.RiskFactors {
			i := slices.IndexFunc(compliance.RiskModel, func(m compliance.FactorModel) bool { return m.ID == f.ID })
			if i < 0 || !slices.Contains(compliance.RiskModel[i].DocumentTypes(), res.Request.Type) {
				t.Errorf("%s: factor %s on a %s document", name, f.ID, res.Request.Type)
			}
		}
		for _, f := range res.Flags {
			if d, ok := compliance.Lookup(f.Code); !ok || !slices.Contains(d.DocumentTypes(), res.Request.Type) {
				t.Errorf("%s: flag %s on a %s document", name, f.Code, res.Request.Type)
			}
		}
	}
}

// TestEveryTypeIsScored: every document type of the catalog has risk
// factors of its own, and every type a factor or flag names is a catalog
// type (a misspelt type would silently score nothing).
func TestEveryTypeIsScored(t *testing.T) {
	types := mustCatalog(t).Types
	scored := map[string]bool{}
	for _, m := range compliance.RiskModel {
		for _, typ := range m.DocumentTypes() {
			if !slices.Contains(types, typ) {
				t.Errorf("factor %s names type %q, not in catalog.json", m.ID, typ)
			}
			scored[typ] = true
		}
	}
	for _, d := range compliance.Catalog {
		for _, typ := range d.DocumentTypes() {
			if !slices.Contains(types, typ) {
				t.Errorf("flag %s names type %q, not in catalog.json", d.Code, typ)
			}
		}
	}
	for _, typ := range types {
		if !scored[typ] {
			t.Errorf("no risk factor scores %s documents", typ)
		}
	}
}
