package policy

import (
	"slices"
	"strings"
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

// TestRiskCitesApplicableLaw: a risk factor applies, and its reason cites
// a law, only where that law applies to the document (findings left 1, 2
// and 4 of docs/legal/review-2026-11-26.md; docs/legal/risk.md,
// "2026-11-26 follow-up"). Before, transfers_adequate scored U.S. and other
// documents whose laws have no transfer rule and cited GDPR Art. 45;
// sells_or_shares cited the CCPA on an EU cookie policy; sensitive_data
// cited the CCPA where it does not apply; and refund-br scored nothing for
// Brazil's 7-day withdrawal right.
func TestRiskCitesApplicableLaw(t *testing.T) {
	tests := []struct {
		golden      string
		edit        func(*Request)
		factor      string
		absent      bool     // the factor must not be there
		contains    []string // in the factor's why
		notContains []string
	}{
		// 1. Transfers: only under a law that regulates them, citing it.
		{golden: "us-kids-ready", factor: "transfers_adequate", absent: true},
		{golden: "us-ca-marketplace", factor: "transfers_adequate", absent: true},
		{golden: "za-media", factor: "transfers_adequate", absent: true},
		{golden: "br-saas", factor: "transfers_adequate", absent: true},
		{golden: "eu-ecommerce", factor: "transfers_contractual",
			contains: []string{"(GDPR Arts. 46, 49)"}, notContains: []string{"UK GDPR", "FADP"}},
		{golden: "uk-shop", factor: "transfers_contractual",
			contains: []string{"UK GDPR Arts. 44A, 46, 49"}, notContains: []string{"(GDPR", "FADP"}},
		{golden: "eu-uk-saas", factor: "transfers_contractual",
			contains: []string{"GDPR Arts. 46, 49; UK GDPR Arts. 44A, 46, 49"}},
		// AWS and Calendly rest on the FDPIC's clauses, as the document's
		// table says (before, the factor ignored the Swiss safeguards).
		{golden: "ch-consultancy", factor: "transfers_contractual",
			contains: []string{"(FADP Arts. 16(2), 17)"}, notContains: []string{"GDPR"}},
		{golden: "ch-consultancy", factor: "transfers_adequate", absent: true},
		{golden: "ch-consultancy", edit: func(r *Request) {
			r.TransferSafeguards = map[string][]string{"aws": {"ch_dpf"}, "calendly": {"ch_dpf"}}
		}, factor: "transfers_adequate", contains: []string{"Federal Council", "(FADP Art. 16(1))"}, notContains: []string{"GDPR"}},
		// 2. Sale or sharing, and sensitive data: the law that applies.
		{golden: "cookie-eu-complete", factor: "sells_or_shares",
			contains: []string{"Directive 2002/58/EC Art. 5(3)"}, notContains: []string{"Cal. Civ. Code", "PECR"}},
		{golden: "eu-ecommerce", factor: "sells_or_shares",
			contains: []string{"Directive 2002/58/EC Art. 5(3)"}, notContains: []string{"Cal. Civ. Code"}},
		{golden: "eu-us-ca-marketplace", factor: "sells_or_shares",
			contains: []string{"Cal. Civ. Code § 1798.140(ad), (ah)", "Directive 2002/58/EC Art. 5(3)"}},
		{golden: "us-ca-marketplace", factor: "sells_or_shares",
			contains: []string{"Cal. Civ. Code § 1798.140(ad), (ah)"}, notContains: []string{"Directive"}},
		{golden: "us-md-ri-shop", factor: "sells_or_shares",
			contains: []string{"Md. Code, Com. Law § 14-4707", "R.I. Gen. Laws § 6-48.1-3(b)"}, notContains: []string{"Cal. Civ. Code"}},
		{golden: "za-media", factor: "sells_or_shares", notContains: []string{"Cal. Civ. Code", "§", "Art."}},
		{golden: "us-kids-ready", factor: "sensitive_data", notContains: []string{"Cal. Civ. Code", "§"}},
		{golden: "eu-ecommerce", factor: "sensitive_data", notContains: []string{"Cal. Civ. Code", "§"}},
		{golden: "us-ca-marketplace", factor: "sensitive_data", contains: []string{"Cal. Civ. Code § 1798.140(ae)"}},
		// 4. Brazil's right of withdrawal, with its own citation.
		{golden: "refund-br", factor: "withdrawal_right",
			contains: []string{"7 days", "Lei nº 8.078/1990 (CDC) Art. 49"}, notContains: []string{"Directive", "14 days"}},
		{golden: "refund-eu", factor: "withdrawal_right",
			contains: []string{"14 days", "Directive 2011/83/EU Arts. 9, 10(1)"}, notContains: []string{"CDC", "SI 2013/3134"}},
		{golden: "terms-uk", factor: "withdrawal_right",
			contains: []string{"SI 2013/3134 regs. 29-31"}, notContains: []string{"CDC", "Directive"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden+"/"+tt.factor, func(t *testing.T) {
			res := generated(t, tt.golden, tt.edit)
			i := slices.IndexFunc(res.RiskFactors, func(f compliance.Factor) bool { return f.ID == tt.factor })
			if tt.absent {
				if i >= 0 {
					t.Fatalf("%s scored: %+v", tt.factor, res.RiskFactors[i])
				}
				return
			}
			if i < 0 {
				t.Fatalf("%s not scored; factors %v", tt.factor, res.RiskFactors)
			}
			why := res.RiskFactors[i].Why
			for _, s := range tt.contains {
				if !strings.Contains(why, s) {
					t.Errorf("why lacks %q: %s", s, why)
				}
			}
			for _, s := range tt.notContains {
				if strings.Contains(why, s) {
					t.Errorf("why has %q: %s", s, why)
				}
			}
			if strings.Contains(why, "%") {
				t.Errorf("why has a verb: %s", why)
			}
		})
	}
}

// TestRiskWithdrawalBrazil: the terms of a Brazilian business that takes
// payments score the CDC's right of withdrawal; without payments, nothing.
func TestRiskWithdrawalBrazil(t *testing.T) {
	for _, paid := range []bool{true, false} {
		res := generated(t, "refund-br", func(r *Request) { r.Type = "terms"; r.CollectsPayments = paid })
		factors, _ := resultIDs(res)
		if got := slices.Contains(factors, "withdrawal_right"); got != paid {
			t.Errorf("collectsPayments %v: withdrawal_right %v, factors %v", paid, got, factors)
		}
	}
}
