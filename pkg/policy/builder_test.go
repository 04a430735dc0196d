package policy

import (
	"fmt"
	"testing"
)

// inlinesText is the plain text of runs.
func inlinesText(ins []Inline) string {
	s := ""
	for _, in := range ins {
		s += in.Text
	}
	return s
}

// TestSafeguardCells: a transfer table makes each distinct safeguard cell
// once and shares it between rows, keyed by the safeguard and the
// mechanisms stated; beyond the cells it remembers, it still makes the
// right cell for every row.
func TestSafeguardCells(t *testing.T) {
	req := Request{Type: "privacy", BusinessName: "Cells Ltd", WebsiteURL: "https://cells.example", BusinessType: "ecommerce",
		Language: "en", Jurisdiction: "UK", Format: "markdown", ThirdPartyServices: []string{"stripe"}}
	completeRequest(&req)
	st := new(state)
	if _, _, _, err := st.compose(req, false); err != nil {
		t.Fatal(err)
	}
	b := &st.b
	j := &b.f.Jurisdiction
	w := b.transferWords()
	var sc safeguardCells
	idta := []string{"uk_idta"}
	first := sc.cell(b, &w, j, safeguardOther, idta)
	if got, want := inlinesText(first), "The UK International Data Transfer Agreement."; got != want {
		t.Fatalf("cell = %q, want %q", got, want)
	}
	// The same key from another list (another service's) is the same cell.
	again := sc.cell(b, &w, j, safeguardOther, []string{"uk_idta"})
	if &again[0] != &first[0] {
		t.Error("a second row with the same safeguard made its cell again")
	}
	// Another safeguard with the same mechanisms is another cell.
	if dpf := sc.cell(b, &w, j, safeguardDPF, idta); inlinesText(dpf) == inlinesText(first) {
		t.Errorf("the DPF cell reads as the cell without it: %q", inlinesText(dpf))
	}
	// More distinct keys than the memo holds: each is still right.
	for k := range 2 * len(sc.cells) {
		stated := []string{"uk_addendum", fmt.Sprint("m", k)}
		got := inlinesText(sc.cell(b, &w, j, safeguardOther, stated))
		want := inlinesText(b.safeguardCell(&w, j, "", stated))
		if got != want {
			t.Errorf("key %d: cell %q, want %q", k, got, want)
		}
	}
}

// TestCatalogWords: the words compiled with the library for the catalog's
// purposes, data categories and jurisdictions, found by the facts'
// catalog positions, are the labels the builder would look up by key.
func TestCatalogWords(t *testing.T) {
	c := mustCatalog(t)
	req := Request{Type: "privacy", BusinessName: "Words Ltd", WebsiteURL: "https://words.example", BusinessType: "marketplace",
		Language: "en", Jurisdiction: "EU,UK,US-CA,AU", Format: "markdown", CollectsPayments: true, CollectsUserData: true,
		UsesAnalytics: true, ThirdPartyServices: serviceMix(c)}
	completeRequest(&req)
	st := new(state)
	if _, _, _, err := st.compose(req, false); err != nil {
		t.Fatal(err)
	}
	b := &st.b
	f := b.f
	if len(f.Purposes) < 2 || len(f.Categories) < 2 || len(f.Jurisdictions) != 4 {
		t.Fatalf("facts too small to test: %d purposes, %d categories, %d jurisdictions", len(f.Purposes), len(f.Categories), len(f.Jurisdictions))
	}
	for i := range f.Purposes {
		id := f.Purposes[i].ID
		for kind, suffix := range purposeLabelSuffix {
			if got, want := b.purposeLabel(i, kind), b.label3("purpose.", id, suffix); got != want {
				t.Errorf("purpose %s%s: %q, want %q", id, suffix, got, want)
			}
		}
		w := &b.words.purposes[f.Purposes[i].pos]
		if want, ok := b.lookupLabel("purpose.", id, ".withoutData"); w.withoutData != want || w.hasWithoutData != ok {
			t.Errorf("purpose %s.withoutData: %q %v, want %q %v", id, w.withoutData, w.hasWithoutData, want, ok)
		}
	}
	for k := range f.Categories {
		if got, want := b.categoryName(k), b.label2("category.", f.Categories[k].ID); got != want {
			t.Errorf("category %s: %q, want %q", f.Categories[k].ID, got, want)
		}
	}
	for i := range f.Jurisdictions {
		j := &f.Jurisdictions[i]
		w := &b.words.jurisdictions[f.scr.jpos[i]]
		if got, want := inlinesText(w.region), b.label2("region.", j.ID); got != want {
			t.Errorf("region of %s: %q, want %q", j.ID, got, want)
		}
		if a := j.Authority; a != nil && (inlinesText(w.authorityName) != a.Name || w.authorityURL[0].URL != a.URL) {
			t.Errorf("authority of %s: %v %v, want %v", j.ID, w.authorityName, w.authorityURL, *a)
		}
	}
}
