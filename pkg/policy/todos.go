package policy

import (
	"fmt"
	"slices"
	"strings"

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
	req := f.Request
	var out []compliance.Todo
	add := func(field, why, cite string) {
		out = append(out, compliance.Todo{Field: field, Why: why, Citation: cite})
	}
	gdpr := f.gdprFamily()
	prefix := ""
	for _, l := range f.Laws {
		if l.ID == lawGDPR || l.ID == lawUKGDPR {
			prefix = l.ShortName + " "
		}
	}
	ccpa := f.HasLaw(lawCCPA)
	// cite picks the provision for the document's law family.
	cite := func(gdprCite, ccpaCite, caloppaCite string) string {
		switch {
		case gdpr:
			return prefix + gdprCite
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
		switch {
		case req.EstablishedIn == "":
			add("establishedIn", "The country where the business is established decides whether the policy must name a representative in the "+f.Jurisdiction.Region+" (Art. 27).", prefix+"Art. 13(1)(a), Art. 27")
		case f.needsRepresentative() && f.representative() == "":
			add(f.Jurisdiction.RepresentativeField, "A business not established in the "+f.Jurisdiction.Region+" that offers goods or services to people there names its representative there; the policy shows a placeholder.", prefix+"Art. 13(1)(a), Art. 27")
		}
		// A transfer out of the region must name its safeguard (Art.
		// 13(1)(f)); where the catalog records none, the business does.
		for _, sv := range f.Services {
			if sv.Transfer && transferBasis(f.Jurisdiction, sv) == basisNone {
				add("transferSafeguards."+sv.ID, fmt.Sprintf("%s may receive personal data outside the %s and the catalog records no safeguard for it; give the mechanism your contract with the provider relies on (%s).",
					sv.Name, f.Jurisdiction.Region, strings.Join(f.Jurisdiction.TransferMechanisms, ", ")), prefix+"Art. 13(1)(f), Art. 46")
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
	// Issue 8, part j3: the Asia-Pacific laws' own citations and inputs.
	out = todosJ3(f, out)
	return out
}

// j3Laws are the laws of issue 8, part j3 (JP, KR, CN, TH).
var j3Laws = []string{"appi", "pipa", "pipl", "th-pdpa", "it-spdi"}

// todosJ3 adapts the todos to the j3 laws (issue 8, part j3), from their
// checklists: a document under none of the GDPR, the CCPA or CalOPPA cites
// its own law's requirements for the shared todos, and a field that an
// applicable requirement "needs" and the request lacks (postalAddress or
// dpoContact, for which no shared todo exists) is a todo with that requirement's missingFix.
func todosJ3(f *Facts, out []compliance.Todo) []compliance.Todo {
	if !slices.ContainsFunc(f.Laws, func(l compliance.Law) bool { return slices.Contains(j3Laws, l.ID) }) {
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
	// Recipients (hostingProvider, thirdPartyServices) per law.
	recipients := map[string]string{
		"appi":    "APPI Art. 27(5)(i)",
		"pipa":    "PIPA Art. 30(1)(3)-(4)",
		"pipl":    "PIPL Art. 17(1)(II)",
		"th-pdpa": "PDPA s 23(4)",
		"it-spdi": "IT (SPDI) Rules 2011, r 4(iv)",
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
					if c, ok := recipients[l.ID]; ok {
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

// cookieCite is the provision on cookie consent of the document's cookie
// law, as the flag catalog cites it.
func cookieCite(f *Facts) string {
	d, _ := compliance.Lookup("cookie_consent_required")
	for _, l := range f.Laws {
		if c, ok := d.Citations[l.ShortName]; ok {
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
	if !ok || !f.Jurisdiction.USSectorLaws {
		return nil
	}
	out := slices.Clone(bt.SectorLaws)
	slices.SortFunc(out, strings.Compare)
	return out
}
