package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// Facts is everything the document and the score are built from: step 1 of
// the pipeline. It depends only on the request and the embedded data.
type Facts struct {
	Request Request
	// Jurisdictions are the request's jurisdictions, in catalog order;
	// Jurisdiction is the primary one (primaryJurisdiction), whose transfer
	// rules, region and authority the shared clauses use.
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
}

// PurposeFact is one purpose and the data used for it.
type PurposeFact struct {
	catalog.Purpose
	Categories []string
	Services   []string
}

// ServiceFact is a requested service with what the facts add to its entry.
type ServiceFact struct {
	catalog.Service
	Purposes []string
	// Transfer is true when the provider is established outside the
	// jurisdiction's region (GDPR/UK GDPR Chapter V).
	Transfer bool
	// SellsOrShares is true when the service receives personal information
	// as a CCPA third party (a sale or sharing).
	SellsOrShares bool
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

// LawsFor returns the laws of every jurisdiction in ids, each once, in id
// order: a law shared by two markets is one checklist, met once.
func LawsFor(laws []compliance.Law, ids []string) []compliance.Law {
	var out []compliance.Law
	for _, l := range laws {
		for _, id := range ids {
			if len(compliance.ForJurisdiction([]compliance.Law{l}, id)) > 0 {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// BuildFacts derives the facts of a validated request.
func BuildFacts(req Request) (*Facts, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	laws, err := compliance.Laws()
	if err != nil {
		return nil, err
	}
	return buildFacts(req, cat, laws)
}

func buildFacts(req Request, cat *catalog.Catalog, laws []compliance.Law) (*Facts, error) {
	jids := JurisdictionIDs(req.Jurisdiction)
	var js []catalog.Jurisdiction
	for _, id := range jids {
		j, ok := cat.Jurisdiction(id)
		if !ok {
			return nil, fmt.Errorf("policy: unknown jurisdiction %q", id)
		}
		js = append(js, j)
	}
	j, _ := cat.Jurisdiction(primaryJurisdiction(jids))
	bt, ok := cat.BusinessType(req.BusinessType)
	if !ok {
		return nil, fmt.Errorf("policy: unknown business type %q", req.BusinessType)
	}
	var regimes []catalog.Jurisdiction
	for _, x := range js {
		if len(x.TransferMechanisms) > 0 {
			regimes = append(regimes, x)
		}
	}
	f := &Facts{
		Request:       req,
		Jurisdictions: js,
		Jurisdiction:  j,
		Regimes:       regimes,
		Laws:          compliance.ForType(LawsFor(laws, jids), req.Type),
		Set:           compliance.FactSet{},
	}
	// A business under every threshold of Cal. Civ. Code § 1798.140(d)(1)
	// is not a CCPA "business": only CalOPPA applies to its website.
	f.CCPACovers = f.HasLaw(lawCCPA)
	if t := req.CCPAThresholdsMet; t != nil && !*t {
		f.Laws = slices.DeleteFunc(f.Laws, func(l compliance.Law) bool { return l.ID == lawCCPA || l.ID == lawCCPARegs })
	}
	// Issue 8, part j1: Quebec's private-sector Act applies only to a
	// business that serves Québec (servesQuebec true); otherwise a Canadian
	// document covers PIPEDA alone.
	if t := req.ServesQuebec; t == nil || !*t {
		f.Laws = slices.DeleteFunc(f.Laws, func(l compliance.Law) bool { return l.ID == lawQuebec })
	}
	if len(f.Laws) == 0 {
		return nil, fmt.Errorf("policy: no law covers jurisdiction %q", req.Jurisdiction)
	}
	cats := map[string]*CategoryFact{}
	purps := map[string]*PurposeFact{}
	add := func(categories, purposes []string, source string, service string) error {
		for _, c := range categories {
			dc, ok := cat.DataCategory(c)
			if !ok {
				return fmt.Errorf("policy: unknown data category %q", c)
			}
			// A category restricted to some purposes is used only for
			// those of them that apply here.
			used := purposes
			if len(dc.Purposes) > 0 {
				if r := slices.DeleteFunc(slices.Clone(purposes), func(p string) bool { return !slices.Contains(dc.Purposes, p) }); len(r) > 0 {
					used = r
				}
			}
			for _, p := range used {
				pf := purps[p]
				if pf == nil {
					cp, ok := cat.Purpose(p)
					if !ok {
						return fmt.Errorf("policy: unknown purpose %q", p)
					}
					pf = &PurposeFact{Purpose: cp}
					purps[p] = pf
				}
				pf.Categories = addUnique(pf.Categories, c)
				if service != "" {
					pf.Services = addUnique(pf.Services, service)
				}
			}
			cf := cats[c]
			if cf == nil {
				cf = &CategoryFact{DataCategory: dc}
				cats[c] = cf
			}
			src := source
			if src == "" { // a service: where it gets the data from
				src = "you"
				if slices.Contains(deviceCategories, c) {
					src = "device"
				}
			}
			if c == "inferences" {
				src = "derived"
			}
			cf.Sources = addUnique(cf.Sources, src)
			cf.Purposes = addUnique(cf.Purposes, used...)
			if service != "" {
				cf.Recipients = addUnique(cf.Recipients, service)
			}
		}
		return nil
	}

	if err := add(cat.Website.DataCategories, cat.Website.Purposes, "device", ""); err != nil {
		return nil, err
	}
	if req.CollectsUserData {
		if err := add(bt.DataCategories, bt.Purposes, "you", ""); err != nil {
			return nil, err
		}
	}

	usesAnalytics, collectsPayments := req.UsesAnalytics, req.CollectsPayments
	ids := slices.Clone(req.ThirdPartyServices)
	if h := req.HostingProvider; h != "" && !slices.Contains(ids, h) {
		ids = append(ids, h)
		slices.SortFunc(ids, func(a, b string) int { return strings.Compare(fold(a), fold(b)) })
	}
	// What the business itself collects from people: its business type's
	// data when it collects user data, and payment data when it takes
	// payments (or names a payment provider).
	var own []string
	if req.CollectsUserData {
		own = append(own, bt.DataCategories...)
	}
	if req.CollectsPayments || slices.ContainsFunc(ids, func(id string) bool {
		s, ok := cat.Service(id)
		return ok && s.Category == "payments"
	}) {
		own = append(own, cat.Payments.DataCategories...)
	}
	f.Services = make([]ServiceFact, 0, len(ids))
	for _, id := range ids {
		s, ok := cat.Service(id)
		if !ok {
			// Not in the catalog: named in the document, described by
			// nothing it cannot know, and a to-do.
			f.Unknown = append(f.Unknown, id)
			continue
		}
		// Safeguards the business states for its contract with the
		// provider add to those the provider states.
		if extra := req.TransferSafeguards[s.ID]; len(extra) > 0 {
			t := map[string][]string{}
			for k, v := range s.Transfers {
				t[k] = slices.Clone(v)
			}
			// Each mechanism counts for the regime whose law knows it.
			for _, r := range f.transferRegimes() {
				for _, m := range extra {
					if slices.Contains(r.TransferMechanisms, m) {
						t[r.ID] = addUnique(t[r.ID], m)
					}
				}
			}
			s.Transfers = t
		}
		sc, _ := cat.ServiceCategory(s.Category)
		sf := ServiceFact{Service: s, Purposes: sc.Purposes}
		// A provider of unknown country may be outside the region: the
		// document says so rather than that nothing is transferred.
		sf.Transfer = slices.ContainsFunc(f.transferRegimes(), func(r catalog.Jurisdiction) bool { return transfersOutOf(r, s) })
		// A category the service category narrows (a payment provider's
		// device data serves fraud screening, not the payment itself) is
		// used only for those purposes.
		for _, c := range s.DataCategories {
			// A host stores what the website collects: data people give
			// only when the business collects that kind of data.
			if s.Category == "hosting" && !slices.Contains(deviceCategories, c) && !slices.Contains(own, c) {
				continue
			}
			ps := sc.Purposes
			if only, ok := sc.CategoryPurposes[c]; ok {
				ps = only
			}
			if err := add([]string{c}, ps, "", s.ID); err != nil {
				return nil, err
			}
		}
		// Payment providers complete a transaction the consumer asked for:
		// never a sale or sharing, whatever the data says (the catalog
		// loader rejects it too).
		if s.JointController != nil && *s.JointController {
			f.Set[compliance.FactJointControllers] = true
		}
		// An advertising or social service whose CCPA role no source
		// confirmed is treated as a third party: disclosing a possible
		// sale or sharing is safer than denying one.
		if thirdParty(s) {
			sf.SellsOrShares = true
			for _, c := range s.DataCategories {
				cats[c].SoldShared = addUnique(cats[c].SoldShared, s.ID)
			}
			f.Set[compliance.FactSellsOrShares] = true
		}
		if sf.Transfer {
			f.Set[compliance.FactInternationalTransfers] = true
		}
		for _, k := range s.Cookies {
			f.Cookies = append(f.Cookies, CookieFact{Cookie: k, Service: s.Name, Essential: s.Essential})
			if !s.Essential {
				f.Set[compliance.FactSetsNonEssentialCookies] = true
			}
		}
		// A non-essential service whose cookie use is not verified is
		// treated as possibly setting cookies: consent is asked for rather
		// than assumed unnecessary.
		if (s.SetsCookiesKnown() || s.CookiesUnknown()) && !s.Essential {
			f.Set[compliance.FactSetsNonEssentialCookies] = true
		}
		switch s.Category {
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
		f.Services = append(f.Services, sf)
	}
	if collectsPayments {
		if err := add(cat.Payments.DataCategories, cat.Payments.Purposes, "you", ""); err != nil {
			return nil, err
		}
	}
	if usesAnalytics {
		if err := add(cat.Analytics.DataCategories, cat.Analytics.Purposes, "device", ""); err != nil {
			return nil, err
		}
		// Analytics with no named tool: assume it stores identifiers on the
		// device (ePrivacy Art. 5(3), PECR reg. 6). A named cookieless tool
		// (setsCookies false) does not.
		if !slices.ContainsFunc(f.Services, func(s ServiceFact) bool { return s.Category == "analytics" }) {
			f.Set[compliance.FactSetsNonEssentialCookies] = true
			f.AnalyticsCookiesAssumed = true
		}
	}

	for _, c := range cat.DataCategories {
		if cf := cats[c.ID]; cf != nil {
			slices.Sort(cf.Sources)
			f.Categories = append(f.Categories, *cf)
			if cf.Sensitive {
				f.Set[compliance.FactCollectsSensitive] = true
			}
		}
	}
	for _, p := range cat.Purposes {
		if pf := purps[p.ID]; pf != nil {
			// Cookieless analytics needs no consent under ePrivacy/PECR;
			// it rests on legitimate interests, with a right to object.
			if p.ID == "analytics" && !f.Set[compliance.FactSetsNonEssentialCookies] {
				pf.GDPRBasis = "legitimate_interests"
			}
			pf.Categories = inOrder(pf.Categories, cat)
			f.Purposes = append(f.Purposes, *pf)
			if pf.GDPRBasis == "consent" {
				f.Set[compliance.FactConsentBasis] = true
			}
		}
	}
	f.Set[compliance.FactCollectsPayments] = collectsPayments
	f.Set[compliance.FactUsesAnalytics] = usesAnalytics
	f.Set[compliance.FactHasThirdPartyServices] = len(f.Services)+len(f.Unknown) > 0
	// Without a named host, or with services the catalog cannot place,
	// nobody can say that data stays in the region.
	f.TransfersUncertain = !f.hostKnown() || len(f.Unknown) > 0 || f.AnalyticsCookiesAssumed
	// No request field or catalog entry describes solely automated
	// decisions with legal effects; the document states there are none and
	// a flag tells the business to check.
	f.Set[compliance.FactAutomatedDecisions] = false
	// Contract documents: subscriptions that renew automatically until
	// cancelled (they are paid for, so only where payments are taken).
	f.Set[compliance.FactAutoRenews] = collectsPayments && req.Subscriptions.AutoRenewing()
	// Disclaimer (issue 8, t2): links or recommendations that earn the
	// business something.
	f.Set[compliance.FactAffiliateLinks] = req.AffiliateLinks != nil && *req.AffiliateLinks
	// US state laws (issue 8): sales of sensitive or biometric data are
	// what the request says, never inferred (Texas prescribes a notice).
	biometric := req.SellsBiometricData != nil && *req.SellsBiometricData
	f.Set[compliance.FactSellsBiometricData] = biometric
	f.Set[compliance.FactSellsSensitiveData] = biometric || req.SellsSensitiveData != nil && *req.SellsSensitiveData
	for k, v := range f.Set {
		if !v {
			delete(f.Set, k)
		}
	}
	f.Todos = todos(f)
	return f, nil
}

// inOrder sorts category ids in catalog order.
func inOrder(ids []string, cat *catalog.Catalog) []string {
	var out []string
	for _, c := range cat.DataCategories {
		if slices.Contains(ids, c.ID) {
			out = append(out, c.ID)
		}
	}
	return out
}

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
	return f.AnalyticsCookiesAssumed || slices.ContainsFunc(f.Services, func(s ServiceFact) bool { return s.SetsCookiesKnown() })
}

// thirdParty reports whether a service receives personal information as a
// CCPA third party (a sale or sharing). Payment providers never do.
func thirdParty(s catalog.Service) bool {
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
	return f.Request.HostingProvider != "" || slices.ContainsFunc(f.Services, func(s ServiceFact) bool { return s.Category == "hosting" })
}

// crossSite reports whether a service may collect information about a
// visitor's activity over time and across other websites.
func crossSite(s ServiceFact) bool {
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
	return []catalog.Jurisdiction{f.Jurisdiction}
}

// transfersOutOf reports whether a service's provider is, or may access
// the data from, outside r's region (a provider of unknown country may be).
func transfersOutOf(r catalog.Jurisdiction, s catalog.Service) bool {
	return s.ProviderCountry == "" || !slices.Contains(r.Countries, s.ProviderCountry) ||
		slices.ContainsFunc(s.AccessCountries, func(c string) bool { return !slices.Contains(r.Countries, c) })
}

// needsRepresentativeIn: a controller not established in r's region names
// its Art. 27 representative there (one established there does not).
func (f *Facts) needsRepresentativeIn(r catalog.Jurisdiction) bool {
	e := f.Request.EstablishedIn
	return f.gdprFamily() && r.RepresentativeField != "" && e != "" && !slices.Contains(r.Countries, e)
}

// needsRepresentative: some regime needs an Art. 27 representative.
func (f *Facts) needsRepresentative() bool {
	return slices.ContainsFunc(f.transferRegimes(), f.needsRepresentativeIn)
}

// emailTracker reports whether a service sends emails that can carry
// tracking pixels (PECR reg. 6; ePrivacy Art. 5(3)).
func emailTracker(s ServiceFact) bool {
	return s.Category == "email_marketing" || s.Category == "crm"
}

// representative is the Art. 27 representative the request names for the
// primary jurisdiction.
func (f *Facts) representative() string { return f.representativeFor(f.Jurisdiction) }

// representativeFor is the Art. 27 representative the request names for
// r (the field its catalog entry names).
func (f *Facts) representativeFor(r catalog.Jurisdiction) string {
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
	return slices.ContainsFunc(f.Laws, func(l compliance.Law) bool {
		return len(l.ID) == 5 && strings.HasPrefix(l.ID, "us-")
	})
}

// HasLaw reports whether the law with id applies.
func (f *Facts) HasLaw(id string) bool {
	return slices.ContainsFunc(f.Laws, func(l compliance.Law) bool { return l.ID == id })
}

// conditions is the vocabulary clause conditions are written in: the
// compliance facts plus "law:<id>", "jurisdiction:<id>" and a few facts that
// only select wording.
func (f *Facts) conditions() map[string]bool {
	c := map[string]bool{}
	for k, v := range f.Set {
		c[k] = v
	}
	for _, l := range f.Laws {
		c["law:"+l.ID] = true
	}
	for _, j := range f.Jurisdictions {
		c["jurisdiction:"+j.ID] = true
	}
	c["gdprFamily"] = f.HasLaw(lawGDPR) || f.HasLaw(lawUKGDPR)
	c["collectsUserData"] = f.Request.CollectsUserData
	c["cookiesUnknown"] = slices.ContainsFunc(f.Services, func(s ServiceFact) bool { return s.CookiesUnknown() })
	c["cookiesKnown"] = f.cookiesKnown()
	c["setsCookies"] = c["cookiesKnown"] || c["cookiesUnknown"]
	req := f.Request
	c["hasPostalAddress"] = req.PostalAddress != ""
	c["hasPhone"] = req.Phone != ""
	c["hasTollFree"] = req.TollFreeNumber != ""
	c["hasDPO"] = req.DPOContact != ""
	c["hasPrivacyOfficer"] = req.PrivacyOfficer != "" // issue 8, part j1
	// A Brazilian small-scale agent without an encarregado names its
	// channel for data subjects instead (Res. CD/ANPD nº 2/2022, Art. 11).
	c["smallAgentNoEncarregado"] = f.HasLaw(lawLGPD) && req.DPOContact == "" && req.SmallProcessingAgent != nil && *req.SmallProcessingAgent
	c["onlineOnly"] = req.OnlineOnly != nil && *req.OnlineOnly
	c["consentBanner"] = req.ConsentBanner != nil && *req.ConsentBanner
	c["noConsentBanner"] = req.ConsentBanner != nil && !*req.ConsentBanner
	c["sellsMinorsData"] = req.SellsMinorsData != nil && *req.SellsMinorsData
	c["optOutLink"] = req.OptOutLink != nil && *req.OptOutLink
	c["usStateLaw"] = f.usStateLaw()
	c["transfersUncertain"] = f.TransfersUncertain
	c["unknownServices"] = len(f.Unknown) > 0
	c["hostKnown"] = f.hostKnown()
	c["memberState"] = req.MemberState != ""
	c["tollFreeRequired"] = f.HasLaw(lawCCPA) && req.OnlineOnly != nil && !*req.OnlineOnly
	// Art. 27: a controller not established in the region names its
	// representative there; one established there does not need one.
	c["establishedInRegion"] = req.EstablishedIn != "" && slices.ContainsFunc(f.transferRegimes(), func(r catalog.Jurisdiction) bool { return slices.Contains(r.Countries, req.EstablishedIn) })
	c["needsRepresentative"] = f.needsRepresentative()
	c["hasRepresentative"] = c["needsRepresentative"] && !slices.ContainsFunc(f.transferRegimes(), func(r catalog.Jurisdiction) bool {
		return f.needsRepresentativeIn(r) && f.representativeFor(r) == ""
	})
	// Third parties that may collect information about a visitor's
	// activity over time and across websites (Cal. Bus. & Prof. Code
	// § 22575(b)(6)): advertising, social and embedded-content services,
	// and any third party under the CCPA.
	for _, s := range f.Services {
		if crossSite(s) {
			c["crossSiteTracking"] = true
		}
		if emailTracker(s) {
			c["emailTracking"] = true
		}
	}
	// Purposes for which the person must give us details (the clause
	// names what fails without them).
	for _, p := range []string{"account", "provide_service", "orders", "marketplace", "payments", "appointments", "customer_support", "enquiries"} {
		c["contractData"] = c["contractData"] || f.hasPurpose(p)
	}
	for _, p := range f.Purposes {
		c["purpose:"+p.ID] = true
		c["basis:"+p.GDPRBasis] = true
	}
	for _, s := range f.Services {
		c["serviceCategory:"+s.Category] = true
	}
	// Disclaimer (issue 8, t2): the business type selects the kind of
	// advice the website's content must not be taken for; affiliate links
	// said to be absent.
	c["businessType:"+req.BusinessType] = true
	c["noAffiliateLinks"] = req.AffiliateLinks != nil && !*req.AffiliateLinks
	// Refund policy (issue 8, t3): the voluntary return window and who pays
	// return postage, each stated or not.
	c["refundWindowUnknown"] = req.RefundWindowDays == nil
	c["refundWindow"] = req.RefundWindowDays != nil && *req.RefundWindowDays > 0
	c["noRefundWindow"] = req.RefundWindowDays != nil && *req.RefundWindowDays == 0
	c["returnPostageUnknown"] = req.ReturnShippingPaidBy == ""
	c["returnPostageCustomer"] = req.ReturnShippingPaidBy == "customer"
	c["returnPostageBusiness"] = req.ReturnShippingPaidBy == "business"
	// Contract documents (terms, eula, acceptable-use): what the request
	// says of subscriptions selects the wording that describes them.
	if sub := req.Subscriptions; sub != nil {
		c["subscriptions"] = sub.Offered
		c["noSubscriptions"] = !sub.Offered
		c["renewalUnknown"] = sub.Offered && sub.AutoRenews == nil
		c["fixedTermSubscriptions"] = sub.Offered && sub.AutoRenews != nil && !*sub.AutoRenews
		c["cancelOnline"] = sub.Cancellation == "online"
		c["cancelEmail"] = sub.Cancellation == "email"
	} else {
		c["subscriptionsUnknown"] = true
	}
	for _, cf := range f.Categories {
		if len(cf.Recipients) > 0 {
			c["disclosesForBusinessPurpose"] = c["disclosesForBusinessPurpose"] || len(cf.Recipients) > len(cf.SoldShared)
		}
	}
	return c
}
