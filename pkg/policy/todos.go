package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// Publication status of a generated document.
const (
	// StatusReady: the document can be published as it stands.
	StatusReady = "ready"
	// StatusNeedsInput: inputs are missing (Result.Todos); the document
	// shows a placeholder or cannot yet describe something it must.
	StatusNeedsInput = "needs_input"
)

// todos lists the inputs the document still needs, in a stable order.
// Each is a placeholder in the text or a disclosure the text cannot make
// without it; missing inputs never change the risk score.
func todos(f *Facts) []compliance.Todo {
	if f.Request.Type != compliance.DefaultType {
		return neededInputs(f)
	}
	req := &f.Request
	var out []compliance.Todo
	add := func(field, why, cite string) {
		out = append(out, compliance.Todo{Field: field, Why: why, Citation: cite})
	}
	gdpr := f.gdprFamily()
	// prefix is the short name of the document's GDPR-family law (the
	// last in id order) and a space, for citations: found only for a
	// todo that cites it (a complete request has none).
	prefix := func() string {
		short := ""
		for i := range f.Laws {
			if l := &f.Laws[i]; l.ID == lawGDPR || l.ID == lawUKGDPR {
				short = l.ShortName
			}
		}
		if short == "" {
			return ""
		}
		return short + " "
	}
	ccpa := f.HasLaw(lawCCPA)
	// cite picks the provision for the document's law family.
	cite := func(gdprCite, ccpaCite, caloppaCite string) string {
		switch {
		case gdpr:
			return prefix() + gdprCite
		case ccpa && ccpaCite != "":
			return ccpaCite
		}
		return caloppaCite
	}

	if req.ContactEmail == "" {
		add("contactEmail", "The policy must say how to reach the business about personal data and where to send requests; each of those places shows a placeholder.",
			cite("Art. 13(1)(a), 13(2)(b)", "Cal. Civ. Code § 1798.130(a)(1), (a)(5)(A); 11 CCR § 7011(e)(3)", "Cal. Bus. & Prof. Code § 22575(b)(1)"))
	}
	if !f.hostKnown() {
		add("hostingProvider", "Every website has a host that receives each visitor's IP address and device information; the policy must name it as a recipient (a catalog service such as \"AWS\" or \"Shopify\", or the provider's name).",
			cite("Art. 13(1)(e)", "Cal. Civ. Code § 1798.130(a)(5)(C)(ii)", "Cal. Bus. & Prof. Code § 22575(b)(1)"))
	}
	for _, name := range f.Unknown {
		field := "thirdPartyServices"
		if name == req.HostingProvider {
			field = "hostingProvider"
		}
		why := fmt.Sprintf("%q is not in the service catalog, so the policy cannot say who provides it, what it receives, where, or under which safeguard.", name)
		if sug := suggest(name, ServiceIDs()); len(sug) > 0 {
			why += " Did you mean " + quoteOr(sug) + "?"
		} else {
			why += " Choose the catalog entry it corresponds to (GET /v1/catalog)."
		}
		add(field, why,
			cite("Art. 13(1)(e)-(f)", "Cal. Civ. Code § 1798.130(a)(5)(B)(iv)", "Cal. Bus. & Prof. Code § 22575(b)(1)"))
	}
	if f.AnalyticsCookiesAssumed {
		add("thirdPartyServices", "usesAnalytics is true but no analytics tool is named: name it so that its cookies, their durations and its provider can be listed.",
			cite("Art. 13(1)(e); Directive 2002/58/EC Art. 5(3)", "Cal. Civ. Code § 1798.130(a)(5)(B)(iv)", "Cal. Bus. & Prof. Code § 22575(b)(1), (b)(6)"))
	}
	if gdpr {
		regimes := f.transferRegimes()
		// rprefix is the short name of r's GDPR-family law, for citations.
		rprefix := func(r *catalog.Jurisdiction) string {
			for i := range f.Laws {
				if l := &f.Laws[i]; (l.ID == lawGDPR || l.ID == lawUKGDPR) && slices.Contains(l.Jurisdictions, r.ID) {
					return l.ShortName + " "
				}
			}
			return prefix()
		}
		if req.EstablishedIn == "" {
			var regions []string
			for _, r := range regimes {
				regions = append(regions, r.Region)
			}
			add("establishedIn", "The country where the business is established decides whether the policy must name a representative in the "+strings.Join(regions, " or the ")+" (Art. 27).", prefix()+"Art. 13(1)(a), Art. 27")
		} else {
			for i := range regimes {
				r := &regimes[i]
				if f.needsRepresentativeAt(regimes, i) && f.representativeFor(r) == "" {
					add(r.RepresentativeField, "A business not established in the "+r.Region+" that offers goods or services to people there names its representative there; the policy shows a placeholder.", rprefix(r)+"Art. 13(1)(a), Art. 27")
				}
			}
		}
		// A transfer out of a region must name its safeguard (Art.
		// 13(1)(f)); where the catalog records none, the business does.
		// What follows the service's name, and the citation, are the
		// regime's: made once per regime, not once per service. Only a
		// regime with such a transfer (regimeNone) has its services
		// gone through.
		for i := range regimes {
			if !f.scr.regimeNone.has(i) {
				continue
			}
			r := &regimes[i]
			var why, citation string
			for j := range f.Services {
				sv := &f.Services[j]
				if out, basis := f.transferOf(i, j); out && basis == basisNone {
					if why == "" {
						why = " may receive personal data outside the " + r.Region + " and the catalog records no safeguard for it; give the mechanism your contract with the provider relies on (" +
							strings.Join(r.TransferMechanisms, ", ") + ")."
						citation = rprefix(r) + "Art. 13(1)(f), Art. 46"
					}
					add("transferSafeguards."+sv.ID, sv.Name+why, citation)
				}
			}
		}
		if f.Set[compliance.FactSetsNonEssentialCookies] && req.ConsentBanner == nil {
			add("consentBanner", "Non-essential cookies are used: the policy must say whether consent is asked for before they are set (true) or not (false).", cookieCite(f))
		}
	}
	if ccpa {
		switch {
		case req.OnlineOnly == nil:
			add("onlineOnly", "A business that operates exclusively online may offer email alone for CCPA requests; any other business must also offer a toll-free number.", "Cal. Civ. Code § 1798.130(a)(1)(A)")
		case !*req.OnlineOnly && req.TollFreeNumber == "":
			add("tollFreeNumber", "A business that does not operate exclusively online must offer a toll-free telephone number for CCPA requests; the policy shows a placeholder.", "Cal. Civ. Code § 1798.130(a)(1)(A)")
		}
		if f.Set[compliance.FactSellsOrShares] && req.OptOutLink == nil {
			add("optOutLink", "Personal data is sold or shared: the policy must say how to opt out, and it may describe the \"Do Not Sell or Share My Personal Information\" link and the processing of opt-out preference signals only if the website has them.", "Cal. Civ. Code § 1798.135(a); 11 CCR §§ 7011(e)(3)(C), (F), 7025")
		}
		if f.Set[compliance.FactSellsOrShares] && req.SellsMinorsData == nil {
			add("sellsMinorsData", "The policy must say whether the business has actual knowledge that it sells or shares the personal information of consumers under 16; it shows a placeholder.", "11 CCR § 7011(e)(1)(G); Cal. Civ. Code § 1798.120(c)")
		}
	}
	if f.CCPACovers && req.CCPAThresholdsMet == nil {
		add("ccpaThresholdsMet", "The CCPA applies only to a business that meets a threshold of § 1798.140(d)(1) (revenue, 100,000 consumers or households, or half its revenue from selling or sharing); the policy includes the CCPA sections until you say.", "Cal. Civ. Code § 1798.140(d)(1)")
	}
	out = append(out, todosJ1(f)...)
	// The shared todos above cite the GDPR, the CCPA or CalOPPA; a document
	// under none of them cites its own law for the same inputs.
	if !gdpr && !f.HasLaw(lawCCPA) && !f.HasLaw("caloppa") {
		for i := range out {
			if c := localCitation(f, out[i].Field); c != "" {
				out[i].Citation = c
			}
		}
	}
	out = todosUSFederal(f, out) // issue 8, part j6 (us_federal.go)
	out = todosJ2(f, out)        // issue 8, part j2 (j2.go)
	// Issue 8, part j3: the Asia-Pacific laws' own citations and inputs.
	out = todosJ3(f, out)
	return out
}

// j3Laws are the laws of issue 8, part j3 (JP, KR, CN, TH).
var j3Laws = []string{"appi", "pipa", "pipl", "th-pdpa", "it-spdi"}

// j3Recipient is, for a j3 law id, its provision on naming the recipients
// (the todos hostingProvider and thirdPartyServices), or "". A switch,
// not a map, so that no package init builds it at a Lambda cold start.
func j3Recipient(law string) string {
	switch law {
	case "appi":
		return "APPI Art. 27(5)(i)"
	case "pipa":
		return "PIPA Art. 30(1)(3)-(4)"
	case "pipl":
		return "PIPL Art. 17(1)(II)"
	case "th-pdpa":
		return "PDPA s 23(4)"
	case "it-spdi":
		return "IT (SPDI) Rules 2011, r 4(iv)"
	}
	return ""
}

// todosJ3 adapts the todos to the j3 laws (issue 8, part j3), from their
// checklists: a document under none of the GDPR, the CCPA or CalOPPA cites
// its own law's requirements for the shared todos, and a field that an
// applicable requirement "needs" and the request lacks (postalAddress or
// dpoContact, for which no shared todo exists) is a todo with that requirement's missingFix.
func todosJ3(f *Facts, out []compliance.Todo) []compliance.Todo {
	if !f.HasLaw(j3Laws...) {
		return out
	}
	// needs returns the citations and the first missingFix of the
	// applicable j3 requirements that need field.
	needs := func(field string) (cite, fix string) {
		var cites []string
		for _, l := range f.Laws {
			if !slices.Contains(j3Laws, l.ID) {
				continue
			}
			for _, r := range l.Requirements {
				if slices.Contains(r.Needs, field) && f.Set.Holds(r.AppliesWhen) {
					cites = append(cites, r.Citation)
					if fix == "" {
						fix = r.MissingFix
					}
				}
			}
		}
		return strings.Join(cites, "; "), fix
	}
	if !f.gdprFamily() && !f.HasLaw(lawCCPA) && !f.HasLaw("caloppa") {
		for i := range out {
			field := out[i].Field
			if c, _ := needs(field); c != "" {
				out[i].Citation = c
				continue
			}
			if field == "hostingProvider" || strings.HasPrefix(field, "thirdPartyServices") {
				var cites []string
				for _, l := range f.Laws {
					if c := j3Recipient(l.ID); c != "" {
						cites = append(cites, c)
					}
				}
				if len(cites) > 0 {
					out[i].Citation = strings.Join(cites, "; ")
				}
			}
		}
	}
	for _, m := range []struct{ field, value string }{
		{"postalAddress", f.Request.PostalAddress},
		{"dpoContact", f.Request.DPOContact},
	} {
		if m.value != "" {
			continue
		}
		if c, fix := needs(m.field); c != "" {
			out = append(out, compliance.Todo{Field: m.field, Why: fix + " The policy shows a placeholder.", Citation: c})
		}
	}
	return out
}

// neededInputs are the todos of a document type other than the privacy
// policy: each request field that an applicable checklist item needs
// ("needs") and the request leaves out, once, with the first such item's
// missingFix and citation.
func neededInputs(f *Facts) []compliance.Todo {
	var out []compliance.Todo
	for _, r := range f.applicable {
		for _, field := range r.Needs {
			missing := inputMissing(f.Request, field)
			if field == "thirdPartyServices" { // cookie policy (issue 8, t2): services it cannot list
				missing = f.AnalyticsCookiesAssumed || len(f.Unknown) > 0
			}
			if !missing || slices.ContainsFunc(out, func(t compliance.Todo) bool { return t.Field == field }) {
				continue
			}
			out = append(out, compliance.Todo{Field: field, Why: r.MissingFix, Citation: r.Citation})
		}
	}
	return out
}

// todosJ1 are the inputs the Canadian, Brazilian and Swiss laws add
// (issue 8, part j1).
func todosJ1(f *Facts) []compliance.Todo {
	req := &f.Request
	var out []compliance.Todo
	add := func(field, why, cite string) {
		out = append(out, compliance.Todo{Field: field, Why: why, Citation: cite})
	}
	if f.HasLaw(lawPIPEDA) && req.ServesQuebec == nil {
		add("servesQuebec", "Say whether the business serves people in Québec (true or false). Quebec's private-sector Act, as amended by Law 25, then applies besides PIPEDA and adds its own notice items and a person in charge to name; until you say, the policy covers PIPEDA only.", "CQLR c. P-39.1, s. 1")
	}
	if f.HasLaw(lawQuebec) && req.PrivacyOfficer == "" {
		add("privacyOfficer", "The title and contact information of the person in charge of the protection of personal information must be published on the website (by default the person with the highest authority in the business); the policy shows a placeholder.", "CQLR c. P-39.1, s. 3.1")
	}
	// s. 8.1: the policy says how the identifying, locating or profiling
	// functions are activated; the GDPR family asks the same question.
	if f.HasLaw(lawQuebec) && !f.gdprFamily() && f.Set[compliance.FactSetsNonEssentialCookies] && req.ConsentBanner == nil {
		add("consentBanner", "Non-essential cookies or similar technologies can identify, locate or profile visitors: say whether they stay off until the visitor accepts them in a cookie banner (true) or not (false).", "CQLR c. P-39.1, s. 8.1")
	}
	if f.HasLaw(lawLGPD) && req.DPOContact == "" && (req.SmallProcessingAgent == nil || !*req.SmallProcessingAgent) {
		add("dpoContact", "The identity and contact information of the encarregado (the person in charge of processing personal data) must be disclosed publicly, preferably on the website; the policy shows a placeholder. A small-scale processing agent (a micro or small business or startup within the revenue limits, not doing high-risk processing) need not appoint one but must offer a channel for data subjects: then send smallProcessingAgent true instead.", "LGPD Art. 41, § 1; Resolução CD/ANPD nº 2/2022, Art. 11")
	}
	if f.HasLaw(lawFADP) {
		// Art. 19(4): a disclosure abroad names the State and the guarantee;
		// where the State is not on the Federal Council's list and the
		// catalog records no guarantee, the business gives it.
		for i := range f.Regimes {
			ch := &f.Regimes[i]
			if !f.scr.regimeNone.has(i) || !f.lawCovers(lawFADP, ch.ID) {
				continue
			}
			var why string // what follows the service's name, made once
			for j := range f.Services {
				sv := &f.Services[j]
				if out, basis := f.transferOf(i, j); out && basis == basisNone {
					if why == "" {
						why = " may receive personal data outside Switzerland, in a State this policy does not record as adequate, and the catalog records no guarantee for it; give the guarantee your contract with the provider relies on (" +
							strings.Join(ch.TransferMechanisms, ", ") + ")."
					}
					add("transferSafeguards."+sv.ID, sv.Name+why, "FADP Art. 19(4), Art. 16(2)")
				}
			}
		}
	}
	return out
}

// inputMissing reports whether req leaves out a field of
// compliance.NeedFields.
func inputMissing(req Request, field string) bool {
	switch field {
	case "contactEmail":
		return req.ContactEmail == ""
	case "postalAddress":
		return req.PostalAddress == ""
	case "phone":
		return req.Phone == ""
	case "governingLaw":
		return req.GoverningLaw == ""
	case "subscriptions":
		return !req.Subscriptions.Complete()
	case "minimumAge":
		return req.MinimumAge == 0
	// Cookie policy and disclaimer (issue 8, t2).
	case "consentBanner":
		return req.ConsentBanner == nil
	case "affiliateLinks":
		return req.AffiliateLinks == nil
	// Shipping policy (issue 8, t4).
	case "shippingRegions":
		return len(req.ShippingRegions) == 0
	case "dispatchDays":
		return req.DispatchDays == nil
	// Refund policy (issue 8, t3).
	case "refundWindowDays":
		return req.RefundWindowDays == nil
	case "returnShippingPaidBy":
		return req.ReturnShippingPaidBy == ""
	}
	return false
}

// localCitation is the provision of the document's own law (PIPEDA, LGPD
// or FADP) behind a shared todo's field, or "".
func localCitation(f *Facts, field string) string {
	if strings.HasPrefix(field, "thirdPartyServices") {
		field = "thirdPartyServices"
	}
	cites := map[string][3]string{ // PIPEDA, LGPD, FADP
		"contactEmail":       {"PIPEDA Sch. 1, cl. 4.8.2(a)-(b)", "LGPD Art. 9, IV", "FADP Art. 19(2)(a)"},
		"hostingProvider":    {"PIPEDA s. 6.1; Sch. 1, cl. 4.8", "LGPD Art. 9, V", "FADP Art. 19(2)(c), (4)"},
		"thirdPartyServices": {"PIPEDA s. 6.1; Sch. 1, cl. 4.8", "LGPD Art. 9, V", "FADP Art. 19(2)(c), (4)"},
	}
	c, ok := cites[field]
	if !ok {
		return ""
	}
	switch {
	case f.HasLaw(lawPIPEDA):
		return c[0]
	case f.HasLaw(lawLGPD):
		return c[1]
	case f.HasLaw(lawFADP):
		return c[2]
	}
	return ""
}

// cookieCite is the provision on cookie consent of the document's cookie
// law, as the flag catalog cites it.
func cookieCite(f *Facts) string {
	d, _ := compliance.Lookup("cookie_consent_required")
	for i := range f.Laws {
		if c, ok := d.Citation(f.Laws[i].ShortName); ok {
			return c
		}
	}
	return ""
}

// Status is the publication status of a document with todos.
func Status(todos []compliance.Todo) string {
	if len(todos) > 0 {
		return StatusNeedsInput
	}
	return StatusReady
}

// sectorLaws are the sector laws a business type raises flags for.
func sectorLaws(f *Facts) []string {
	bt, ok := cat().BusinessType(f.Request.BusinessType)
	if !ok || !f.usSectorLaws() {
		return nil
	}
	out := slices.Clone(bt.SectorLaws)
	// A website directed to children is under COPPA whatever its business
	// type (issue 8, part j6).
	if f.Set[compliance.FactDirectedToChildren] && !slices.Contains(out, "COPPA") {
		out = append(out, "COPPA")
	}
	slices.SortFunc(out, strings.Compare)
	return out
}
