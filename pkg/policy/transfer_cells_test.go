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
