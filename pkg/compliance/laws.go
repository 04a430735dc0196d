// Package compliance holds the legal checklists (one per law, embedded as
// data/laws/*.json), decides which checklist items apply to a set of facts,
// and computes a generated document's risk score and compliance flags.
//
// Nothing here reads rendered text: requirements are satisfied by clauses
// (pkg/policy) and flags are derived from facts, requirements and what the
// request left out.
package compliance

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/internal/strictjson"
)

//go:embed data
var embedded embed.FS

// Law is one legal instrument (or a documented standard of practice) and
// the checklist of what a document must hold under it.
type Law struct {
	ID        string `json:"id"`
	ShortName string `json:"shortName"`
	Name      string `json:"name"`
	// Jurisdictions are the jurisdiction ids the law covers; AllJurisdictions
	// ("*") means every one (a checklist of content expected of a document
	// type wherever it is published), and "country:XX" (CountryPrefix and
	// an ISO 3166-1 alpha-2 code) every catalog jurisdiction whose
	// countries include XX: a federal law covers each state's jurisdiction
	// without listing it. Laws() replaces a country entry by those ids.
	Jurisdictions []string `json:"jurisdictions"`
	// Types are the document types its requirements apply to unless a
	// requirement names its own; empty means ["privacy"].
	Types []string `json:"types,omitempty"`
	// RegulatesTransfers is true for a law that restricts transfers of
	// personal data out of the region of the jurisdictions it covers (the
	// GDPR's Chapter V, the UK GDPR's, FADP Arts. 16-17): the risk model's
	// transfer factors apply under it, citing it (RiskModel).
	RegulatesTransfers bool          `json:"regulatesTransfers,omitempty"`
	Sources            []Source      `json:"sources"`
	Requirements       []Requirement `json:"requirements"`
	// NotModelled lists items whose condition lies outside the fact
	// vocabulary; they are never "applicable" but are surfaced as info flags
	// so the business sees them.
	NotModelled []Requirement `json:"notModelled,omitempty"`

	// pos is one more than the law's position among the laws LoadLaws
	// returned (0: a law made otherwise); a copy (ForType's) keeps it, so
	// that the risk factors find a law's citation without its id
	// (lawCitations).
	pos int
	// when is the conditions of all its Requirements (the union of their
	// Requirement.when), set on load when each item's is (whenSet): a
	// copy narrowed to some items (ForType's) keeps it, as it still holds
	// all theirs.
	when    uint64
	whenSet bool
	// items are pointers to each of Requirements, made with when (on
	// load, and by ForType for its copy): AppendApplicable appends a law
	// whose items all apply in one copy rather than an item at a time
	// (a document of many jurisdictions has some three hundred).
	items []*Requirement
}

// Source is where the checklist's legal text was read.
type Source struct {
	Title string `json:"title"`
	URL   string `json:"url"`
	Note  string `json:"note"`
}

// Requirement is one checklist item.
type Requirement struct {
	ID       string `json:"id"`
	Citation string `json:"citation"`
	Title    string `json:"title"`
	Disclose string `json:"disclose"`
	// AppliesWhen lists facts that must all hold; empty means always.
	AppliesWhen []string `json:"appliesWhen"`
	// Needs lists request fields without which the item cannot be fully met.
	Needs      []string `json:"needs"`
	MissingFix string   `json:"missingFix"`
	Notes      string   `json:"notes,omitempty"`
	// FlagCode is the catalog flag a notModelled item is surfaced as.
	FlagCode string `json:"flagCode,omitempty"`
	// Types, when set, are the document types the item applies to instead
	// of its law's.
	Types []string `json:"types,omitempty"`

	Law string `json:"-"` // the id of the law it belongs to; set on load

	// pos is the item's position among the Requirements of every law
	// LoadLaws returned, law by law (Position); set on load.
	pos int
	// when is AppliesWhen as bits of FactNames positions (factBits), set
	// on load (whenSet) so that AppendApplicable tests each item without
	// looking its facts up by name; an item made otherwise has none.
	when    uint64
	whenSet bool
	// flag is the catalog entry of a not-modelled item's FlagCode, set on
	// load, which Flags raises without looking the code up (nil: none).
	flag *flagEntry
}

// Position is l's position among the laws LoadLaws returned (-1 for a
// law made otherwise). A copy of l (ForType's) keeps it, so that a
// generator can index what it derives from the laws once, by position,
// rather than look each law of a document up by id.
func (l *Law) Position() int { return l.pos - 1 }

// Position is r's position among the Requirements of every law LoadLaws
// returned, counted law by law in their order (a notModelled item has
// none: -1). A copy of r (ForType's) keeps it, so that a generator can
// number the requirements once and find an item's number without looking
// its id up.
func (r *Requirement) Position() int { return r.pos }

// Fact names a requirement's AppliesWhen may use.
const (
	FactCollectsPayments        = "collectsPayments"
	FactUsesAnalytics           = "usesAnalytics"
	FactHasThirdPartyServices   = "hasThirdPartyServices"
	FactSetsNonEssentialCookies = "setsNonEssentialCookies"
	FactSellsOrShares           = "sellsOrShares"
	FactInternationalTransfers  = "internationalTransfers"
	FactCollectsSensitive       = "collectsSensitive"
	FactConsentBasis            = "consentBasis"
	FactAutomatedDecisions      = "automatedDecisions"
	FactJointControllers        = "jointControllers"
	// FactAutoRenews: the business sells subscriptions that renew
	// automatically until cancelled (request field subscriptions), the
	// condition of the automatic renewal checklist items (terms, eula).
	FactAutoRenews = "autoRenews"
	// FactAffiliateLinks: the website earns commissions or other benefits
	// from links or recommendations (request field affiliateLinks true),
	// the condition of the disclaimer's material-connection items.
	FactAffiliateLinks = "affiliateLinks"
	// US state laws (issue 8): the business says it sells sensitive or
	// biometric data (Tex. Bus. & Com. Code § 541.102(b), (c)).
	FactSellsSensitiveData = "sellsSensitiveData"
	FactSellsBiometricData = "sellsBiometricData"
	// FactDirectedToChildren: the website is directed to children under 13
	// or the business has actual knowledge that it collects their personal
	// information (request field directedToChildren; 16 CFR 312.2, 312.3),
	// the condition of the COPPA online notice items (issue 8, part j6).
	FactDirectedToChildren = "directedToChildren"
)

// FactNames is the fact vocabulary.
var FactNames = []string{
	FactCollectsPayments, FactUsesAnalytics, FactHasThirdPartyServices,
	FactSetsNonEssentialCookies, FactSellsOrShares, FactInternationalTransfers,
	FactCollectsSensitive, FactConsentBasis, FactAutomatedDecisions, FactJointControllers,
	FactAutoRenews, FactAffiliateLinks,
	FactSellsSensitiveData, FactSellsBiometricData,
	FactDirectedToChildren,
}

// NeedFields is the vocabulary of request fields a requirement may need.
var NeedFields = []string{"contactEmail", "postalAddress",
	// Contract documents (terms, eula, acceptable-use): the law and courts
	// of the contract, the subscription terms, the minimum age of users.
	"governingLaw", "subscriptions", "minimumAge",
	// Cookie policy and disclaimer (issue 8, t2): whether consent is asked
	// for, the services that set cookies (an unnamed analytics tool or a
	// service the catalog does not know), affiliate links.
	"consentBanner", "thirdPartyServices", "affiliateLinks",
	// Issue 8, part j1: Quebec's person in charge of the protection of
	// personal information (CQLR c. P-39.1, s. 3.1) and Brazil's encarregado
	// (LGPD Art. 41, § 1), which the policy must name; also Singapore's
	// data protection officer (PDPA s 11(5), issue 8, part j2).
	"privacyOfficer", "dpoContact",
	// Shipping policy (issue 8, t4): where the business ships and how many
	// business days pass from order to dispatch.
	"shippingRegions", "dispatchDays",
	// Returns and refunds policy (issue 8, t3): the voluntary return window
	// and who pays return postage.
	"refundWindowDays", "returnShippingPaidBy",
	// COPPA (issue 8, part j6): the operator's telephone number, which the
	// online notice to parents gives (16 CFR 312.4(d)(1)).
	"phone",
}

// FactSet is the set of facts that hold.
type FactSet map[string]bool

// factBits is f as a bit for each fact of FactNames that holds (bit i for
// FactNames[i]).
func (f FactSet) factBits() uint64 {
	// The set's own names are gone through, a few, rather than each of
	// FactNames looked up in it (comparing the constants both hold costs
	// no byte comparison: equal strings at the same address are equal
	// at once).
	var b uint64
	for n, holds := range f {
		if !holds {
			continue
		}
		if i := slices.Index(FactNames, n); 0 <= i && i < 64 {
			b |= 1 << i
		}
	}
	return b
}

// setWhen sets r.when from r.AppliesWhen, unless a fact is not in
// FactNames (LoadLaws rejects the law then) or has no bit.
func (r *Requirement) setWhen() {
	var b uint64
	for _, n := range r.AppliesWhen {
		i := slices.Index(FactNames, n)
		if i < 0 || i >= 64 {
			return
		}
		b |= 1 << i
	}
	r.when, r.whenSet = b, true
}

// Holds reports whether every named fact holds.
func (f FactSet) Holds(names []string) bool {
	for _, n := range names {
		if !f[n] {
			return false
		}
	}
	return true
}

var (
	once    sync.Once
	loaded  []Law
	loadErr error
)

// Laws returns every embedded law, sorted by id, parsing them on first use;
// country entries in a law's jurisdictions are replaced by the catalog
// jurisdictions of that country (ExpandCountries).
func Laws() ([]Law, error) {
	once.Do(func() {
		loaded, loadErr = LoadLaws(embedded, "data/laws")
		if loadErr != nil {
			return
		}
		c, err := catalog.Default()
		if err != nil {
			loaded, loadErr = nil, fmt.Errorf("compliance: %w", err)
			return
		}
		if err := ExpandCountries(loaded, c.Jurisdictions); err != nil {
			loaded, loadErr = nil, err
		}
	})
	return loaded, loadErr
}

// CountryPrefix starts a law's jurisdiction entry that stands for every
// jurisdiction of a country ("country:US").
const CountryPrefix = "country:"

// countryEntry reports the ISO 3166-1 alpha-2 code of a "country:XX"
// entry, and whether it is one and well formed.
func countryEntry(j string) (code string, isCountry, ok bool) {
	code, isCountry = strings.CutPrefix(j, CountryPrefix)
	if !isCountry {
		return "", false, false
	}
	return code, true, len(code) == 2 && code[0] >= 'A' && code[0] <= 'Z' && code[1] >= 'A' && code[1] <= 'Z'
}

// ExpandCountries replaces, in each law's jurisdictions, every
// "country:XX" entry by the ids of the jurisdictions in js (catalog order)
// whose countries include XX, skipping ids the law already lists. A
// country that no jurisdiction includes is an error, so a mistyped code
// fails on load rather than covering nothing.
func ExpandCountries(laws []Law, js []catalog.Jurisdiction) error {
	var problems []error
	for i := range laws {
		l := &laws[i]
		if !slices.ContainsFunc(l.Jurisdictions, func(j string) bool { return strings.HasPrefix(j, CountryPrefix) }) {
			continue
		}
		var out []string
		add := func(id string) {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
		for _, j := range l.Jurisdictions {
			code, isCountry, _ := countryEntry(j)
			if !isCountry {
				add(j)
				continue
			}
			n := 0
			for _, x := range js {
				if slices.Contains(x.Countries, code) {
					add(x.ID)
					n++
				}
			}
			if n == 0 {
				problems = append(problems, fmt.Errorf("law %s: no catalog jurisdiction includes the country of %q", l.ID, j))
			}
		}
		l.Jurisdictions = out
	}
	if err := errors.Join(problems...); err != nil {
		return fmt.Errorf("compliance: %w", err)
	}
	return nil
}

// LoadLaws parses and strictly validates every *.json file in dir of fsys:
// unknown fields, unknown facts or fields, and duplicate ids are errors.
func LoadLaws(fsys fs.FS, dir string) ([]Law, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("compliance: %w", err)
	}
	var (
		laws       []Law
		problems   []error
		reqIDs     = map[string]string{}
		shortNames = map[string]string{}
	)
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		name := path.Join(dir, e.Name())
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("compliance: %w", err)
		}
		var law Law
		if err := strictjson.Decode(b, &law); err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", name, err))
			continue
		}
		if law.ID+".json" != e.Name() {
			problems = append(problems, fmt.Errorf("%s: id %q does not match the file name", name, law.ID))
		}
		if law.ShortName == "" || law.Name == "" || len(law.Jurisdictions) == 0 || len(law.Requirements) == 0 {
			problems = append(problems, fmt.Errorf("%s: shortName, name, jurisdictions and requirements are required", name))
		}
		// Flags and factor citations name their law by short name.
		if prev, dup := shortNames[law.ShortName]; dup && law.ShortName != "" {
			problems = append(problems, fmt.Errorf("%s: shortName %q is also %s's: flags and risk factors could not tell them apart", name, law.ShortName, prev))
		}
		shortNames[law.ShortName] = name
		for _, j := range law.Jurisdictions {
			if _, isCountry, ok := countryEntry(j); isCountry && !ok {
				problems = append(problems, fmt.Errorf("%s: jurisdiction %q: a country entry is %sXX with an ISO 3166-1 alpha-2 code", name, j, CountryPrefix))
			}
		}
		check := func(r *Requirement) {
			r.Law = law.ID
			if r.ID == "" || r.Citation == "" || r.Title == "" || r.Disclose == "" {
				problems = append(problems, fmt.Errorf("%s: requirement %q: id, citation, title and disclose are required", name, r.ID))
			}
			if prev, dup := reqIDs[r.ID]; dup {
				problems = append(problems, fmt.Errorf("%s: duplicate requirement id %q (also in %s)", name, r.ID, prev))
			}
			reqIDs[r.ID] = name
			for _, f := range r.AppliesWhen {
				if !slices.Contains(FactNames, f) {
					problems = append(problems, fmt.Errorf("%s: requirement %s: unknown fact %q", name, r.ID, f))
				}
			}
			for _, f := range r.Needs {
				if !slices.Contains(NeedFields, f) {
					problems = append(problems, fmt.Errorf("%s: requirement %s: unknown request field %q", name, r.ID, f))
				}
			}
			if len(r.Needs) > 0 && r.MissingFix == "" {
				problems = append(problems, fmt.Errorf("%s: requirement %s: needs fields but has no missingFix", name, r.ID))
			}
		}
		for i := range law.Requirements {
			check(&law.Requirements[i])
		}
		for i := range law.NotModelled {
			check(&law.NotModelled[i])
		}
		laws = append(laws, law)
	}
	slices.SortFunc(laws, func(a, b Law) int { return strings.Compare(a.ID, b.ID) })
	for i := 1; i < len(laws); i++ {
		if laws[i].ID == laws[i-1].ID {
			problems = append(problems, fmt.Errorf("duplicate law id %q", laws[i].ID))
		}
	}
	n := 0
	for i := range laws {
		l := &laws[i]
		l.pos, l.whenSet = i+1, true
		for j := range l.Requirements {
			r := &l.Requirements[j]
			r.pos = n
			r.setWhen()
			l.when |= r.when
			l.whenSet = l.whenSet && r.whenSet
			n++
		}
		for j := range laws[i].NotModelled {
			r := &laws[i].NotModelled[j]
			r.pos = -1
			if k, ok := catalogIndex()[r.FlagCode]; ok {
				r.flag = &flagEntries()[k]
			}
		}
		l.items = pointersTo(l.Requirements)
	}
	if err := errors.Join(problems...); err != nil {
		return nil, fmt.Errorf("compliance: %w", err)
	}
	return laws, nil
}

// AllJurisdictions in a law's jurisdictions means every jurisdiction.
const AllJurisdictions = "*"

// DefaultType is the document type of a law that names none.
const DefaultType = "privacy"

// ForJurisdiction returns the laws that apply in jurisdiction, in id order.
func ForJurisdiction(laws []Law, jurisdiction string) []Law {
	var out []Law
	for _, l := range laws {
		if slices.Contains(l.Jurisdictions, jurisdiction) || slices.Contains(l.Jurisdictions, AllJurisdictions) {
			out = append(out, l)
		}
	}
	return out
}

// ForType returns laws narrowed to the requirements (and not-modelled
// items) that apply to documents of type typ; a law left with none is
// dropped. The laws keep their order.
func ForType(laws []Law, typ string) []Law {
	var out []Law
	for _, l := range laws {
		keep := func(rs []Requirement) []Requirement {
			var k []Requirement
			for _, r := range rs {
				if slices.Contains(r.DocumentTypes(l), typ) {
					k = append(k, r)
				}
			}
			return k
		}
		n := l
		n.Requirements, n.NotModelled = keep(l.Requirements), keep(l.NotModelled)
		n.items = pointersTo(n.Requirements)
		if len(n.Requirements)+len(n.NotModelled) > 0 {
			out = append(out, n)
		}
	}
	return out
}

// DocumentTypes are the document types r applies to, a law's own or its.
func (r Requirement) DocumentTypes(l Law) []string {
	switch {
	case len(r.Types) > 0:
		return r.Types
	case len(l.Types) > 0:
		return l.Types
	}
	return []string{DefaultType}
}

// DocumentTypes are every document type some requirement of l applies to,
// sorted.
func (l Law) DocumentTypes() []string {
	var out []string
	for _, r := range slices.Concat(l.Requirements, l.NotModelled) {
		for _, t := range r.DocumentTypes(l) {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Applicable returns the requirements of laws whose conditions hold, in
// checklist order (laws in the given order).
func Applicable(laws []Law, facts FactSet) []Requirement {
	var out []Requirement
	for _, r := range AppendApplicable(nil, laws, facts) {
		out = append(out, *r)
	}
	return out
}

// AppendApplicable appends to dst the requirements of laws whose
// conditions hold, in checklist order, as pointers into laws' own
// checklists (which nobody changes): a caller that keeps dst between
// documents allocates nothing and copies no requirement. The facts are
// looked up once, as bits: a loaded item's conditions are a mask of them
// (hundreds of items for a document of many jurisdictions).
func AppendApplicable(dst []*Requirement, laws []Law, facts FactSet) []*Requirement {
	have := facts.factBits()
	for i := range laws {
		rs := laws[i].Requirements
		if l := &laws[i]; l.whenSet && l.when&^have == 0 {
			// Every item's conditions hold: its items are copied in one
			// piece, unless they do not point into its Requirements.
			if len(l.items) == len(rs) && (len(rs) == 0 || l.items[0] == &rs[0]) {
				dst = append(dst, l.items...)
				continue
			}
			for j := range rs {
				dst = append(dst, &rs[j])
			}
			continue
		}
		for j := range rs {
			r := &rs[j]
			if r.whenSet && r.when&have == r.when || !r.whenSet && facts.Holds(r.AppliesWhen) {
				dst = append(dst, r)
			}
		}
	}
	return dst
}

// pointersTo is a pointer to each of rs (Law.items).
func pointersTo(rs []Requirement) []*Requirement {
	out := make([]*Requirement, len(rs))
	for i := range rs {
		out[i] = &rs[i]
	}
	return out
}

// FindRequirement returns the requirement with id from laws.
func FindRequirement(laws []Law, id string) (Requirement, bool) {
	for _, l := range laws {
		for _, r := range l.Requirements {
			if r.ID == id {
				return r, true
			}
		}
	}
	return Requirement{}, false
}
