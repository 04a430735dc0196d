package policy

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/policygen/policygen/pkg/errs"
)

// Issue 8, part j1: Canada (PIPEDA, Quebec's Act), Brazil (LGPD) and
// Switzerland (FADP).

// TestJ1RequestFields: servesQuebec and privacyOfficer belong to Canada.
func TestJ1RequestFields(t *testing.T) {
	req, err := ParseRequest(body(t, with(map[string]any{"jurisdiction": "Canada", "servesQuebec": true, "privacyOfficer": "Privacy Officer\nprivacy@acme.example"})))
	if err != nil {
		t.Fatal(err)
	}
	if req.Jurisdiction != "CA" || req.ServesQuebec == nil || !*req.ServesQuebec || req.PrivacyOfficer != "Privacy Officer\nprivacy@acme.example" {
		t.Fatalf("parsed %+v", req)
	}
	for _, j := range []string{"Brasil", "Schweiz", "Suisse", "CAN", "CHE"} {
		if _, err := ParseRequest(body(t, with(map[string]any{"jurisdiction": j}))); err != nil {
			t.Errorf("jurisdiction %q: %v", j, err)
		}
	}
	if _, err := ParseRequest(body(t, with(map[string]any{"jurisdiction": "BR", "smallProcessingAgent": true}))); err != nil {
		t.Errorf("BR with smallProcessingAgent: %v", err)
	}
	_, err = ParseRequest(body(t, with(map[string]any{"jurisdiction": "CA", "smallProcessingAgent": true})))
	var ce *errs.Error
	if !errors.As(err, &ce) || len(ce.Fields) != 1 || ce.Fields[0].Field != "smallProcessingAgent" {
		t.Errorf("CA with smallProcessingAgent: %v", err)
	}
	_, err = ParseRequest(body(t, with(map[string]any{"servesQuebec": false, "privacyOfficer": "x"})))
	var e *errs.Error
	if !errors.As(err, &e) {
		t.Fatalf("EU with servesQuebec: %v", err)
	}
	var fields []string
	for _, f := range e.Fields {
		fields = append(fields, f.Field)
		if !strings.Contains(f.Message, "only to the jurisdiction CA") {
			t.Errorf("%s: %s", f.Field, f.Message)
		}
	}
	if !slices.Equal(fields, []string{"privacyOfficer", "servesQuebec"}) {
		t.Errorf("fields %v", fields)
	}
}

// TestJ1Todos: the inputs each law needs are todos, with placeholders where
// the text must name them, and Quebec's Act only when servesQuebec is true.
func TestJ1Todos(t *testing.T) {
	yes, no := true, false
	base := func(j string) Request {
		return Request{Type: "privacy", BusinessName: "J1 Ltd", WebsiteURL: "https://j1.example", BusinessType: "saas",
			Language: "en", Jurisdiction: j, CollectsUserData: true, ThirdPartyServices: []string{"google-analytics"},
			ContactEmail: "a@j1.example", HostingProvider: "aws", Format: "markdown"}
	}
	fields := func(r Result) []string {
		var out []string
		for _, td := range r.Todos {
			out = append(out, td.Field)
		}
		return out
	}
	tests := []struct {
		name        string
		req         func() Request
		todos       []string
		contains    []string
		notContains []string
	}{
		{"CA, Quebec not stated", func() Request { return base("CA") }, []string{"servesQuebec"},
			[]string{"Our privacy officer is accountable", "Office of the Privacy Commissioner of Canada", "subject to that country's laws"}, []string{"Québec"}},
		{"CA, not in Quebec", func() Request { r := base("CA"); r.ServesQuebec = &no; return r }, nil,
			[]string{"PIPEDA"}, []string{"Québec", "send privacyOfficer"}},
		{"CA, Quebec without officer", func() Request { r := base("CA"); r.ServesQuebec = &yes; return r }, []string{"privacyOfficer", "consentBanner"},
			[]string{"send privacyOfficer", "Commission d'accès à l'information", "send consentBanner"}, nil},
		{"CA, Quebec complete", func() Request {
			r := base("CA")
			r.ServesQuebec, r.PrivacyOfficer, r.ConsentBanner = &yes, "Chief Privacy Officer, cpo@j1.example", &yes
			return r
		}, nil, []string{"Chief Privacy Officer, cpo@j1.example", "off by default"}, []string{": send "}},
		{"BR without encarregado", func() Request { return base("BR") }, []string{"dpoContact"},
			[]string{"send dpoContact", "Article 7, I LGPD", "https://www.gov.br/anpd/"}, nil},
		{"BR complete", func() Request { r := base("BR"); r.DPOContact = "Ana, dpo@j1.example"; return r }, nil,
			[]string{"encarregado, Article 41 LGPD) is Ana, dpo@j1.example"}, []string{": send "}},
		{"BR small agent without encarregado", func() Request { r := base("BR"); r.SmallProcessingAgent = &yes; return r }, nil,
			[]string{"we have not appointed an encarregado", "Resolution CD/ANPD nº 2/2022"}, []string{": send ", "our encarregado"}},
		{"BR small agent with encarregado", func() Request {
			r := base("BR")
			r.SmallProcessingAgent, r.DPOContact = &yes, "Ana, dpo@j1.example"
			return r
		}, nil, []string{"is Ana, dpo@j1.example"}, []string{"have not appointed"}},
		{"CH, US providers without guarantee", func() Request { return base("CH") }, []string{"transferSafeguards.aws", "transferSafeguards.google-analytics"},
			[]string{"Federal Council's list", "https://www.edoeb.admin.ch/"}, nil},
		{"CH complete", func() Request {
			r := base("CH")
			r.TransferSafeguards = map[string][]string{"aws": {"ch_sccs"}, "google-analytics": {"ch_dpf"}}
			return r
		}, nil, []string{"Swiss-U.S. Data Privacy Framework, while the provider is certified"}, []string{": send "}},
	}
	for _, tt := range tests {
		res, err := Generate(tt.req())
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := fields(res); !slices.Equal(got, tt.todos) {
			t.Errorf("%s: todos %v, want %v", tt.name, got, tt.todos)
		}
		for _, s := range tt.contains {
			if !strings.Contains(res.Content, s) {
				t.Errorf("%s: document lacks %q", tt.name, s)
			}
		}
		for _, s := range tt.notContains {
			if strings.Contains(res.Content, s) {
				t.Errorf("%s: document has %q", tt.name, s)
			}
		}
		for _, td := range res.Todos {
			if strings.Contains(td.Citation, "Cal.") || strings.Contains(td.Citation, "GDPR") {
				t.Errorf("%s: todo %s cites %s", tt.name, td.Field, td.Citation)
			}
		}
	}
}
