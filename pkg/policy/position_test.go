package policy

import (
	"slices"
	"testing"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// withoutPositions is a copy of f whose laws have no position
// (compliance.Law.Position) and whose jurisdictions no catalog positions
// (listedAt), as facts made in code: what is worked out from them goes by
// id and must be what it is by position.
func withoutPositions(f *Facts) *Facts {
	g := *f
	g.scr = factScratch{}
	g.named, g.namedSet = 0, false
	g.Laws = nil
	for _, l := range f.Laws {
		g.Laws = append(g.Laws, compliance.Law{ID: l.ID, ShortName: l.ShortName, Name: l.Name, Jurisdictions: l.Jurisdictions})
	}
	return &g
}

// TestLawsByPosition: the condition bits (establishedInRegime and
// needsRepresentativeAt too), the
// laws that apply and the listed jurisdictions each covers (lawListed,
// prepareLaws) are the same found by position as by id, for one, two and
// every jurisdiction.
func TestLawsByPosition(t *testing.T) {
	c := mustCatalog(t)
	lib, err := DefaultLibrary()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []string{"US-CA", "EU,UK", matrixCombinations(c)[len(matrixCombinations(c))-1]} {
		req := Request{Type: "privacy", BusinessName: "Position Ltd", WebsiteURL: "https://position.example",
			BusinessType: "marketplace", Language: "en", Jurisdiction: j, Format: "markdown",
			CollectsPayments: true, CollectsUserData: true, UsesAnalytics: true, ThirdPartyServices: serviceMix(c)}
		completeRequest(&req)
		st := new(state)
		if _, _, _, err := st.compose(req, false); err != nil {
			t.Fatal(err)
		}
		f := &st.facts
		for k, v := range f.Set {
			if !v {
				t.Errorf("%s: the facts hold %s false", j, k)
			}
		}
		if f.listedAt() == nil {
			t.Fatalf("%s: built facts have no catalog positions", j)
		}
		g := withoutPositions(f)
		if g.listedAt() != nil {
			t.Fatalf("%s: facts made in code have catalog positions", j)
		}
		if !f.namedSet || g.namedSet {
			t.Fatalf("%s: named laws set %v, made in code %v", j, f.namedSet, g.namedSet)
		}
		for _, id := range append(slices.Clone(namedLaws), "no-such-law", "us-va") {
			if got, want := f.HasLaw(id), g.HasLaw(id); got != want {
				t.Errorf("%s: HasLaw(%s) by bits %v, by id %v", j, id, got, want)
			}
			if got, want := f.HasLaw("no-such-law", id), g.HasLaw("no-such-law", id); got != want {
				t.Errorf("%s: HasLaw(no-such-law, %s) by bits %v, by id %v", j, id, got, want)
			}
		}
		for _, e := range []string{"", "DE", "GB", "US", "BR", "CA", "gb", "GBR"} {
			f.Request.EstablishedIn, g.Request.EstablishedIn = e, e
			if got, want := f.establishedInRegime(f.transferRegimes()), g.establishedInRegime(g.transferRegimes()); got != want {
				t.Errorf("%s: established in %q: %v by the regions' sets, %v by their lists", j, e, got, want)
			}
			regimes := f.transferRegimes()
			for i := range regimes {
				want := needsRepresentativeByList(f, &regimes[i])
				if got := f.needsRepresentativeAt(regimes, i); got != want {
					t.Errorf("%s: established in %q: %s needs a representative %v by its set, %v by its list", j, e, regimes[i].ID, got, want)
				}
				if got := g.needsRepresentativeAt(g.transferRegimes(), i); got != want {
					t.Errorf("%s: established in %q: %s needs a representative %v made in code, %v built", j, e, regimes[i].ID, got, want)
				}
			}
		}
		f.Request.EstablishedIn, g.Request.EstablishedIn = req.EstablishedIn, req.EstablishedIn
		var byPos, byID conditionBits
		f.conditionBits(&byPos, lib.compiled)
		g.conditionBits(&byID, lib.compiled)
		if !slices.Equal(byPos.bits, byID.bits) {
			t.Errorf("%s: condition bits by position %x, by id %x", j, byPos.bits, byID.bits)
		}
		b := &st.b
		lawIn, lawMask := slices.Clone(b.lawIn), slices.Clone(b.lawMask)
		if len(f.Jurisdictions) > 1 && !slices.Contains(lawIn, true) {
			t.Fatalf("%s: no law applies", j)
		}
		b.f, b.listedDone = g, false
		for i := range f.Laws {
			byPos := b.lawListed(&f.Laws[i], f.listedAt(), embeddedLaws())
			if byID := b.lawListed(&g.Laws[i], g.listedAt(), embeddedLaws()); byPos != byID || byPos == 0 {
				t.Errorf("%s: %s covers the listed %x by position, %x by id", j, f.Laws[i].ID, byPos, byID)
			}
		}
		b.prepareLaws(false)
		if !slices.Equal(lawIn, b.lawIn) || !slices.Equal(lawMask, b.lawMask) {
			t.Errorf("%s: laws by position %v %x, by id %v %x", j, lawIn, lawMask, b.lawIn, b.lawMask)
		}
		for i := range f.Laws {
			if got, want := lib.compiled.lawAt(&f.Laws[i]), lib.compiled.lawIndex[f.Laws[i].ID]; got != want {
				t.Errorf("%s: lawAt %d, lawIndex %d", f.Laws[i].ID, got, want)
			}
			if got := lib.compiled.lawAt(&compliance.Law{ID: "no-such-law"}); got != -1 {
				t.Errorf("lawAt of an unknown law: %d", got)
			}
		}
	}
}

// TestNamedLaws: each of namedLaws has a bit in Facts.named, once.
func TestNamedLaws(t *testing.T) {
	if len(namedLaws) > 64 {
		t.Fatalf("%d named laws for 64 bits", len(namedLaws))
	}
	for i, id := range namedLaws {
		if slices.Index(namedLaws, id) != i {
			t.Errorf("%s named twice", id)
		}
	}
}

// TestTransferMechanismsByJurisdiction: each transfer mechanism some
// jurisdiction knows has a bit of its own (jurisdictionTable.mechanismBit),
// a jurisdiction's knownBits are those of its TransferMechanisms, and an
// unknown mechanism has none.
func TestTransferMechanismsByJurisdiction(t *testing.T) {
	js := mustCatalog(t).Jurisdictions
	jt := jurisdictions()
	var all uint64
	for m, b := range jt.mechanismBit {
		if b == 0 || b&(b-1) != 0 || all&b != 0 {
			t.Errorf("%s: bit %x, not one of its own", m, b)
		}
		all |= b
	}
	n := 0
	for p := range js {
		for m, b := range jt.mechanismBit {
			if got, want := jt.knownBits[p]&b != 0, slices.Contains(js[p].TransferMechanisms, m); got != want {
				t.Errorf("%s knows %s: %v, want %v", js[p].ID, m, got, want)
			}
		}
		for _, m := range js[p].TransferMechanisms {
			if jt.mechanismBit[m] == 0 {
				t.Errorf("%s knows %s, which has no bit", js[p].ID, m)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no jurisdiction knows a transfer mechanism")
	}
	if jt.mechanismBit["no-such-mechanism"] != 0 {
		t.Error("an unknown mechanism is known")
	}
}

// needsRepresentativeByList is needsRepresentativeAt's rule worked out
// through the region's list of countries, TestLawsByPosition's
// reference: a controller not established in r's region names its
// Art. 27 representative there.
func needsRepresentativeByList(f *Facts, r *catalog.Jurisdiction) bool {
	e := f.Request.EstablishedIn
	return f.gdprFamily() && r.RepresentativeField != "" && e != "" && !slices.Contains(r.Countries, e)
}
