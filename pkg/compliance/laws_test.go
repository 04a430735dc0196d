package compliance

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/policygen/policygen/pkg/catalog"
)

// TestEmbeddedLaws loads the real checklists strictly.
func TestEmbeddedLaws(t *testing.T) {
	laws, err := LoadLaws(embedded, "data/laws")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []string{"EU", "UK", "US-CA"} {
		if len(ForJurisdiction(laws, j)) == 0 {
			t.Errorf("no law covers %s", j)
		}
	}
	got, err := Laws()
	if err != nil || len(got) != len(laws) {
		t.Fatalf("Laws() = %d laws, %v", len(got), err)
	}
}

const goodLaw = `{"id":"x","shortName":"X","name":"X Act","jurisdictions":["EU"],"sources":[],
 "requirements":[{"id":"x.1","citation":"X s. 1","title":"T","disclose":"D","appliesWhen":[],"needs":[],"missingFix":""}]}`

func TestLoadLawsRejects(t *testing.T) {
	tests := []struct{ name, file, body, want string }{
		{"unknown field", "x.json", strings.Replace(goodLaw, `"title":"T"`, `"title":"T","colour":"red"`, 1), "unknown field"},
		{"trailing data", "x.json", goodLaw + ` {}`, "trailing data after the JSON value"},
		{"unknown fact", "x.json", strings.Replace(goodLaw, `"appliesWhen":[]`, `"appliesWhen":["sunny"]`, 1), `unknown fact "sunny"`},
		{"unknown need", "x.json", strings.Replace(goodLaw, `"needs":[]`, `"needs":["fax"]`, 1), `unknown request field "fax"`},
		{"malformed country", "x.json", strings.Replace(goodLaw, `"jurisdictions":["EU"]`, `"jurisdictions":["country:usa"]`, 1), `a country entry is country:XX`},
		{"need without fix", "x.json", strings.Replace(goodLaw, `"needs":[]`, `"needs":["contactEmail"]`, 1), "no missingFix"},
		{"file name mismatch", "y.json", goodLaw, "does not match"},
		{"missing citation", "x.json", strings.Replace(goodLaw, `"citation":"X s. 1"`, `"citation":""`, 1), "citation"},
	}
	if _, err := LoadLaws(fstest.MapFS{"laws/x.json": {Data: []byte(goodLaw)}}, "laws"); err != nil {
		t.Fatalf("good law rejected: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadLaws(fstest.MapFS{"laws/" + tt.file: {Data: []byte(tt.body)}}, "laws")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("duplicate requirement across files", func(t *testing.T) {
		other := strings.NewReplacer(`"id":"x"`, `"id":"z"`).Replace(goodLaw)
		_, err := LoadLaws(fstest.MapFS{"laws/x.json": {Data: []byte(goodLaw)}, "laws/z.json": {Data: []byte(other)}}, "laws")
		if err == nil || !strings.Contains(err.Error(), `duplicate requirement id "x.1"`) {
			t.Fatalf("error = %v", err)
		}
	})
}

// TestExpandCountries: "country:XX" stands for every jurisdiction whose
// countries include XX, in the order given, each once; a country no
// jurisdiction includes is an error.
func TestExpandCountries(t *testing.T) {
	js := []catalog.Jurisdiction{
		{ID: "EU", Countries: []string{"DE", "FR"}},
		{ID: "US", Countries: []string{"US"}},
		{ID: "US-CA", Countries: []string{"US"}},
		{ID: "US-TX", Countries: []string{"US"}},
	}
	laws := []Law{
		{ID: "fed", Jurisdictions: []string{"US-TX", "country:US"}},
		{ID: "eu", Jurisdictions: []string{"EU"}},
	}
	if err := ExpandCountries(laws, js); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(laws[0].Jurisdictions, ","); got != "US-TX,US,US-CA" {
		t.Errorf("country:US = %s, want US-TX,US,US-CA", got)
	}
	if got := strings.Join(laws[1].Jurisdictions, ","); got != "EU" {
		t.Errorf("a law without a country entry changed: %s", got)
	}
	err := ExpandCountries([]Law{{ID: "x", Jurisdictions: []string{"country:ZZ"}}}, js)
	if err == nil || !strings.Contains(err.Error(), `no catalog jurisdiction includes the country of "country:ZZ"`) {
		t.Errorf("country:ZZ: error = %v", err)
	}
	// The embedded COPPA Rule covers every U.S. jurisdiction of the catalog.
	all, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range c.Jurisdictions {
		covered := slices.ContainsFunc(ForJurisdiction(all, j.ID), func(l Law) bool { return l.ID == "us-coppa" })
		if covered != slices.Contains(j.Countries, "US") {
			t.Errorf("jurisdiction %s (countries %v): us-coppa covers it = %v", j.ID, j.Countries, covered)
		}
	}
}

// TestApplicableCopied: a law whose every item applies is appended from
// its items (Law.items) only while they point into its Requirements: a
// copy given other Requirements (a clone, a shorter slice) gets pointers
// into those.
func TestApplicableCopied(t *testing.T) {
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	all := FactSet{}
	for _, n := range FactNames {
		all[n] = true
	}
	for _, l := range laws[:min(len(laws), 5)] {
		for _, rs := range [][]Requirement{l.Requirements, slices.Clone(l.Requirements), l.Requirements[min(1, len(l.Requirements)):]} {
			c := l
			c.Requirements = rs
			got := AppendApplicable(nil, []Law{c}, all)
			if len(got) != len(rs) {
				t.Fatalf("law %s: %d requirements applicable, want %d", l.ID, len(got), len(rs))
			}
			for j := range got {
				if got[j] != &rs[j] {
					t.Errorf("law %s: item %d is not a pointer into the law's Requirements", l.ID, j)
				}
			}
		}
	}
}

// TestApplicableLoaded: the loaded checklists' conditions are bit masks
// (Requirement.when, and a law's union of them); for every item and every
// fact alone, with all of them and with none, AppendApplicable keeps what
// Holds says applies.
func TestApplicableLoaded(t *testing.T) {
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	for i := range laws {
		if !laws[i].whenSet {
			t.Fatalf("law %s: conditions not set on load", laws[i].ID)
		}
	}
	sets := []FactSet{{}, {}, {"notAFact": true}}
	for _, n := range FactNames {
		sets[1][n] = true
		// A copy of a name is found by its text (factBits).
		sets = append(sets, FactSet{n: true}, FactSet{n: false}, FactSet{strings.Clone(n): true})
	}
	for _, facts := range sets {
		got := AppendApplicable(nil, laws, facts)
		k := 0
		for i := range laws {
			for j := range laws[i].Requirements {
				r := &laws[i].Requirements[j]
				if !r.whenSet {
					t.Fatalf("requirement %s: conditions not set on load", r.ID)
				}
				if !facts.Holds(r.AppliesWhen) {
					continue
				}
				if k >= len(got) || got[k] != r {
					t.Fatalf("facts %v: requirement %s (appliesWhen %v) missing", facts, r.ID, r.AppliesWhen)
				}
				k++
			}
		}
		if k != len(got) {
			t.Errorf("facts %v: %d requirements applicable, want %d", facts, len(got), k)
		}
	}
}

func TestApplicable(t *testing.T) {
	law := Law{ID: "l", Requirements: []Requirement{
		{ID: "always"},
		{ID: "sells", AppliesWhen: []string{FactSellsOrShares}},
		{ID: "sells+sensitive", AppliesWhen: []string{FactSellsOrShares, FactCollectsSensitive}},
	}}
	tests := []struct {
		facts FactSet
		want  string
	}{
		{FactSet{}, "always"},
		{FactSet{FactSellsOrShares: true}, "always,sells"},
		{FactSet{FactSellsOrShares: true, FactCollectsSensitive: true}, "always,sells,sells+sensitive"},
		{FactSet{FactCollectsSensitive: true}, "always"},
	}
	for _, tt := range tests {
		var ids []string
		for _, r := range Applicable([]Law{law}, tt.facts) {
			ids = append(ids, r.ID)
		}
		if got := strings.Join(ids, ","); got != tt.want {
			t.Errorf("Applicable(%v) = %s, want %s", tt.facts, got, tt.want)
		}
	}
}

func TestForTypeAndAllJurisdictions(t *testing.T) {
	laws := []Law{
		{ID: "a", Jurisdictions: []string{"X"}, Requirements: []Requirement{{ID: "a.1"}, {ID: "a.2", Types: []string{"cookie"}}}},
		{ID: "b", Jurisdictions: []string{AllJurisdictions}, Types: []string{"terms"}, Requirements: []Requirement{{ID: "b.1"}, {ID: "b.2", Types: []string{"terms", "eula"}}}},
		{ID: "c", Jurisdictions: []string{"Y"}, Requirements: []Requirement{{ID: "c.1"}}},
	}
	ids := func(ls []Law) (out []string) {
		for _, l := range ls {
			for _, r := range l.Requirements {
				out = append(out, r.ID)
			}
		}
		return out
	}
	x := ForJurisdiction(laws, "X")
	if got := ids(x); !slices.Equal(got, []string{"a.1", "a.2", "b.1", "b.2"}) {
		t.Errorf("ForJurisdiction(X) = %v", got)
	}
	for typ, want := range map[string][]string{
		"privacy": {"a.1"}, "cookie": {"a.2"}, "terms": {"b.1", "b.2"}, "eula": {"b.2"}, "refund": nil,
	} {
		if got := ids(ForType(x, typ)); !slices.Equal(got, want) {
			t.Errorf("ForType(%s) = %v, want %v", typ, got, want)
		}
	}
	if got := laws[0].DocumentTypes(); !slices.Equal(got, []string{"cookie", "privacy"}) {
		t.Errorf("DocumentTypes(a) = %v", got)
	}
	if got := laws[1].DocumentTypes(); !slices.Equal(got, []string{"eula", "terms"}) {
		t.Errorf("DocumentTypes(b) = %v", got)
	}
}

// TestLawPosition: each embedded law's Position is its index among
// Laws(), which ForType's copies keep; a law made otherwise has none.
func TestLawPosition(t *testing.T) {
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	for i := range laws {
		if p := laws[i].Position(); p != i {
			t.Errorf("%s: Position %d, want %d", laws[i].ID, p, i)
		}
	}
	for _, l := range ForType(laws, "terms") {
		if p := l.Position(); p < 0 || laws[p].ID != l.ID {
			t.Errorf("%s: ForType's copy at position %d", l.ID, p)
		}
	}
	if p := (&Law{ID: "gdpr"}).Position(); p != -1 {
		t.Errorf("a law made otherwise: Position %d, want -1", p)
	}
}
