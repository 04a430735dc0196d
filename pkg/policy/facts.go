package policy

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// Facts is everything the document and the score are built from: step 1 of
// the pipeline. It depends only on the request and the embedded data.
type Facts struct {
	Request Request
	// Jurisdictions are the request's jurisdictions, in catalog order;
	// Jurisdiction is the primary one, whose transfer rules, region and
	// authority the shared clauses use: the first with its own transfer
	// regime, else the first.
	Jurisdictions []catalog.Jurisdiction
	Jurisdiction  catalog.Jurisdiction
	// Regimes are the listed jurisdictions with their own international
	// transfer rules (catalog transferMechanisms: the EU, the UK), in
	// catalog order: each has its transfer table, its Art. 27
	// representative and its own safeguards.
	Regimes []catalog.Jurisdiction
	// Laws are every listed jurisdiction's laws for the document's type,
	// each once, in id order.
	Laws []compliance.Law
	// Set holds the compliance fact vocabulary (compliance.FactNames).
	Set        compliance.FactSet
	Categories []CategoryFact // in catalog order
	Purposes   []PurposeFact  // in catalog order
	Services   []ServiceFact  // in request (sorted id) order
	Cookies    []CookieFact
	// Unknown names the services the catalog does not describe (the hosting
	// provider included): disclosed by name only, and a to-do.
	Unknown []string
	// Todos are the inputs the document still needs before it can be
	// published as it stands; each one is a placeholder or a gap.
	Todos []compliance.Todo
	// Implied lists request flags that were false but that a chosen
	// service implies (e.g. an analytics service with usesAnalytics false).
	Implied []string
	// CCPACovers is true when the CCPA covers the jurisdiction, whether or
	// not the business meets its thresholds (ccpaThresholdsMet).
	CCPACovers bool
	// TransfersUncertain is true when the recipients are not all known
	// (no hosting provider, unknown services or an unnamed analytics
	// tool), so the document cannot say that data stays in the region.
	TransfersUncertain bool
	// AnalyticsCookiesAssumed is true when the request uses analytics but
	// names no analytics tool: the tool is assumed to set cookies that the
	// policy cannot name.
	AnalyticsCookiesAssumed bool

	gdpr bool // the GDPR or the UK GDPR applies (gdprFamily)
	// named holds a bit for each of namedLaws that applies (HasLaw), when
	// namedSet: build sets it once the laws are final.
	named    uint64
	namedSet bool
	// applicable are the checklist items of Laws whose conditions hold,
	// in checklist order, as pointers into the checklists
	// (compliance.AppendApplicable): worked out once, when the facts are
	// final, for the todos and for the document's evidence.
	applicable []*compliance.Requirement
	scr        factScratch
}

// CategoryFact is one data category and what happens to it.
type CategoryFact struct {
	catalog.DataCategory
	Sources    []string // you, device, derived
	Purposes   []string
	Recipients []string // service ids
	// SoldShared lists the services that receive it as third parties
	// (CCPA "sale" or "sharing").
	SoldShared []string

	pos int // in the catalog's data categories
	// The positions of Purposes (in the catalog), Recipients and
	// SoldShared (in Facts.Services).
	purposeSet, recipientSet, soldSet posSet
	sourceSet                         uint8 // the sourceBit of each of Sources
}

// PurposeFact is one purpose and the data used for it.
type PurposeFact struct {
	catalog.Purpose
	Categories []string
	Services   []string

	pos         int    // in the catalog's purposes
	categorySet posSet // the catalog positions of Categories
}

// ServiceFact is a requested service with what the facts add to its entry.
type ServiceFact struct {
	// Service is the catalog's entry (shared: never changed); the
	// request's transfer safeguards are in Facts.statedOf.
	*catalog.Service
	Purposes []string
	// Transfer is true when the provider is established outside the
	// jurisdiction's region (GDPR/UK GDPR Chapter V).
	Transfer bool
	// SellsOrShares is true when the service receives personal information
	// as a CCPA third party (a sale or sharing).
	SellsOrShares bool

	purposeSet posSet // the catalog positions of Purposes
}

// CookieFact is a cookie set by a requested service.
type CookieFact struct {
	catalog.Cookie
	Service   string // service name
	Essential bool
}

// Laws that change which clauses apply.
const (
	lawGDPR   = "gdpr"
	lawUKGDPR = "uk-gdpr"
	lawCCPA   = "ccpa"
	// lawCCPARegs are the CCPA regulations (11 CCR § 7000 et seq.).
	lawCCPARegs = "ccpa-regs"
	// Issue 8, part j1: Canada (PIPEDA and, for a business serving Québec,
	// CQLR c. P-39.1 as amended by Law 25), Brazil and Switzerland.
	lawPIPEDA = "pipeda"
	lawQuebec = "quebec-law25"
	lawLGPD   = "lgpd"
	lawFADP   = "fadp"
)

// deviceCategories are collected automatically from the user's device
// rather than provided by the user.
var deviceCategories = []string{"identifiers", "device", "internet_activity", "geolocation"}

// typeLaws are the laws narrowed to one document type
// (compliance.ForType), with which of them each jurisdiction has.
type typeLaws struct {
	laws []compliance.Law
	// all holds the positions in laws of the laws of every
	// jurisdiction, byJurisdiction those of one, by the jurisdiction's
	// position in the catalog (jurisdictionTable).
	all            posSet
	byJurisdiction []posSet
	// named holds, by position in laws, the law's bit in Facts.named (0:
	// not one of namedLaws); ccpa holds the CCPA's position, withCCPA
	// those of the CCPA and its regulations, and quebec Quebec's Act's
	// (the laws build leaves out for a business the CCPA does not cover
	// or one that does not serve Québec).
	named                  []uint64
	ccpa, withCCPA, quebec posSet
}

// lawsFor is the positions in t.laws of the laws of every jurisdiction
// at the catalog positions jpos and those of every jurisdiction ("*"):
// a law shared by two markets is one checklist, met once.
func (t *typeLaws) lawsFor(jpos []int) posSet {
	var set posSet
	set.union(&t.all)
	for _, p := range jpos {
		set.union(&t.byJurisdiction[p])
	}
	return set
}

// lawsByType are each document type's laws, worked out once rather than
// for every document.
var lawsByType = sync.OnceValues(func() (map[string]*typeLaws, error) {
	laws, err := compliance.Laws()
	if err != nil {
		return nil, err
	}
	jt := jurisdictions()
	m := map[string]*typeLaws{}
	for _, l := range laws {
		for _, t := range l.DocumentTypes() {
			if _, ok := m[t]; ok {
				continue
			}
			tl := &typeLaws{laws: compliance.ForType(laws, t), byJurisdiction: make([]posSet, len(jt.regions))}
			tl.named = make([]uint64, len(tl.laws))
			for i, l := range tl.laws {
				if n := slices.Index(namedLaws, l.ID); n >= 0 {
					tl.named[i] = 1 << n
				}
				switch l.ID {
				case lawCCPA:
					tl.ccpa.add(i)
					tl.withCCPA.add(i)
				case lawCCPARegs:
					tl.withCCPA.add(i)
				case lawQuebec:
					tl.quebec.add(i)
				}
				for _, j := range l.Jurisdictions {
					if j == compliance.AllJurisdictions {
						tl.all.add(i)
						continue
					}
					// A jurisdiction the catalog does not hold is never
					// a document's (build rejects it).
					if p, ok := jt.pos[j]; ok {
						tl.byJurisdiction[p].add(i)
					}
				}
			}
			m[t] = tl
		}
	}
	return m, nil
})

// BuildFacts derives the facts of a validated request.
func BuildFacts(req Request) (*Facts, error) {
	f := &Facts{}
	if err := f.build(req); err != nil {
		return nil, err
	}
	return f, nil
}

// factScratch is the working space of build: kept by a pooled Facts so
// that the next document's facts allocate nothing.
type factScratch struct {
	jids []string
	jpos []int // the catalog positions of jids (jurisdictionTable)
	// listed holds, by catalog position, the positions in Jurisdictions
	// (the first 64) of the jurisdiction there, as bits (listedAt).
	listed  []uint64
	rpos    []int // the catalog positions of transferRegimes()
	ids     []string
	own     []string
	cats    []CategoryFact // by catalog position
	catUsed []bool
	// purps are by catalog position; those some category serves are used.
	purps []PurposeFact
	// hostPurposes are the purposes of a host's uses that build keeps.
	hostPurposes posSet
	primary      [1]catalog.Jurisdiction // transferRegimes without regimes
	// transfers are transferOf's answers, a service's for each regime
	// in turn: 0 where the service transfers nothing out of the regime's
	// region, else the transfer's basis plus one (basisAdequacy..basisNone).
	transfers []uint8
	// regimeOut holds the positions in transferRegimes of the regimes
	// out of whose region some service transfers data, regimeContract
	// those where such a transfer rests on contractual safeguards or on
	// none the catalog knows of (basisContract, basisNone), and
	// regimeNone those where one rests on none: the to-dos and the score
	// go through the services' transfers only for those.
	regimeOut, regimeContract, regimeNone posSet
	// stated are statedOf's answers, in the same order; statedBuf holds
	// those that add the request's safeguards to the catalog's.
	stated    [][]string
	statedBuf []string
	// mechanisms are the transfer mechanisms the request's safeguards
	// name (the first few), each with its bit, as build found them
	// (mechanismBit): a request names a few, for many services.
	mechanisms []knownMechanism
}

// knownMechanism is a transfer mechanism with its bit
// (jurisdictionTable.mechanismBit; 0: no jurisdiction knows it).
type knownMechanism struct {
	name string
	bit  uint64
}

// mechanismBit is jt.mechanismBit[m], found among those the document
// looked up before, when it is one of them, by comparing names rather
// than hashing.
func (s *factScratch) mechanismBit(jt *jurisdictionTable, m string) uint64 {
	for i := range s.mechanisms {
		if s.mechanisms[i].name == m {
			return s.mechanisms[i].bit
		}
	}
	b := jt.mechanismBit[m]
	if len(s.mechanisms) < 8 {
		s.mechanisms = append(s.mechanisms, knownMechanism{m, b})
	}
	return b
}

// reset empties f for the next document, keeping every slice's storage.
func (f *Facts) reset(c *catalog.Catalog) {
	s := &f.scr
	if len(s.cats) != len(c.DataCategories) {
		s.cats, s.catUsed = make([]CategoryFact, len(c.DataCategories)), make([]bool, len(c.DataCategories))
	}
	if len(s.purps) != len(c.Purposes) {
		s.purps = make([]PurposeFact, len(c.Purposes))
	}
	for i := range s.cats {
		cf := &s.cats[i]
		cf.Sources, cf.Purposes, cf.Recipients, cf.SoldShared = cf.Sources[:0], cf.Purposes[:0], cf.Recipients[:0], cf.SoldShared[:0]
		cf.pos, cf.sourceSet = i, 0
		cf.purposeSet.reset()
		cf.recipientSet.reset()
		cf.soldSet.reset()
	}
	for i := range s.purps {
		pf := &s.purps[i]
		pf.Categories, pf.Services = pf.Categories[:0], pf.Services[:0]
		pf.pos = i
		pf.categorySet.reset()
	}
	clear(s.catUsed)
	s.transfers = s.transfers[:0]
	s.regimeOut.reset()
	s.regimeContract.reset()
	s.regimeNone.reset()
	s.stated, s.statedBuf = s.stated[:0], s.statedBuf[:0]
	s.mechanisms = s.mechanisms[:0]
	if f.Set == nil {
		f.Set = compliance.FactSet{}
	}
	clear(f.Set)
	*f = Facts{
		Jurisdictions: f.Jurisdictions[:0], Regimes: f.Regimes[:0], Laws: f.Laws[:0], Set: f.Set,
		Categories: f.Categories[:0], Purposes: f.Purposes[:0], Services: f.Services[:0], Cookies: f.Cookies[:0],
		Unknown: f.Unknown[:0], Implied: f.Implied[:0], applicable: f.applicable[:0], scr: f.scr,
	}
}

func (f *Facts) build(req Request) error {
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	lawsOf, err := lawsByType()
	if err != nil {
		return err
	}
	f.reset(cat)
	s := &f.scr
	f.Request = req
	jt := jurisdictions()
	primary, err := f.parseJurisdictions(cat, jt, req.Jurisdiction)
	if err != nil {
		return err
	}
	jpos := s.jpos
	f.Jurisdiction = f.Jurisdictions[max(primary, 0)]
	bt, ok := cat.BusinessType(req.BusinessType)
	if !ok {
		return fmt.Errorf("policy: unknown business type %q", req.BusinessType)
	}
	// The transfer regimes (transferRegimes) with their catalog
	// positions, by which a service's use (serviceUse) knows whether it
	// transfers data out of each one's region and the mechanisms its
	// provider states there.
	rpos := s.rpos[:0]
	for i := range f.Jurisdictions {
		if x := &f.Jurisdictions[i]; len(x.TransferMechanisms) > 0 {
			f.Regimes = append(f.Regimes, *x)
			rpos = append(rpos, jpos[i])
		}
	}
	if len(rpos) == 0 {
		rpos = append(rpos, jpos[max(primary, 0)])
	}
	s.rpos = rpos
	s.primary[0] = f.Jurisdiction
	// A business under every threshold of Cal. Civ. Code § 1798.140(d)(1)
	// is not a CCPA "business": only CalOPPA applies to its website.
	// Issue 8, part j1: Quebec's private-sector Act applies only to a
	// business that serves Québec (servesQuebec true); otherwise a Canadian
	// document covers PIPEDA alone.
	noCCPA := req.CCPAThresholdsMet != nil && !*req.CCPAThresholdsMet
	noQuebec := req.ServesQuebec == nil || !*req.ServesQuebec
	// The laws, in their order, with their bits in f.named, are found by
	// their positions in the type's laws.
	f.namedSet = true
	if tl := lawsOf[req.Type]; tl != nil {
		set := tl.lawsFor(jpos)
		f.CCPACovers = set.hasAny(&tl.ccpa)
		if noCCPA {
			set.remove(&tl.withCCPA)
		}
		if noQuebec {
			set.remove(&tl.quebec)
		}
		// Each run of consecutive positions is copied in one piece: a Law
		// is a dozen words, which a copy of each of a document's sixty
		// laws moved one at a time.
		for i := set.next(0); i >= 0; {
			j := set.nextMissing(i)
			f.Laws = append(f.Laws, tl.laws[i:j]...)
			for _, n := range tl.named[i:j] {
				f.named |= n
			}
			i = set.next(j)
		}
	}
	if len(f.Laws) == 0 {
		return fmt.Errorf("policy: no law covers jurisdiction %q", req.Jurisdiction)
	}
	f.gdpr = f.HasLaw(lawGDPR) || f.HasLaw(lawUKGDPR)

	pu := practices()
	if err := f.add(cat, &pu.website); err != nil {
		return err
	}
	if req.CollectsUserData {
		u := pu.businessTypes[bt.ID]
		if err := f.add(cat, &u); err != nil {
			return err
		}
	}

	usesAnalytics, collectsPayments := req.UsesAnalytics, req.CollectsPayments
	ids := append(s.ids[:0], req.ThirdPartyServices...)
	if h := req.HostingProvider; h != "" && !slices.Contains(ids, h) {
		ids = append(ids, h)
		slices.SortFunc(ids, foldCompare)
	}
	s.ids = ids
	// What the business itself collects from people: its business type's
	// data when it collects user data, and payment data when it takes
	// payments (or names a payment provider).
	own := s.own[:0]
	if req.CollectsUserData {
		own = append(own, bt.DataCategories...)
	}
	if req.CollectsPayments || slices.ContainsFunc(ids, func(id string) bool {
		s, ok := cat.ServiceEntry(id)
		return ok && s.Category == "payments"
	}) {
		own = append(own, cat.Payments.DataCategories...)
	}
	s.own = own
	// Facts any service may make hold, recorded once after the loop.
	var joint, sells, transfers, nonEssential bool
	regimes := f.transferRegimes()
	uses := serviceUses()
	// transferOf's and statedOf's answers, a service's for each regime in
	// turn, are stored in place, with room for every service named.
	nr := len(regimes)
	s.transfers = slices.Grow(s.transfers[:0], len(ids)*nr)[:len(ids)*nr]
	s.stated = slices.Grow(s.stated[:0], len(ids)*nr)[:len(ids)*nr]
	for _, id := range ids {
		// By the address of the id: ParseRequest names a catalog service
		// by the catalog's own string.
		k := cat.ServiceIndex(id)
		if k < 0 {
			// Not in the catalog: named in the document, described by
			// nothing it cannot know, and a to-do.
			f.Unknown = append(f.Unknown, id)
			continue
		}
		u := uses[k]
		if u.err != nil {
			return u.err
		}
		sv := u.svc
		f.Services = append(f.Services, ServiceFact{Service: sv, Purposes: u.purposes, purposeSet: u.purposeSet})
		sf := &f.Services[len(f.Services)-1]
		// A provider of unknown country may be outside the region: the
		// document says so rather than that nothing is transferred.
		extra := req.TransferSafeguards[sv.ID]
		var eb [4]uint64
		bits := eb[:0] // the bit of each of extra
		var extraBits uint64
		for _, m := range extra {
			b := s.mechanismBit(jt, m)
			bits = append(bits, b)
			extraBits |= b
		}
		row := (len(f.Services) - 1) * nr
		ts, ss := s.transfers[row:row+nr], s.stated[row:row+nr]
		for i := range regimes {
			p := rpos[i]
			// The catalog's answer, unless the regime's law knows one of
			// the safeguards the request adds and the provider does not
			// state it there: then it is worked out with them.
			stated, statedBits := u.statedIn(p)
			t := u.basis[p]
			if add := extraBits & jt.knownBits[p] &^ statedBits; add != 0 {
				stated = f.appendStated(stated, add, extra, bits)
				if u.out.has(p) {
					t = uint8(transferBasis(&regimes[i], sf, stated, u.providerOK.has(p), u.accessOK.has(p))) + 1
				}
			}
			if t != 0 {
				sf.Transfer = true
				s.regimeOut.add(i)
				switch int(t) - 1 {
				case basisNone:
					s.regimeNone.add(i)
					fallthrough
				case basisContract:
					s.regimeContract.add(i)
				}
			}
			ts[i], ss[i] = t, stated
		}
		// A category the service category narrows (a payment provider's
		// device data serves fraud screening, not the payment itself) is
		// used only for those purposes.
		purposes := &u.usePurposes
		if sf.Category == "hosting" {
			purposes = &s.hostPurposes
			purposes.reset()
		}
		for k := range u.categories {
			cu := &u.categories[k]
			if sf.Category == "hosting" {
				// A host stores what the website collects: data people
				// give only when the business collects that kind of data.
				if !cu.device && !slices.Contains(own, cu.id) {
					continue
				}
				purposes.union(&cu.purposeSet)
			}
			f.addUse(cat, cu, len(f.Services)-1, sf.ID)
		}
		// The service is one of the recipients of each purpose its uses
		// serve, listed once per purpose rather than once per use.
		for pi := purposes.next(0); pi >= 0; pi = purposes.next(pi + 1) {
			s.purps[pi].Services = append(s.purps[pi].Services, sf.ID)
		}
		if sf.JointController != nil && *sf.JointController {
			joint = true
		}
		// Payment providers complete a transaction the consumer asked for:
		// never a sale or sharing, whatever the data says (the catalog
		// loader rejects it too). An advertising or social service whose
		// CCPA role no source confirmed is treated as a third party:
		// disclosing a possible sale or sharing is safer than denying one.
		if thirdParty(sf.Service) {
			sf.SellsOrShares = true
			for _, c := range sf.DataCategories {
				if i := categoryIndex(cat, c); i >= 0 && s.catUsed[i] && s.cats[i].soldSet.add(len(f.Services)-1) {
					s.cats[i].SoldShared = append(s.cats[i].SoldShared, sf.ID)
				}
			}
			sells = true
		}
		transfers = transfers || sf.Transfer
		for _, k := range sf.Cookies {
			f.Cookies = append(f.Cookies, CookieFact{Cookie: k, Service: sf.Name, Essential: sf.Essential})
		}
		nonEssential = nonEssential || len(sf.Cookies) > 0 && !sf.Essential
		// A non-essential service whose cookie use is not verified is
		// treated as possibly setting cookies: consent is asked for rather
		// than assumed unnecessary.
		if (sf.SetsCookiesKnown() || sf.CookiesUnknown()) && !sf.Essential {
			nonEssential = true
		}
		switch sf.Category {
		case "analytics":
			if !req.UsesAnalytics && !slices.Contains(f.Implied, "usesAnalytics") {
				f.Implied = append(f.Implied, "usesAnalytics")
			}
			usesAnalytics = true
		case "payments":
			if !req.CollectsPayments && !slices.Contains(f.Implied, "collectsPayments") {
				f.Implied = append(f.Implied, "collectsPayments")
			}
			collectsPayments = true
		}
	}
	s.transfers, s.stated = s.transfers[:len(f.Services)*nr], s.stated[:len(f.Services)*nr]
	for _, fact := range [...]struct {
		name string
		v    bool
	}{
		{compliance.FactJointControllers, joint}, {compliance.FactSellsOrShares, sells},
		{compliance.FactInternationalTransfers, transfers}, {compliance.FactSetsNonEssentialCookies, nonEssential},
	} {
		if fact.v {
			f.Set[fact.name] = true
		}
	}
	if collectsPayments {
		if err := f.add(cat, &pu.payments); err != nil {
			return err
		}
	}
	if usesAnalytics {
		if err := f.add(cat, &pu.analytics); err != nil {
			return err
		}
		// Analytics with no named tool: assume it stores identifiers on the
		// device (ePrivacy Art. 5(3), PECR reg. 6). A named cookieless tool
		// (setsCookies false) does not.
		if !f.hasServiceCategory("analytics") {
			f.Set[compliance.FactSetsNonEssentialCookies] = true
			f.AnalyticsCookiesAssumed = true
		}
	}

	// The purposes some category serves are used, each with those
	// categories, in catalog order.
	sensitive, consent := false, false
	var used posSet
	for i := range s.cats {
		if s.catUsed[i] {
			cf := &s.cats[i]
			slices.Sort(cf.Sources)
			f.Categories = append(f.Categories, *cf)
			sensitive = sensitive || cf.Sensitive
			used.union(&cf.purposeSet)
			for pi := cf.purposeSet.next(0); pi >= 0; pi = cf.purposeSet.next(pi + 1) {
				pf := &s.purps[pi]
				pf.categorySet.add(i)
				pf.Categories = append(pf.Categories, cf.ID)
			}
		}
	}
	for pi := used.next(0); pi >= 0; pi = used.next(pi + 1) {
		pf := &s.purps[pi]
		pf.Purpose = cat.Purposes[pi]
		// Cookieless analytics needs no consent under ePrivacy/PECR;
		// it rests on legitimate interests, with a right to object.
		if pf.ID == "analytics" && !f.Set[compliance.FactSetsNonEssentialCookies] {
			pf.GDPRBasis = "legitimate_interests"
		}
		f.Purposes = append(f.Purposes, *pf)
		consent = consent || pf.GDPRBasis == "consent"
	}
	// The set holds the facts that hold, each set once, and no others:
	// nothing is deleted from it afterwards.
	holds := func(name string, v bool) {
		if v {
			f.Set[name] = true
		}
	}
	holds(compliance.FactCollectsSensitive, sensitive)
	holds(compliance.FactConsentBasis, consent)
	holds(compliance.FactCollectsPayments, collectsPayments)
	holds(compliance.FactUsesAnalytics, usesAnalytics)
	holds(compliance.FactHasThirdPartyServices, len(f.Services)+len(f.Unknown) > 0)
	// Without a named host, or with services the catalog cannot place,
	// nobody can say that data stays in the region.
	f.TransfersUncertain = !f.hostKnown() || len(f.Unknown) > 0 || f.AnalyticsCookiesAssumed
	// No request field or catalog entry describes solely automated
	// decisions with legal effects (compliance.FactAutomatedDecisions
	// never holds); the document states there are none and a flag tells
	// the business to check.
	// Contract documents: subscriptions that renew automatically until
	// cancelled (they are paid for, so only where payments are taken).
	holds(compliance.FactAutoRenews, collectsPayments && req.Subscriptions.AutoRenewing())
	// Disclaimer (issue 8, t2): links or recommendations that earn the
	// business something.
	holds(compliance.FactAffiliateLinks, req.AffiliateLinks != nil && *req.AffiliateLinks)
	// US state laws (issue 8): sales of sensitive or biometric data are
	// what the request says, never inferred (Texas prescribes a notice).
	biometric := req.SellsBiometricData != nil && *req.SellsBiometricData
	holds(compliance.FactSellsBiometricData, biometric)
	holds(compliance.FactSellsSensitiveData, biometric || req.SellsSensitiveData != nil && *req.SellsSensitiveData)
	// COPPA (issue 8, part j6): only what the request says; left out, it
	// is false (a todo for a children's service, todosUSFederal).
	holds(compliance.FactDirectedToChildren, req.DirectedToChildren != nil && *req.DirectedToChildren)
	f.applicable = compliance.AppendApplicable(f.applicable, f.Laws, f.Set)
	f.Todos = todos(f)
	return nil
}

// parseJurisdictions sets f.Jurisdictions, and the scratch's jids, jpos
// and listed, from the request's list of jurisdiction ids; primary is the
// position of the first with its own transfer regime (-1: none).
func (f *Facts) parseJurisdictions(cat *catalog.Catalog, jt *jurisdictionTable, list string) (primary int, err error) {
	s := &f.scr
	// Each jurisdiction is looked up once, for its position, which finds
	// its laws and its region. A canonical list (ParseRequest's) is in
	// catalog order: the next id is mostly one of the next few catalog
	// entries, compared with the list where it stands (no search for the
	// comma) before the list is cut and the map is asked.
	jids, jpos := s.jids[:0], s.jpos[:0]
	primary = -1
	next := 0 // the catalog position after the last one found
	for rest := list; ; {
		p, n := -1, 0
		for k := next; k < min(next+4, len(cat.Jurisdictions)); k++ {
			if id := cat.Jurisdictions[k].ID; strings.HasPrefix(rest, id) && (len(rest) == len(id) || rest[len(id)] == ',') {
				p, n = k, len(id)
				break
			}
		}
		if p < 0 {
			if n = strings.IndexByte(rest, ','); n < 0 {
				n = len(rest)
			}
			var ok bool
			if p, ok = jt.pos[rest[:n]]; !ok {
				return -1, fmt.Errorf("policy: unknown jurisdiction %q", rest[:n])
			}
		}
		jids = append(jids, rest[:n])
		next = p + 1
		jpos = append(jpos, p)
		if primary < 0 && len(cat.Jurisdictions[p].TransferMechanisms) > 0 {
			primary = len(jpos) - 1
		}
		if n == len(rest) {
			break
		}
		rest = rest[n+1:]
	}
	s.jids = jids
	s.jpos = jpos
	// The jurisdictions are copied from the catalog a run of consecutive
	// positions at a time (a canonical list of many is mostly one run):
	// a Jurisdiction is a score of words.
	for i := 0; i < len(jpos); {
		j := i + 1
		for j < len(jpos) && jpos[j] == jpos[j-1]+1 {
			j++
		}
		f.Jurisdictions = append(f.Jurisdictions, cat.Jurisdictions[jpos[i]:jpos[j-1]+1]...)
		i = j
	}
	if len(s.listed) != len(jt.regions) {
		s.listed = make([]uint64, len(jt.regions))
	}
	clear(s.listed)
	for j, p := range jpos[:min(len(jpos), 64)] {
		s.listed[p] |= 1 << j
	}
	return primary, nil
}

// noService is add's service for data that no service receives.
const noService = -1

// add records the category uses of a practice (practiceUses) that no
// service receives.
func (f *Facts) add(cat *catalog.Catalog, u *categoryUses) error {
	if u.err != nil {
		return u.err
	}
	for k := range u.uses {
		f.addUse(cat, &u.uses[k], noService, "")
	}
	return nil
}

// categoryUses are the uses of a practice's data categories, or the
// error of the first the catalog cannot describe.
type categoryUses struct {
	uses []categoryUse
	err  error
}

// usesOf is categoryUseOf of each of categories.
func usesOf(cat *catalog.Catalog, categories, purposes []string, source string) categoryUses {
	var u categoryUses
	for _, c := range categories {
		cu, err := categoryUseOf(cat, c, purposes, source)
		if err != nil {
			u.err = err
			break
		}
		u.uses = append(u.uses, cu)
	}
	return u
}

// practiceUses are the category uses of the catalog's practices that
// documents add besides their services', worked out once from the
// catalog (practices) rather than for every document: the website's
// (collected from the device), each business type's by id (given by
// people, when the business collects user data), and those of payments
// and analytics.
type practiceUses struct {
	website, payments, analytics categoryUses
	businessTypes                map[string]categoryUses
}

// practices are the catalog's practiceUses, made on first use.
var practices = sync.OnceValue(func() *practiceUses {
	c := cat()
	p := &practiceUses{
		website:       usesOf(c, c.Website.DataCategories, c.Website.Purposes, "device"),
		payments:      usesOf(c, c.Payments.DataCategories, c.Payments.Purposes, "you"),
		analytics:     usesOf(c, c.Analytics.DataCategories, c.Analytics.Purposes, "device"),
		businessTypes: make(map[string]categoryUses, len(c.BusinessTypes)),
	}
	for i := range c.BusinessTypes {
		bt := &c.BusinessTypes[i]
		p.businessTypes[bt.ID] = usesOf(c, bt.DataCategories, bt.Purposes, "you")
	}
	return p
})

// categoryUseOf is what data category id serves when it is collected for
// purposes (a category restricted to some purposes is used only for those
// of them that apply) and where it comes from: source, or for a service
// ("") the visitor's device or the person; inferences are derived.
func categoryUseOf(cat *catalog.Catalog, id string, purposes []string, source string) (categoryUse, error) {
	ci := categoryIndex(cat, id)
	if ci < 0 {
		return categoryUse{}, fmt.Errorf("policy: unknown data category %q", id)
	}
	cu := categoryUse{id: id, pos: ci, device: slices.Contains(deviceCategories, id), source: source, purposes: purposes}
	if dc := &cat.DataCategories[ci]; len(dc.Purposes) > 0 {
		var used []string
		for _, p := range purposes {
			if slices.Contains(dc.Purposes, p) {
				used = append(used, p)
			}
		}
		if len(used) > 0 {
			cu.purposes = used
		}
	}
	if cu.source == "" { // a service: where it gets the data from
		cu.source = "you"
		if cu.device {
			cu.source = "device"
		}
	}
	if id == "inferences" {
		cu.source = "derived"
	}
	cu.sourceBit = sourceBit(cu.source)
	for _, p := range cu.purposes {
		pi := cat.PurposeIndex(p)
		if pi < 0 {
			return categoryUse{}, fmt.Errorf("policy: unknown purpose %q", p)
		}
		cu.purposePos = append(cu.purposePos, pi)
		cu.purposeSet.add(pi)
	}
	return cu, nil
}

// sourceBit is a data source's bit in CategoryFact.sourceSet, 0 for a
// source without one (addUse compares it with those there).
func sourceBit(source string) uint8 {
	switch source {
	case "you":
		return 1
	case "device":
		return 2
	case "derived":
		return 4
	}
	return 0
}

// addUse records what service (its position in f.Services, with its id)
// does with one of its data categories, as add does for one category. A
// purpose's categories and services are not touched here: build makes
// them once the categories are known (a purpose's categories from the
// categories' purposes), and the service loop adds a service to each of
// the purposes its uses serve, once rather than once per use.
func (f *Facts) addUse(cat *catalog.Catalog, cu *categoryUse, service int, serviceID string) {
	s := &f.scr
	cf := &s.cats[cu.pos]
	if !s.catUsed[cu.pos] {
		s.catUsed[cu.pos] = true
		cf.DataCategory = cat.DataCategories[cu.pos]
	}
	// The purposes new to the category, in the use's order: most uses
	// bring none (a category serves the same purposes for many services).
	if !cf.purposeSet.hasAll(&cu.purposeSet) {
		for k, pi := range cu.purposePos {
			if cf.purposeSet.add(pi) {
				cf.Purposes = append(cf.Purposes, cu.purposes[k])
			}
		}
	}
	// A source known by its bit is added without comparing it with those
	// there (addUse runs for each category of each service).
	if b := cu.sourceBit; b == 0 {
		cf.Sources = addUnique(cf.Sources, cu.source)
	} else if cf.sourceSet&b == 0 {
		cf.sourceSet |= b
		cf.Sources = append(cf.Sources, cu.source)
	}
	if service != noService && cf.recipientSet.add(service) {
		cf.Recipients = append(cf.Recipients, serviceID)
	}
}

// serviceUse is what the facts take from a catalog service, worked out
// once from the catalog (serviceUses) rather than for every document
// that names the service: its category's purposes, with their positions,
// and what each of its data categories is used for.
type serviceUse struct {
	svc        *catalog.Service
	purposes   []string // its service category's
	purposeSet posSet   // their positions in the catalog
	categories []categoryUse
	err        error // an id the catalog does not know
	// out holds the catalog positions of the jurisdictions out of whose
	// region the service transfers data (regionSets.transfersOut), and
	// stated its Transfers by jurisdiction position: a document asks
	// for each regime of each of its services.
	out    posSet
	stated []statedMechanisms
	// usePurposes are the purposes its categories' uses serve (the union
	// of their purposeSet): those it is a recipient for, unless it is a
	// host, which keeps only some of its uses.
	usePurposes posSet
	// providerOK and accessOK hold the catalog positions of the
	// jurisdictions whose region takes the provider's country, and every
	// country it may access the data from, as adequate
	// (regionSets.adequacy): transferBasis asks for each regime a service
	// transfers out of.
	providerOK, accessOK posSet
	// basis holds, by jurisdiction position, transferOf's answer for the
	// service alone (0: it transfers nothing out of the region, else the
	// basis plus one) on the mechanisms its catalog entry states there:
	// a document's, unless its request adds a safeguard the regime's law
	// knows.
	basis []uint8
}

// statedMechanisms are the transfer mechanisms stated for the
// jurisdiction at catalog position pos, with their bits
// (jurisdictionTable.mechanismBit).
type statedMechanisms struct {
	pos        int
	mechanisms []string
	bits       uint64
}

// statedIn is the mechanisms the service's provider states for the
// jurisdiction at catalog position pos (its catalog entry's Transfers),
// with their bits.
func (u *serviceUse) statedIn(pos int) ([]string, uint64) {
	for i := range u.stated {
		if u.stated[i].pos == pos {
			return u.stated[i].mechanisms, u.stated[i].bits
		}
	}
	return nil, 0
}

// categoryUse is one data category of a service: what add works out for
// it from the service category's purposes.
type categoryUse struct {
	id        string
	pos       int    // in the catalog's data categories
	device    bool   // one of deviceCategories
	source    string // where the service gets it (you, device, derived)
	sourceBit uint8  // sourceBit(source)
	// purposes are those it serves (a category the service category
	// narrows serves only those; one restricted in the catalog only those
	// of its own that apply), with their positions in the catalog.
	purposes   []string
	purposePos []int
	purposeSet posSet // purposePos as a set
}

// serviceUses are every catalog service's uses, by the service's position
// in the catalog, made on first use.
var serviceUses = sync.OnceValue(func() []*serviceUse {
	c := cat()
	jt := jurisdictions()
	m := make([]*serviceUse, len(c.Services))
	for i := range c.Services {
		sv := &c.Services[i]
		sc, _ := c.ServiceCategory(sv.Category)
		u := &serviceUse{svc: sv, purposes: sc.Purposes}
		for p := range jt.regions {
			if jt.regions[p].transfersOut(sv) {
				u.out.add(p)
			}
			provider, access := jt.regions[p].adequacy(sv)
			if provider {
				u.providerOK.add(p)
			}
			if access {
				u.accessOK.add(p)
			}
		}
		for id, ms := range sv.Transfers {
			if p, ok := jt.pos[id]; ok {
				var bits uint64
				for _, mech := range ms {
					bits |= jt.mechanismBit[mech]
				}
				u.stated = append(u.stated, statedMechanisms{p, ms, bits})
			}
		}
		u.basis = make([]uint8, len(jt.regions))
		for p := range jt.regions {
			if u.out.has(p) {
				stated, _ := u.statedIn(p)
				u.basis[p] = uint8(transferBasis(&c.Jurisdictions[p], &ServiceFact{Service: sv}, stated, u.providerOK.has(p), u.accessOK.has(p))) + 1
			}
		}
		for _, p := range sc.Purposes {
			if pi := c.PurposeIndex(p); pi >= 0 {
				u.purposeSet.add(pi)
			}
		}
		for _, id := range sv.DataCategories {
			ps := sc.Purposes
			if only, ok := sc.CategoryPurposes[id]; ok {
				ps = only
			}
			cu, err := categoryUseOf(c, id, ps, "")
			if err != nil {
				u.err = err
				break
			}
			u.categories = append(u.categories, cu)
			u.usePurposes.union(&cu.purposeSet)
		}
		m[i] = u
	}
	return m
})

// categoryIndex is the position of data category id in the catalog.
func categoryIndex(cat *catalog.Catalog, id string) int {
	return cat.DataCategoryIndex(id)
}

// foldCompare orders service ids as their folded forms (fold) compare.
func foldCompare(a, b string) int {
	i, j := 0, 0
	for {
		for i < len(a) && foldSkip(a[i]) {
			i++
		}
		for j < len(b) && foldSkip(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return (len(a) - i) - (len(b) - j) // the shorter folded form first
		}
		ca, cb := a[i], b[j]
		if ca >= 0x80 || cb >= 0x80 {
			return strings.Compare(fold(a), fold(b))
		}
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return int(ca) - int(cb)
		}
		i, j = i+1, j+1
	}
}

func foldSkip(c byte) bool { return c == ' ' || c == '-' || c == '_' || c == '.' }

func addUnique(s []string, vals ...string) []string {
	for _, v := range vals {
		if !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	return s
}

// cookiesKnown reports whether the website is known (or, for analytics
// with no named tool, assumed) to store or read information on the device.
func (f *Facts) cookiesKnown() bool {
	if f.AnalyticsCookiesAssumed {
		return true
	}
	for i := range f.Services {
		if f.Services[i].SetsCookiesKnown() {
			return true
		}
	}
	return false
}

// cookiesUnknown reports whether some service's use of cookies is not
// confirmed.
func (f *Facts) cookiesUnknown() bool {
	for i := range f.Services {
		if f.Services[i].CookiesUnknown() {
			return true
		}
	}
	return false
}

// thirdParty reports whether a service receives personal information as a
// CCPA third party (a sale or sharing). Payment providers never do.
func thirdParty(s *catalog.Service) bool {
	if s.Category == "payments" {
		return false
	}
	if s.CCPARole == "" {
		return s.Category == "advertising" || s.Category == "social"
	}
	return s.CCPARole == catalog.RoleThirdParty
}

// hostKnown reports whether the website's host is named: hostingProvider,
// or a hosting service (Shopify, Wix, AWS...) among the services.
func (f *Facts) hostKnown() bool {
	return f.Request.HostingProvider != "" || f.hasServiceCategory("hosting")
}

// crossSite reports whether a service may collect information about a
// visitor's activity over time and across other websites.
func crossSite(s *ServiceFact) bool {
	switch s.Category {
	case "advertising", "social", "video", "maps":
		return true
	}
	return thirdParty(s.Service)
}

// transferRegimes are the regions transfers are judged against: the
// regimes listed, or the primary jurisdiction when none is.
func (f *Facts) transferRegimes() []catalog.Jurisdiction {
	if len(f.Regimes) > 0 {
		return f.Regimes
	}
	if f.scr.primary[0].ID != f.Jurisdiction.ID {
		f.scr.primary[0] = f.Jurisdiction
	}
	return f.scr.primary[:]
}

// transferOf is whether service k (in Services) transfers personal data
// out of the region of regime i (in transferRegimes) and, if it does, what
// the transfer rests on: worked out once per document (regionSets'
// transfersOut, and transferBasis from the adequacy worked out when the
// catalog loads), for the tables, the scoring and the to-dos.
func (f *Facts) transferOf(i, k int) (out bool, basis int) {
	t := f.scr.transfers[k*len(f.transferRegimes())+i]
	return t != 0, int(t) - 1
}

// statedOf is the transfer mechanisms stated for service k (in Services)
// under regime i (in transferRegimes): the provider's (its catalog
// entry's Transfers) and then those the request's transferSafeguards add
// for it that the regime's law knows.
func (f *Facts) statedOf(i, k int) []string {
	return f.scr.stated[k*len(f.transferRegimes())+i]
}

// appendStated works out statedOf's answer for a service under a regime
// whose law knows some of the safeguards the request states for it that
// its provider does not state there: stated being the mechanisms its
// catalog entry states there (its Transfers), extra the request's
// safeguards, bits the bit of each (jurisdictionTable.mechanismBit) and
// add those of the ones to add. The list is the catalog's followed by
// those, each once, in the request's order, made in statedBuf, so that
// the facts copy no service entry (the catalog's list is used as it is
// when the request adds nothing to it: build does not call then).
func (f *Facts) appendStated(stated []string, add uint64, extra []string, bits []uint64) []string {
	buf := f.scr.statedBuf
	start := len(buf)
	if len(stated) > 0 {
		buf = append(buf, stated...)
	}
	for k, m := range extra {
		if b := bits[k]; add&b != 0 {
			buf = append(buf, m)
			add &^= b
		}
	}
	f.scr.statedBuf = buf
	return buf[start:len(buf):len(buf)]
}

// transfersOut reports whether a service's provider is, or may access the
// data from, outside the region g (a provider of unknown country may be).
func (g *regionSets) transfersOut(s *catalog.Service) bool {
	in := &g.countries
	if s.ProviderCountry == "" || !in.has(s.ProviderCountry) {
		return true
	}
	for _, c := range s.AccessCountries {
		if !in.has(c) {
			return true
		}
	}
	return false
}

// adequacy reports whether s's provider country is known and adequate
// for the region g (one of its countries, or one an adequacy decision
// covers), and whether every country it may access the data from is.
func (g *regionSets) adequacy(s *catalog.Service) (provider, access bool) {
	adequate := func(c string) bool { return g.adequate.has(c) || g.countries.has(c) }
	access = !slices.ContainsFunc(s.AccessCountries, func(c string) bool { return !adequate(c) })
	return s.ProviderCountry != "" && adequate(s.ProviderCountry), access
}

// countrySet is a set of ISO 3166-1 alpha-2 codes, one bit each.
type countrySet [(26*26 + 63) / 64]uint64

func countryBit(c string) int {
	if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' {
		return -1
	}
	return int(c[0]-'A')*26 + int(c[1]-'A')
}

func (s *countrySet) add(c string) {
	if i := countryBit(c); i >= 0 {
		s[i>>6] |= 1 << (i & 63)
	}
}

func (s *countrySet) has(c string) bool {
	return s.hasBit(countryBit(c))
}

// hasBit is has for the country whose countryBit is i.
func (s *countrySet) hasBit(i int) bool {
	return i >= 0 && s[i>>6]>>(i&63)&1 == 1
}

// regionSets are a jurisdiction's countries and the countries an adequacy
// decision covers, as sets (catalog.Jurisdiction holds them as lists).
type regionSets struct {
	countries, adequate countrySet
}

// jurisdictionTable is the catalog's jurisdictions by id: each one's
// position in the catalog and, by position, its region's sets.
type jurisdictionTable struct {
	pos     map[string]int
	regions []regionSets
	// mechanismBit numbers each transfer mechanism some jurisdiction's
	// law knows (its TransferMechanisms; at most 64, checked when the
	// table is made) with a bit, and knownBits are, by catalog position,
	// the bits of those the jurisdiction's law knows: a request's
	// safeguard for a service counts under the regimes whose law knows
	// it (appendStated), which build tests for all the safeguards and
	// each regime at once.
	mechanismBit map[string]uint64
	knownBits    []uint64
}

// jurisdictions is the catalog's jurisdictionTable, made on first use.
var jurisdictions = sync.OnceValue(func() *jurisdictionTable {
	js := cat().Jurisdictions
	t := &jurisdictionTable{pos: make(map[string]int, len(js)), regions: make([]regionSets, len(js)), mechanismBit: map[string]uint64{}, knownBits: make([]uint64, len(js))}
	for i, j := range js {
		for _, m := range j.TransferMechanisms {
			b, ok := t.mechanismBit[m]
			if !ok {
				if len(t.mechanismBit) >= 64 {
					panic("policy: more than 64 transfer mechanisms")
				}
				b = 1 << len(t.mechanismBit)
				t.mechanismBit[m] = b
			}
			t.knownBits[i] |= b
		}
		r := &t.regions[i]
		for _, c := range j.Countries {
			r.countries.add(c)
		}
		for _, c := range j.Adequate {
			r.adequate.add(c)
		}
		t.pos[j.ID] = i
	}
	return t
})

// listedAt is, by catalog position, the positions in f.Jurisdictions of
// the jurisdiction there (the first 64) as bits; nil for facts that build
// did not make, whose jurisdictions have no catalog positions.
func (f *Facts) listedAt() []uint64 {
	if len(f.scr.jpos) != len(f.Jurisdictions) || len(f.scr.listed) == 0 {
		return nil
	}
	return f.scr.listed
}

// embeddedLaw is what the facts and the builder take from an embedded
// law, with its id, by which a law's position is confirmed: the catalog
// positions of the jurisdictions it covers.
type embeddedLaw struct {
	id   string
	jpos []int
}

// embeddedLaws are the embedded laws' embeddedLaw, by law position
// (compliance.Law.Position), made on first use: a federal law covers each
// of its country's jurisdictions, which a document for many of them
// looked up by id for each of its laws.
var embeddedLaws = sync.OnceValue(func() []embeddedLaw {
	laws, err := compliance.Laws()
	if err != nil {
		return nil
	}
	jt := jurisdictions()
	out := make([]embeddedLaw, len(laws))
	for i := range laws {
		l := &laws[i]
		e := embeddedLaw{id: l.ID}
		for _, id := range l.Jurisdictions {
			if p, ok := jt.pos[id]; ok {
				e.jpos = append(e.jpos, p)
			}
		}
		out[i] = e
	}
	return out
})

// embeddedLawOf is l's entry in laws (embeddedLaws'); ok is false for a
// law that is not the embedded one at its position.
func embeddedLawOf(laws []embeddedLaw, l *compliance.Law) (e *embeddedLaw, ok bool) {
	if p := l.Position(); p >= 0 && p < len(laws) && laws[p].id == l.ID {
		return &laws[p], true
	}
	return nil, false
}

// namedLaws are the laws the code asks about by id (HasLaw), the most
// asked first: each has a bit in Facts.named, set when build chooses the
// laws (typeLaws.named), so that a question tests bits rather than goes
// through a document's sixty laws (the to-dos ask a dozen).
var namedLaws = []string{lawCCPA, lawLGPD, lawQuebec, lawPIPEDA, lawFADP, "caloppa", lawGDPR, lawUKGDPR, lawCCPARegs,
	lawZA, lawSG, lawNZ, lawCOPPA, "pecr", "eprivacy", "appi", "pipa", "pipl", "th-pdpa", "it-spdi"}

// regionOf is r's region; a jurisdiction the catalog does not hold (a
// test's) gets its sets made here.
func regionOf(r *catalog.Jurisdiction) *regionSets {
	jt := jurisdictions()
	if p, ok := jt.pos[r.ID]; ok {
		return &jt.regions[p]
	}
	g := &regionSets{}
	for _, c := range r.Countries {
		g.countries.add(c)
	}
	for _, c := range r.Adequate {
		g.adequate.add(c)
	}
	return g
}

// needsRepresentativeAt: a controller not established in the region of
// regime i of regimes (transferRegimes), by the country set
// establishedAt tests, names its Art. 27 representative there (one
// established there does not).
func (f *Facts) needsRepresentativeAt(regimes []catalog.Jurisdiction, i int) bool {
	e := f.Request.EstablishedIn
	return f.gdprFamily() && regimes[i].RepresentativeField != "" && e != "" && !f.establishedAt(regimes, i, e)
}

// establishedAt reports whether country e is in the region of regime i of
// regimes (transferRegimes): by the region's country set where build found
// the regimes' catalog positions (rpos), rather than through its list of
// countries (the EU's thirty, for a controller established elsewhere).
func (f *Facts) establishedAt(regimes []catalog.Jurisdiction, i int, e string) bool {
	if len(f.scr.rpos) == len(regimes) {
		return jurisdictions().regions[f.scr.rpos[i]].countries.has(e)
	}
	return slices.Contains(regimes[i].Countries, e)
}

// establishedInRegime reports whether the controller is established in
// the region of one of regimes (transferRegimes).
func (f *Facts) establishedInRegime(regimes []catalog.Jurisdiction) bool {
	e := f.Request.EstablishedIn
	if e == "" {
		return false
	}
	for i := range regimes {
		if f.establishedAt(regimes, i, e) {
			return true
		}
	}
	return false
}

// emailTracker reports whether a service sends emails that can carry
// tracking pixels (PECR reg. 6; ePrivacy Art. 5(3)).
func emailTracker(s *ServiceFact) bool {
	return s.Category == "email_marketing" || s.Category == "crm"
}

// representative is the Art. 27 representative the request names for the
// primary jurisdiction.
func (f *Facts) representative() string { return f.representativeFor(&f.Jurisdiction) }

// representativeFor is the Art. 27 representative the request names for
// r (the field its catalog entry names).
func (f *Facts) representativeFor(r *catalog.Jurisdiction) string {
	switch r.RepresentativeField {
	case "euRepresentative":
		return f.Request.EURepresentative
	case "ukRepresentative":
		return f.Request.UKRepresentative
	}
	return ""
}

// usStateLaw (issue 8) reports whether a US state consumer privacy law
// applies: the shared "US state privacy rights" section and summary line
// show then. Their law ids are "us-" + the state's two-letter postal code
// (us-va, us-tx, ...).
func (f *Facts) usStateLaw() bool {
	for i := range f.Laws {
		if id := f.Laws[i].ID; len(id) == 5 && strings.HasPrefix(id, "us-") {
			return true
		}
	}
	return false
}

// lawCovers reports whether the law with id applies and covers
// jurisdiction j.
func (f *Facts) lawCovers(id, j string) bool {
	for i := range f.Laws {
		if l := &f.Laws[i]; l.ID == id && slices.Contains(l.Jurisdictions, j) {
			return true
		}
	}
	return false
}

// usSectorLaws reports whether a jurisdiction's business types raise
// flags naming U.S. sector laws (catalog USSectorLaws).
func (f *Facts) usSectorLaws() bool {
	for i := range f.Jurisdictions {
		if f.Jurisdictions[i].USSectorLaws {
			return true
		}
	}
	return false
}

// HasLaw reports whether one of the laws ids applies. Like lawCovers, it
// goes through the laws by index: a Law is a dozen words, which a range
// value or a func(Law) copied for each of a many-jurisdiction document's
// sixty laws.
func (f *Facts) HasLaw(ids ...string) bool {
	if f.namedSet {
		if has, ok := f.hasNamed(ids); ok {
			return has
		}
	}
	for i := range f.Laws {
		if slices.Contains(ids, f.Laws[i].ID) {
			return true
		}
	}
	return false
}

// hasNamed is HasLaw's answer from f.named; ok is false when one of ids
// is not in namedLaws.
func (f *Facts) hasNamed(ids []string) (has, ok bool) {
	for _, id := range ids {
		n := slices.Index(namedLaws, id)
		if n < 0 {
			return false, false
		}
		if f.named&(1<<n) != 0 {
			return true, true
		}
	}
	return false, true
}

// contractPurpose reports whether purpose id is one for which the person
// must give us details (the contractData clause names what fails without
// them). A switch, which conditionBits asks once per purpose, rather than
// a search of the document's purposes for each of these ids.
func contractPurpose(id string) bool {
	switch id {
	case "account", "provide_service", "orders", "marketplace", "payments", "appointments", "customer_support", "enquiries":
		return true
	}
	return false
}

// conditionBits sets, in c, the conditions that hold: the vocabulary
// clause conditions are written in (names numbers each one the library
// uses). It is the compliance facts plus "law:<id>", "jurisdiction:<id>"
// and a few facts that only select wording.
func (f *Facts) conditionBits(c *conditionBits, lib *compiledLibrary) {
	c.reset(lib)
	for k, v := range f.Set {
		c.set(k, v)
	}
	// The laws and the jurisdictions by position (lawCondition,
	// jurisdictionCondition); by name those the library does not number.
	for i := range f.Laws {
		if li := lib.lawAt(&f.Laws[i]); li >= 0 {
			c.setBit(lib.lawCondition[li])
		} else {
			c.setPrefixed("law:", f.Laws[i].ID)
		}
	}
	if len(f.scr.jpos) == len(f.Jurisdictions) && len(lib.jurisdictionCondition) == len(jurisdictions().regions) {
		for _, p := range f.scr.jpos {
			c.setBit(lib.jurisdictionCondition[p])
		}
	} else {
		for i := range f.Jurisdictions {
			c.setPrefixed("jurisdiction:", f.Jurisdictions[i].ID)
		}
	}
	req := &f.Request
	c.set("gdprFamily", f.gdprFamily())
	c.set("collectsUserData", req.CollectsUserData)
	unknown, known := f.cookiesUnknown(), f.cookiesKnown()
	c.set("cookiesUnknown", unknown)
	c.set("cookiesKnown", known)
	c.set("setsCookies", known || unknown)
	c.set("hasPostalAddress", req.PostalAddress != "")
	c.set("hasPhone", req.Phone != "")
	c.set("hasTollFree", req.TollFreeNumber != "")
	c.set("hasDPO", req.DPOContact != "")
	c.set("hasPrivacyOfficer", req.PrivacyOfficer != "") // issue 8, part j1
	// A Brazilian small-scale agent without an encarregado names its
	// channel for data subjects instead (Res. CD/ANPD nº 2/2022, Art. 11).
	c.set("smallAgentNoEncarregado", f.HasLaw(lawLGPD) && req.DPOContact == "" && req.SmallProcessingAgent != nil && *req.SmallProcessingAgent)
	c.set("onlineOnly", req.OnlineOnly != nil && *req.OnlineOnly)
	c.set("consentBanner", req.ConsentBanner != nil && *req.ConsentBanner)
	c.set("noConsentBanner", req.ConsentBanner != nil && !*req.ConsentBanner)
	c.set("sellsMinorsData", req.SellsMinorsData != nil && *req.SellsMinorsData)
	c.set("optOutLink", req.OptOutLink != nil && *req.OptOutLink)
	c.set("usStateLaw", f.usStateLaw())
	c.set("transfersUncertain", f.TransfersUncertain)
	c.set("unknownServices", len(f.Unknown) > 0)
	c.set("hostKnown", f.hostKnown())
	c.set("memberState", req.MemberState != "")
	c.set("tollFreeRequired", f.HasLaw(lawCCPA) && req.OnlineOnly != nil && !*req.OnlineOnly)
	// Art. 27: a controller not established in the region names its
	// representative there; one established there does not need one.
	regimes := f.transferRegimes()
	c.set("establishedInRegion", f.establishedInRegime(regimes))
	needs, missing := false, false
	for i := range regimes {
		if f.needsRepresentativeAt(regimes, i) {
			needs = true
			missing = missing || f.representativeFor(&regimes[i]) == ""
		}
	}
	c.set("needsRepresentative", needs)
	if needs {
		c.set("hasRepresentative", !missing)
	}
	// Third parties that may collect information about a visitor's
	// activity over time and across websites (Cal. Bus. & Prof. Code
	// § 22575(b)(6)): advertising, social and embedded-content services,
	// and any third party under the CCPA.
	// Each condition is set once, after the loop, rather than once per
	// service (a many-jurisdiction document has some thirty services).
	cross, email := false, false
	for i := range f.Services {
		s := &f.Services[i]
		cross = cross || crossSite(s)
		email = email || emailTracker(s)
		c.setPrefixed("serviceCategory:", s.Category)
	}
	c.set("crossSiteTracking", cross)
	c.set("emailTracking", email)
	contract := false
	for i := range f.Purposes {
		p := &f.Purposes[i]
		contract = contract || contractPurpose(p.ID)
		c.setPrefixed("purpose:", p.ID)
		c.setPrefixed("basis:", p.GDPRBasis)
	}
	c.set("contractData", contract)
	// Disclaimer (issue 8, t2): the business type selects the kind of
	// advice the website's content must not be taken for; affiliate links
	// said to be absent.
	c.setPrefixed("businessType:", req.BusinessType)
	c.set("noAffiliateLinks", req.AffiliateLinks != nil && !*req.AffiliateLinks)
	// Refund policy (issue 8, t3): the voluntary return window and who pays
	// return postage, each stated or not.
	c.set("refundWindowUnknown", req.RefundWindowDays == nil)
	c.set("refundWindow", req.RefundWindowDays != nil && *req.RefundWindowDays > 0)
	c.set("noRefundWindow", req.RefundWindowDays != nil && *req.RefundWindowDays == 0)
	c.set("returnPostageUnknown", req.ReturnShippingPaidBy == "")
	c.set("returnPostageCustomer", req.ReturnShippingPaidBy == "customer")
	c.set("returnPostageBusiness", req.ReturnShippingPaidBy == "business")
	// Contract documents (terms, eula, acceptable-use): what the request
	// says of subscriptions selects the wording that describes them.
	if sub := req.Subscriptions; sub != nil {
		c.set("subscriptions", sub.Offered)
		c.set("noSubscriptions", !sub.Offered)
		c.set("renewalUnknown", sub.Offered && sub.AutoRenews == nil)
		c.set("fixedTermSubscriptions", sub.Offered && sub.AutoRenews != nil && !*sub.AutoRenews)
		c.set("cancelOnline", sub.Cancellation == "online")
		c.set("cancelEmail", sub.Cancellation == "email")
	} else {
		c.set("subscriptionsUnknown", true)
	}
	for cfi := range f.Categories {
		cf := &f.Categories[cfi]
		if len(cf.Recipients) > len(cf.SoldShared) {
			c.set("disclosesForBusinessPurpose", true)
		}
	}
}
