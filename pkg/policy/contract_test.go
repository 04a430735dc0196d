package policy

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/errs"
)

// contractTypes are the contract documents: terms, eula, acceptable-use.
var contractTypes = []string{"terms", "eula", "acceptable-use"}

// subscriptionCases are the shapes subscriptions takes in a request.
func subscriptionCases() map[string]*Subscriptions {
	t, f := true, false
	return map[string]*Subscriptions{
		"unstated":      nil,
		"none":          {Offered: false},
		"offered":       {Offered: true},
		"fixed":         {Offered: true, AutoRenews: &f},
		"renews-online": {Offered: true, AutoRenews: &t, BillingPeriod: "month", Cancellation: "online"},
		"renews-email":  {Offered: true, AutoRenews: &t, BillingPeriod: "year", Cancellation: "email"},
		"renews-vague":  {Offered: true, AutoRenews: &t},
	}
}

// contractRequests yields, for every matrix jurisdiction and contract type,
// every business type x flag combination with each subscription shape
// (where payments are taken; otherwise subscriptions unstated),
// complete (governing law, minimum age, contact email; a postal address
// every other case) and incomplete.
func contractRequests(c *catalog.Catalog) iter.Seq2[string, Request] {
	return func(yield func(string, Request) bool) {
		subs := subscriptionCases()
		names := []string{"unstated", "none", "offered", "fixed", "renews-online", "renews-email", "renews-vague"}
		p := 0
		for _, j := range matrixJurisdictions(c) {
			for _, typ := range contractTypes {
				p++
				// Business types rotate as in the main matrix
				// (-matrix.full for all of them).
				for i, bt := range matrixPairBusinessTypes(c, p) {
					for flags := range 8 {
						cases := names
						if flags&1 == 0 { // subscriptions are described only where payments are taken
							cases = names[:1]
						}
						for _, sn := range cases {
							for _, complete := range []bool{true, false} {
								req := Request{
									Type: typ, BusinessName: "Matrix Ltd", WebsiteURL: "https://matrix.example",
									BusinessType: bt, Language: "en", Jurisdiction: j, Format: "markdown",
									CollectsPayments: flags&1 != 0, CollectsUserData: flags&2 != 0, UsesAnalytics: flags&4 != 0,
									ThirdPartyServices: []string{}, Subscriptions: subs[sn],
								}
								if complete {
									req.ContactEmail, req.GoverningLaw, req.MinimumAge = "legal@matrix.example", "GB-EAW", 18
									if i%2 == 0 {
										req.PostalAddress = "1 Main St, Springfield"
									}
								}
								name := fmt.Sprintf("%s/%s/%s/flags=%03b/subscriptions=%s/complete=%v", j, typ, bt, flags, sn, complete)
								if !yield(name, req) {
									return
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestContractMatrix: every applicable checklist item of the contract
// documents is satisfied (checkOne), a request complete in every input the
// items need is ready with no placeholder, any placeholder comes with a
// todo, and no format shows a template marker.
func TestContractMatrix(t *testing.T) {
	laws, err := compliance.Laws()
	if err != nil {
		t.Fatal(err)
	}
	n, ready := 0, 0
	for name, req := range contractRequests(mustCatalog(t)) {
		checkOne(t, name, req, laws)
		doc, facts, _, err := Compose(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		placeholders := countPlaceholders(doc)
		status := Status(facts.Todos)
		subsComplete := !req.CollectsPayments || req.Subscriptions.Complete()
		switch {
		case strings.HasSuffix(name, "complete=true") && subsComplete && (placeholders > 0 || status != StatusReady):
			t.Fatalf("%s: complete request: %d placeholders, status %s, todos %+v", name, placeholders, status, facts.Todos)
		case placeholders > 0 && status != StatusNeedsInput:
			t.Fatalf("%s: %d placeholders but status %s", name, placeholders, status)
		}
		formats := []string{"markdown"}
		if req.CollectsPayments && req.CollectsUserData && req.UsesAnalytics {
			formats = Formats
		}
		for _, f := range formats {
			out, err := Render(doc, f, req.Language)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if m := templateMarker.FindString(out); m != "" {
				t.Fatalf("%s: %s output contains the template marker %q", name, f, m)
			}
		}
		n++
		if status == StatusReady {
			ready++
		}
	}
	t.Logf("%d contract documents generated without a gap, %d ready", n, ready)
}

func TestGoverningLaw(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"DE", "DE"}, {"germany", "DE"}, {"Ireland", "IE"}, {"US-CA", "US-CA"}, {"us-de", "US-DE"},
		{"California", "US-CA"}, {"State of New York", "US-NY"}, {"England and Wales", "GB-EAW"},
		{"England", "GB-EAW"}, {"Scotland", "GB-SCT"}, {"Northern Ireland", "GB-NIR"}, {"GB-NIR", "GB-NIR"},
		{"District of Columbia", "US-DC"},
		// Canada: a province or territory (ISO 3166-2:CA), by code or by
		// its English or French name, in any case, with or without accents.
		{"Ontario", "CA-ON"}, {"ontario", "CA-ON"}, {"CA-ON", "CA-ON"}, {"ca-on", "CA-ON"},
		{"Quebec", "CA-QC"}, {"Québec", "CA-QC"}, {"QUÉBEC", "CA-QC"}, {"CA-QC", "CA-QC"},
		{"British Columbia", "CA-BC"}, {"Colombie-Britannique", "CA-BC"}, {"Nouvelle-Écosse", "CA-NS"},
		{"Nouvelle Ecosse", "CA-NS"}, {"Île-du-Prince-Édouard", "CA-PE"}, {"Prince Edward Island", "CA-PE"},
		{"Newfoundland and Labrador", "CA-NL"}, {"Terre-Neuve-et-Labrador", "CA-NL"}, {"New Brunswick", "CA-NB"},
		{"Northwest Territories", "CA-NT"}, {"Territoires du Nord-Ouest", "CA-NT"}, {"Nunavut", "CA-NU"},
		{"Yukon", "CA-YT"}, {"CA-YT", "CA-YT"}, {"Alberta", "CA-AB"}, {"Manitoba", "CA-MB"},
		{"Saskatchewan", "CA-SK"},
	} {
		got, problem, _ := resolveGoverningLaw(tt.in)
		if got != tt.want || problem != "" {
			t.Errorf("resolveGoverningLaw(%q) = %q, %q; want %q", tt.in, got, problem, tt.want)
		}
	}
	for _, in := range []string{"US", "United States", "UK", "United Kingdom", "GB", "EU", "Georgia", "Atlantis", "CA", "Canada", "CA-XX"} {
		if got, problem, _ := resolveGoverningLaw(in); got != "" || problem == "" {
			t.Errorf("resolveGoverningLaw(%q) = %q, %q; want a problem", in, got, problem)
		}
	}
	// Canada alone: the reason, and at most three province codes to try.
	for _, in := range []string{"CA", "Canada", "canada"} {
		_, problem, sug := resolveGoverningLaw(in)
		if !strings.Contains(problem, "province") || !slices.Equal(sug, []string{"CA-ON", "CA-QC", "CA-BC"}) {
			t.Errorf("resolveGoverningLaw(%q) = %q, %v; want the reason and CA-ON, CA-QC, CA-BC", in, problem, sug)
		}
	}
	for code, want := range map[string]string{
		"GB-EAW": "England and Wales", "GB-SCT": "Scotland", "GB-NIR": "Northern Ireland", "CA-ON": "Ontario", "CA-QC": "Quebec",
		"CA-NT": "the Northwest Territories", "US-AK": "Alaska", "US-DC": "the District of Columbia", "US-WY": "Wyoming", "US-XX": "",
	} {
		if n := governingLawName(code); n != want {
			t.Errorf("governingLawName(%s) = %q, want %q", code, n, want)
		}
	}
	// The states are found by binary search: sorted by code, each once,
	// fifty and D.C., and every one found by its code and its name.
	sorted := slices.IsSortedFunc(usStates, func(a, b struct{ code, name string }) int { return strings.Compare(a.code, b.code) })
	if !sorted || len(usStates) != 51 {
		t.Errorf("usStates: %d entries, sorted by code %v; want 51, sorted", len(usStates), sorted)
	}
	for i, st := range usStates {
		if i > 0 && usStates[i-1].code == st.code {
			t.Errorf("usStates lists %s twice", st.code)
		}
		if n, ok := usStateName(st.code); !ok || n != st.name {
			t.Errorf("usStateName(%s) = %q, %v; want %q", st.code, n, ok, st.name)
		}
		if got, problem, _ := resolveGoverningLaw(strings.TrimPrefix(st.name, "the ")); st.code != "GA" && (got != "US-"+st.code || problem != "") {
			t.Errorf("resolveGoverningLaw(%q) = %q, %q; want US-%s", st.name, got, problem, st.code)
		}
	}
	// Thirteen provinces and territories, each with its own wording of the
	// law chosen (the English labels).
	if len(caSubdivisions) != 13 {
		t.Errorf("%d Canadian provinces and territories, want 13", len(caSubdivisions))
	}
	l, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range caSubdivisions {
		if l.Texts["en"].Labels["governingLaw.text."+p.code] == "" {
			t.Errorf("no label governingLaw.text.%s", p.code)
		}
	}
}

func TestContractFieldsValidation(t *testing.T) {
	base := `"type":"terms","businessName":"B","websiteUrl":"https://b.example","businessType":"saas","jurisdiction":"UK","collectsPayments":true,"collectsUserData":false,"usesAnalytics":false`
	ok := map[string]func(Request) bool{
		`"governingLaw":"Scotland"`: func(r Request) bool { return r.GoverningLaw == "GB-SCT" },
		`"governingLaw":"Québec"`:   func(r Request) bool { return r.GoverningLaw == "CA-QC" },
		`"governingLaw":"ca-on"`:    func(r Request) bool { return r.GoverningLaw == "CA-ON" },
		`"minimumAge":18`:           func(r Request) bool { return r.MinimumAge == 18 },
		`"subscriptions":false`:     func(r Request) bool { return r.Subscriptions != nil && !r.Subscriptions.Offered },
		`"subscriptions":true`:      func(r Request) bool { return r.Subscriptions.Offered && !r.Subscriptions.Complete() },
		`"subscriptions":{"autoRenews":true,"billingPeriod":"Month","cancellation":"online"}`: func(r Request) bool {
			return r.Subscriptions.AutoRenewing() && r.Subscriptions.BillingPeriod == "month" && r.Subscriptions.Complete()
		},
		`"subscriptions":{"autoRenews":false}`: func(r Request) bool { return r.Subscriptions.Offered && r.Subscriptions.Complete() },
	}
	for field, check := range ok {
		req, err := ParseRequest([]byte("{" + base + "," + field + "}"))
		if err != nil || !check(req) {
			t.Errorf("%s: %+v, %v", field, req, err)
		}
	}
	for field, want := range map[string]string{
		`"governingLaw":"United Kingdom"`: "governingLaw",
		`"governingLaw":"Canada"`:         "governingLaw",
		`"governingLaw":"CA"`:             "governingLaw",
		`"minimumAge":12`:                 "minimumAge",
		`"minimumAge":"18"`:               "minimumAge",
		`"minimumAge":18.5`:               "minimumAge",
		`"subscriptions":"monthly"`:       "subscriptions",
		`"subscriptions":{"renews":true}`: "subscriptions",
		`"subscriptions":{"autoRenews":true,"billingPeriod":"daily"}`: "subscriptions.billingPeriod",
		`"subscriptions":{"autoRenews":true,"cancellation":"phone"}`:  "subscriptions.cancellation",
		`"subscriptions":{"autoRenews":false,"billingPeriod":"year"}`: "subscriptions",
	} {
		_, err := ParseRequest([]byte("{" + base + "," + field + "}"))
		var e *errs.Error
		if !errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Field != want {
			t.Errorf("%s: error %+v, want one naming %s", field, err, want)
		}
	}
}

// TestContractItemsHaveClauses: every checklist item of the contract
// documents is claimed by a clause of each document type it applies to, so
// a jurisdiction whose catalog file arrives later (BR, AU) finds its items
// already written for.
func TestContractItemsHaveClauses(t *testing.T) {
	laws, err := compliance.Laws()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range contractTypes {
		claimed := map[string]bool{}
		for _, sec := range lib.Structures[typ].Sections {
			for _, c := range sec.Clauses {
				for _, r := range c.Satisfies {
					claimed[r] = true
				}
			}
		}
		for _, l := range compliance.ForType(laws, typ) {
			for _, r := range l.Requirements {
				if !claimed[r.ID] {
					t.Errorf("%s: %s (%s) is claimed by no clause", typ, r.ID, l.ID)
				}
			}
		}
	}
}
