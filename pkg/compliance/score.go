package compliance

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Input is what the score and the flags are computed from: facts,
// applicable requirements and what the request left out. Never the text.
type Input struct {
	Jurisdiction string
	Laws         []Law // the laws that apply
	Facts        FactSet
	Applicable   []Requirement
	Services     int // how many third-party services were requested
	// Missing lists optional request fields that were not given.
	Missing []string
	// Implied lists request flags that were false although a requested
	// service implies them (usesAnalytics, collectsPayments).
	Implied []string
	// UnsafeguardedTransfers names services whose international transfer
	// has no known adequacy decision or safeguard.
	UnsafeguardedTransfers []string
	// NoCookieDetails is true when non-essential cookies are set but no
	// requested service lists them.
	NoCookieDetails bool
}

// Assessment is the risk score and the findings of one document.
type Assessment struct {
	Score int
	Level string
	Flags []Flag
}

// Risk levels and the lowest score of each (docs/SCORING.md).
const (
	LevelLow      = "low"
	LevelMedium   = "medium"
	LevelHigh     = "high"
	LevelCritical = "critical"
)

// Points of the score (docs/SCORING.md explains each).
const (
	pointsError         = 20
	pointsWarning       = 8
	pointsInfo          = 1
	maxInfoPoints       = 5
	pointsSellsOrShares = 15
	pointsTransfers     = 10
	pointsCookies       = 5
	pointsSensitive     = 5
	pointsPayments      = 5
	pointsAnalytics     = 5
	pointsPerService    = 1
	maxServicePoints    = 10
)

// Level returns the risk level of a score.
func Level(score int) string {
	switch {
	case score >= 75:
		return LevelCritical
	case score >= 50:
		return LevelHigh
	case score >= 25:
		return LevelMedium
	}
	return LevelLow
}

// Assess computes the flags and the score. It is deterministic: flags are
// ordered by severity, then code, then law.
func Assess(in Input) Assessment {
	flags := Flags(in)
	score := Exposure(in.Facts, in.Services)
	info := 0
	for _, f := range flags {
		switch f.Severity {
		case SeverityError:
			score += pointsError
		case SeverityWarning:
			score += pointsWarning
		case SeverityInfo:
			info += pointsInfo
		}
	}
	score += min(info, maxInfoPoints)
	score = min(score, 100)
	return Assessment{Score: score, Level: Level(score), Flags: flags}
}

// Exposure is the part of the score that comes from what the business does
// with personal data, before any finding.
func Exposure(f FactSet, services int) int {
	score := min(services*pointsPerService, maxServicePoints)
	for fact, pts := range map[string]int{
		FactSellsOrShares:           pointsSellsOrShares,
		FactInternationalTransfers:  pointsTransfers,
		FactSetsNonEssentialCookies: pointsCookies,
		FactCollectsSensitive:       pointsSensitive,
		FactCollectsPayments:        pointsPayments,
		FactUsesAnalytics:           pointsAnalytics,
	} {
		if f[fact] {
			score += pts
		}
	}
	return score
}

var severityOrder = map[Severity]int{SeverityError: 0, SeverityWarning: 1, SeverityInfo: 2}

// Flags computes the compliance flags of in.
func Flags(in Input) []Flag {
	var out []Flag
	has := func(law string) *Law {
		for i := range in.Laws {
			if in.Laws[i].ID == law {
				return &in.Laws[i]
			}
		}
		return nil
	}
	gdprLaw := has("gdpr")
	if gdprLaw == nil {
		gdprLaw = has("uk-gdpr")
	}
	ccpa := has("ccpa")

	// A missing field some applicable requirement needs: one flag per law
	// and field, citing every requirement affected.
	for _, field := range in.Missing {
		for _, law := range in.Laws {
			var cites []string
			fix := ""
			for _, r := range in.Applicable {
				if r.Law == law.ID && slices.Contains(r.Needs, field) {
					cites = append(cites, r.Citation)
					if fix == "" {
						fix = r.MissingFix
					}
				}
			}
			if len(cites) == 0 {
				continue
			}
			out = append(out, Flag{
				Code:     "missing_" + snake(field),
				Severity: SeverityError,
				Law:      law.ShortName,
				Citation: strings.Join(cites, "; "),
				Message:  fmt.Sprintf("The request has no %s, which these %s disclosures need; the policy shows a visible placeholder in its place.", field, law.ShortName),
				Fix:      fix,
			})
		}
	}
	if slices.Contains(in.Missing, "postalAddress") {
		switch {
		case ccpa != nil:
			out = append(out, Flag{
				Code: "missing_postal_address", Severity: SeverityWarning, Law: ccpa.ShortName,
				Citation: citeMethods,
				Message:  "The request has no postalAddress, so the policy offers only email as a method for submitting requests. The CCPA requires two or more designated methods unless the business operates exclusively online and has a direct relationship with the consumer (Cal. Civ. Code § 1798.130(a)(1)(A); 11 CCR § 7020).",
				Fix:      "Add postalAddress (or another designated method) to the request.",
			})
		case gdprLaw != nil:
			out = append(out, Flag{
				Code: "missing_postal_address", Severity: SeverityInfo, Law: gdprLaw.ShortName,
				Citation: gdprLaw.citePrefix() + "Art. 13(1)(a)",
				Message:  "The request has no postalAddress; the policy shows a placeholder where the controller's postal contact details would be.",
				Fix:      "Add postalAddress to the request.",
			})
		}
	}
	if ccpa != nil {
		out = append(out, Flag{
			Code: "ccpa_toll_free_number", Severity: SeverityWarning, Law: ccpa.ShortName,
			Citation: citeMethods,
			Message:  "The policy lists email and post as methods for submitting requests. Unless the business operates exclusively online and has a direct relationship with consumers, the CCPA also requires a toll-free telephone number (Cal. Civ. Code § 1798.130(a)(1)(A); 11 CCR § 7020), which the request cannot supply.",
			Fix:      "If you are not an exclusively online business, add a toll-free number to the \"How to submit a request\" section.",
		})
		out = append(out, Flag{
			Code: "ccpa_web_request_method", Severity: SeverityInfo, Law: ccpa.ShortName,
			Citation: citeMethods,
			Message:  "A business with a website must make it available for submitting requests (Cal. Civ. Code § 1798.130(a)(1)(B)). The request does not say whether the website has a request form, so the policy names email and post only.",
			Fix:      "If your website has a privacy request form or portal, add its link to the \"How to submit a request\" part of the policy.",
		})
		if in.Facts[FactSellsOrShares] {
			out = append(out,
				Flag{
					Code: "ccpa_opt_out_link", Severity: SeverityWarning, Law: ccpa.ShortName,
					Citation: "Cal. Civ. Code § 1798.135(c)(2); 11 CCR § 7011(e)(3)(C)",
					Message:  "A requested service receives personal information as a third party (sale or sharing). The business must offer a \"Do Not Sell or Share My Personal Information\" link (or the alternative opt-out link) and honour opt-out preference signals such as Global Privacy Control (Cal. Civ. Code § 1798.135(a); 11 CCR §§ 7013, 7025, 7026); the policy says it does.",
					Fix:      "Add the opt-out link to your homepage header or footer and process Global Privacy Control signals, or remove the advertising services.",
				},
				Flag{
					Code: "ccpa_minors_statement", Severity: SeverityWarning, Law: ccpa.ShortName,
					Citation: "11 CCR § 7011(e)(1)(G)",
					Message:  "The policy must say whether the business has actual knowledge that it sells or shares personal information of consumers under 16 (see also Cal. Civ. Code § 1798.120(c)); the request does not say, so the policy shows a placeholder.",
					Fix:      "Replace the placeholder with your statement; if you do have such knowledge, you need opt-in consent (11 CCR §§ 7070, 7071).",
				})
		}
		if in.Facts[FactCollectsSensitive] {
			out = append(out, Flag{
				Code: "ccpa_sensitive_limited_use", Severity: SeverityInfo, Law: ccpa.ShortName,
				Citation: "11 CCR § 7011(e)(1)(K)",
				Message:  "The policy states that sensitive personal information (account log-in credentials) is used only for the purposes permitted by 11 CCR § 7027(m), so no \"Limit the Use of My Sensitive Personal Information\" link is offered (Cal. Civ. Code § 1798.121).",
				Fix:      "If you use sensitive personal information for other purposes, add the right-to-limit notice and link.",
			})
		}
	}
	if gdprLaw != nil {
		p := gdprLaw.citePrefix()
		out = append(out,
			Flag{
				Code: "dpo_not_provided", Severity: SeverityInfo, Law: gdprLaw.ShortName,
				Citation: p + "Art. 13(1)(b)",
				Message:  "The request cannot say whether a data protection officer has been designated (Art. 37); the policy shows a placeholder for the DPO's contact details.",
				Fix:      "Insert your DPO's contact details, or remove the sentence if you have not designated one (a DPO is mandatory only in the cases of Art. 37).",
			},
			Flag{
				Code: "automated_decisions_assumed", Severity: SeverityInfo, Law: gdprLaw.ShortName,
				Citation: p + "Art. 13(2)(f)",
				Message:  "The policy states that no decisions based solely on automated processing with legal or similarly significant effects are made (" + automatedArticles(in.Jurisdiction) + ").",
				Fix:      "If you make such decisions (for example automatic credit or fraud refusals), describe the logic involved and its consequences.",
			},
			Flag{
				Code: "representative_not_provided", Severity: SeverityInfo, Law: gdprLaw.ShortName,
				Citation: p + "Art. 13(1)(a)",
				Message:  "If the business is not established in the " + regionName(in.Jurisdiction) + " but offers goods or services to people there, it must appoint a representative (Art. 27) and name it in the policy.",
				Fix:      "Add your Art. 27 representative's name and contact details if you need one.",
			})
		for _, name := range in.UnsafeguardedTransfers {
			out = append(out, Flag{
				Code: "transfer_safeguard_unknown", Severity: SeverityWarning, Law: gdprLaw.ShortName,
				Citation: p + "Art. 13(1)(f)",
				Message:  fmt.Sprintf("%s receives personal data outside the %s, and the catalog records no adequacy decision or safeguard for the transfer (Chapter V); the policy shows a placeholder.", name, regionName(in.Jurisdiction)),
				Fix:      "Confirm the transfer mechanism (for example standard contractual clauses) in the provider's data processing terms and state it in the policy.",
			})
		}
		if in.Facts[FactSetsNonEssentialCookies] {
			law, cite := "ePrivacy Directive", "Directive 2002/58/EC Art. 5(3)"
			if in.Jurisdiction == "UK" {
				law, cite = "PECR", "PECR reg. 6 and Sch. A1 para. 2(1)(b)"
			}
			for _, l := range in.Laws {
				if l.ID == "eprivacy" || l.ID == "pecr" {
					law = l.ShortName
				}
			}
			out = append(out, Flag{
				Code: "cookie_consent_required", Severity: SeverityWarning, Law: law,
				Citation: cite,
				Message:  "Non-essential cookies or similar technologies (analytics, advertising or embedded content) are used. They may be set only after the user's prior consent, and the policy says so.",
				Fix:      "Use a consent banner that blocks these cookies until the user opts in and lets them withdraw consent as easily.",
			})
		}
	}
	if in.NoCookieDetails {
		law := ""
		if gdprLaw != nil {
			law = gdprLaw.ShortName
		} else if ccpa != nil {
			law = ccpa.ShortName
		}
		out = append(out, Flag{
			Code: "cookie_details_missing", Severity: SeverityWarning, Law: law,
			Citation: cookieCitation(in.Jurisdiction),
			Message:  "usesAnalytics is true but no analytics service is named, so the policy assumes the tool sets cookies and cannot name them or their duration; it shows a placeholder.",
			Fix:      "Add your analytics tool to thirdPartyServices.",
		})
	}
	for _, field := range in.Implied {
		law, cite := primary(in)
		out = append(out, Flag{
			Code: "implied_" + snake(field), Severity: SeverityWarning, Law: law,
			Citation: cite,
			Message:  fmt.Sprintf("%s is false, but a requested service implies it; the policy discloses the processing that service performs.", field),
			Fix:      fmt.Sprintf("Set %s to true, or remove the service if you do not use it.", field),
		})
	}
	if !in.Facts[FactHasThirdPartyServices] {
		law, _ := primary(in)
		cite := "Art. 13(1)(e)"
		if gdprLaw != nil {
			cite = gdprLaw.citePrefix() + cite
		} else {
			cite = "Cal. Civ. Code § 1798.130(a)(5)(B)(iv)"
		}
		out = append(out, Flag{
			Code: "no_third_party_services", Severity: SeverityInfo, Law: law,
			Citation: cite,
			Message:  "No third-party services were listed, so the policy says that no service provider receives personal information.",
			Fix:      "List every service that receives personal data (hosting, email, payments, analytics) in thirdPartyServices.",
		})
	}
	// Checklist items whose condition the request cannot express.
	for _, l := range in.Laws {
		for _, r := range l.NotModelled {
			out = append(out, Flag{
				Code: "not_modelled", Severity: SeverityInfo, Law: l.ShortName,
				Citation: r.Citation,
				Message:  r.Title + ": " + r.Disclose,
				Fix:      r.MissingFix,
			})
		}
	}
	slices.SortStableFunc(out, func(a, b Flag) int {
		return cmp.Or(
			cmp.Compare(severityOrder[a.Severity], severityOrder[b.Severity]),
			strings.Compare(a.Code, b.Code),
			strings.Compare(a.Law, b.Law),
			strings.Compare(a.Citation, b.Citation),
		)
	})
	return out
}

// citeMethods are the checklist items on the methods for submitting
// requests, which the CCPA request-method flags concern.
const citeMethods = "Cal. Civ. Code § 1798.130(a)(5)(A); 11 CCR § 7011(e)(3)(A)"

// automatedArticles names the rules on solely automated decisions: the
// UK replaced Art. 22 with Arts. 22A-22D (Data (Use and Access) Act 2025 s. 80).
func automatedArticles(jurisdiction string) string {
	if jurisdiction == "UK" {
		return "Arts. 22A-22D"
	}
	return "Art. 22"
}

// citePrefix is how citations of this law start ("GDPR " or "UK GDPR ").
func (l *Law) citePrefix() string { return l.ShortName + " " }

func regionName(jurisdiction string) string {
	if jurisdiction == "UK" {
		return "UK"
	}
	return "EEA"
}

func cookieCitation(jurisdiction string) string {
	switch jurisdiction {
	case "UK":
		return "PECR reg. 6 and Sch. A1 para. 2(1)(a)"
	case "EU":
		return "Directive 2002/58/EC Art. 5(3)"
	}
	return "Cal. Civ. Code § 1798.100(a)(1)"
}

// primary returns the main law of the jurisdiction and its purposes citation.
func primary(in Input) (string, string) {
	for _, l := range in.Laws {
		switch l.ID {
		case "gdpr", "uk-gdpr":
			return l.ShortName, l.citePrefix() + "Art. 13(1)(c)"
		case "ccpa":
			return l.ShortName, "Cal. Civ. Code § 1798.100(a)(1)"
		}
	}
	return "", ""
}

// snake turns a camelCase field name into snake_case for a flag code.
func snake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
