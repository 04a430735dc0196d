package compliance

import (
	"slices"
	"strings"
	"sync"
)

// Input is what the score and the flags are computed from: the facts of
// the business's practices and the applicable law. Never the text, and
// never what the request left out: missing inputs are to-dos, not risk.
type Input struct {
	// Type is the document type ("" is DefaultType): only the factors and
	// flags that concern it count (FactorModel.Types, Definition.Types).
	Type         string
	Jurisdiction string
	// Jurisdictions are the ids of every jurisdiction the document is
	// for, the primary one included.
	Jurisdictions []string
	Laws          []Law // the laws that apply to the document's type
	Facts         FactSet
	Services      int // third-party services the catalog describes (the host included)
	// Implied lists request flags that were false although a requested
	// service implies them (usesAnalytics, collectsPayments).
	Implied []string
	// UnsafeguardedTransfers names services whose international transfer
	// has no known adequacy decision or safeguard.
	// By the id of the law (gdpr, uk-gdpr) under which the safeguard is
	// missing.
	UnsafeguardedTransfers map[string][]string
	// TransferLaws are the ids of the document's laws that regulate
	// transfers out of their region (Law.RegulatesTransfers) and under
	// which personal data leaves that region; ContractualTransferLaws are
	// those of them under which a transfer rests on contractual safeguards
	// only, or on none the catalog knows of (no adequacy decision or DPF
	// certification). Both in the order of Laws. A law without transfer
	// rules is never one of them, whatever the providers' countries.
	TransferLaws            []string
	ContractualTransferLaws []string
	// JointControllers names services whose providers are joint controllers.
	JointControllers []string
	// UnknownServices names services the catalog does not describe.
	UnknownServices []string
	ConsentBanner   *bool // nil: not stated
	OptOutLink      *bool // the website offers the CCPA opt-out link and processes signals; nil: not stated
	EmailTracking   bool  // an email marketing or CRM service is used
	SellsMinorsData bool
	DPOStated       bool
	CCPAExempt      bool     // the business meets no CCPA threshold
	SectorLaws      []string // HIPAA, FERPA, COPPA, GLBA: from the business type
	SpecialCategory bool     // the business type suggests GDPR Art. 9 data

	// Contract documents (terms, eula, refund). RefundWindowDays is the
	// request's change-of-mind returns window; nil when not stated.
	RefundWindowDays *int
	// GoverningLawOutside lists the jurisdictions (ids) whose countries do
	// not include the country of the contract's chosen law
	// (governingLaw); empty when no law is chosen.
	GoverningLawOutside []string
}

// Assessment is the risk score, its factors and the findings of one document.
type Assessment struct {
	Score   int
	Level   string
	Factors []Factor
	Flags   []Flag
}

// Factor is one contribution to the risk score.
type Factor struct {
	ID     string `json:"id"`
	Points int    `json:"points"`
	Why    string `json:"why"`
}

// Risk levels and the lowest score of each (docs/SCORING.md).
const (
	LevelLow      = "low"
	LevelMedium   = "medium"
	LevelHigh     = "high"
	LevelCritical = "critical"
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

// FactorModel is one factor of the risk model: when it applies, its points
// and why it adds risk. docs/SCORING.md is generated from RiskModel.
type FactorModel struct {
	ID     string
	Points int    // per occurrence, for counted factors
	Max    int    // cap of a counted factor; 0 for a yes/no factor
	Why    string // why it raises the risk of what the document covers (for the types other than privacy, with the law that makes it a risk)
	// Citations, for a factor whose law differs from one document to
	// another, give by law id what that law makes of the practice and where
	// (like the flag catalog's Citations), each law once (Citation looks
	// one up): the laws of the document that have one (only those citeLaws
	// names, when set) replace Why's %s, in the order of Input.Laws. Where
	// none of them has one, Uncited is the reason: a description that
	// names no law. A list, not a map, so that RiskModel is data the
	// linker lays out and no code runs at init to build it, at every
	// Lambda cold start.
	Citations []LawCitation
	Uncited   string
	citeLaws  func(*Input) []string
	// Types are the document types whose risk the factor measures; empty
	// means [DefaultType] (privacy). docs/SCORING.md says why.
	Types []string
	count func(*Input) int
}

// LawCitation is what the law with id Law makes of a factor's practice
// (Says, may be empty) and where it says so (Cite).
type LawCitation struct{ Law, Says, Cite string }

// Citation is m's citation of the law with id law (ok false: m does not
// cite it).
func (m *FactorModel) Citation(law string) (c LawCitation, ok bool) {
	for i := range m.Citations {
		if m.Citations[i].Law == law {
			return m.Citations[i], true
		}
	}
	return LawCitation{}, false
}

// lawCitation is a factor's citation of one embedded law (ok false: it
// has none), with the law's id, by which a law's position is confirmed:
// the positions, in its factorCitations, of its statement and of its
// statement and citation together.
type lawCitation struct {
	id         string
	ok         bool
	says, cite uint8
}

// factorCitations are one factor's citations of the embedded laws, by the
// law's position (Law.pos), each statement and each pair of a statement
// and a citation numbered once: the reason collects the distinct ones by
// those numbers, as bits, rather than comparing each law's citation with
// those collected before (a document of many jurisdictions has some thirty
// US state laws that sellsOrSharesCitations cites).
type factorCitations struct {
	byLaw []lawCitation
	says  []string
	cites []LawCitation // distinct pairs of a statement and a citation (Law "")
}

// lawCitations are, for each factor of RiskModel that cites the
// document's laws (Citations without citeLaws), its factorCitations, made
// on first use from RiskModel as it then is: a document of many
// jurisdictions has sixty laws, which each such factor looked up by id in
// its map. A factor with more than 64 distinct statements or pairs has
// none (why looks its laws up by id).
var lawCitations = sync.OnceValue(func() []*factorCitations {
	out := make([]*factorCitations, len(RiskModel))
	laws, err := Laws()
	if err != nil {
		return out
	}
	for i := range RiskModel {
		m := &RiskModel[i]
		if len(m.Citations) == 0 || m.citeLaws != nil {
			continue
		}
		fc := &factorCitations{byLaw: make([]lawCitation, len(laws)+1)}
		for _, l := range laws {
			c, ok := m.Citation(l.ID)
			e := lawCitation{id: l.ID, ok: ok}
			if ok {
				e.says, e.cite = fc.number(c)
			}
			fc.byLaw[l.pos] = e
		}
		if len(fc.says) <= 64 && len(fc.cites) <= 64 {
			out[i] = fc
		}
	}
	return out
})

// number is the positions of c's statement and of c, whatever its law,
// in fc's lists, adding them there when new.
func (fc *factorCitations) number(c LawCitation) (says, cite uint8) {
	c.Law = ""
	g := slices.Index(fc.says, c.Says)
	if g < 0 {
		g = len(fc.says)
		fc.says = append(fc.says, c.Says)
	}
	k := slices.Index(fc.cites, c)
	if k < 0 {
		k = len(fc.cites)
		fc.cites = append(fc.cites, c)
	}
	return uint8(g), uint8(k)
}

// reasonCites are the citations of a factor's reason: the distinct
// statements, in order of first use, and the distinct citations, each
// with the statement it goes with.
type reasonCites struct {
	says  []string
	cites []reasonCite
}

type reasonCite struct {
	says int
	cite string
}

// add returns r with c's statement and citation, each unless there. A
// value, not a pointer, so that the arrays r's slices start in stay on
// the caller's stack.
func (r reasonCites) add(c *LawCitation) reasonCites {
	g := slices.Index(r.says, c.Says)
	if g < 0 {
		r.says = append(r.says, c.Says)
		g = len(r.says) - 1
	}
	if !slices.Contains(r.cites, reasonCite{g, c.Cite}) {
		r.cites = append(r.cites, reasonCite{g, c.Cite})
	}
	return r
}

// addByPosition adds to r the citations of in's laws through fc, each
// statement and citation once by its number. Every law must be the
// embedded one at its position (lawsEmbedded): one made otherwise or
// renamed has its citation found by its id.
func (r reasonCites) addByPosition(in *Input, fc *factorCitations) reasonCites {
	var saysSeen, citeSeen uint64
	var rank [64]uint8 // a statement's position in r.says, by its number
	out := r
	for i := range in.Laws {
		e := &fc.byLaw[in.Laws[i].pos]
		if !e.ok {
			continue
		}
		if saysSeen&(1<<e.says) == 0 {
			saysSeen |= 1 << e.says
			rank[e.says] = uint8(len(out.says))
			out.says = append(out.says, fc.says[e.says])
		}
		if citeSeen&(1<<e.cite) == 0 {
			citeSeen |= 1 << e.cite
			out.cites = append(out.cites, reasonCite{int(rank[e.says]), fc.cites[e.cite].Cite})
		}
	}
	return out
}

// lawsEmbedded reports whether each of laws is the embedded law at its
// position (Law.pos; a copy of it, ForType's included), by which
// lawCitations holds its citations: Assess asks once for every factor,
// rather than each factor for each law.
func lawsEmbedded(laws []Law) bool {
	loaded, err := Laws()
	if err != nil {
		return false
	}
	for i := range laws {
		if p := laws[i].pos; p <= 0 || p > len(loaded) || loaded[p-1].ID != laws[i].ID {
			return false
		}
	}
	return true
}

// why is m's reason for the document in: Why with the citations of the
// laws that apply, laws that say the same thing sharing one mention. It
// collects the citations in arrays on the stack and writes the reason
// in one string: a factor's reason was a dozen allocations. fc is m's
// lawCitations, given only when in's laws are the embedded ones at their
// positions (lawsEmbedded; nil: the laws' citations are looked up by id).
func (m *FactorModel) why(in *Input, fc *factorCitations) string {
	if len(m.Citations) == 0 {
		return m.Why
	}
	var sb [8]string
	var cb [32]reasonCite
	r := reasonCites{says: sb[:0], cites: cb[:0]}
	switch {
	case m.citeLaws == nil && fc != nil:
		r = r.addByPosition(in, fc)
	case m.citeLaws != nil:
		for _, id := range m.citeLaws(in) {
			if c, ok := m.Citation(id); ok {
				r = r.add(&c)
			}
		}
	default:
		for i := range in.Laws {
			if c, ok := m.Citation(in.Laws[i].ID); ok {
				r = r.add(&c)
			}
		}
	}
	says, cites := r.says, r.cites
	if len(says) == 0 {
		return m.Uncited
	}
	at := strings.Index(m.Why, "%s")
	if at < 0 {
		return m.Why
	}
	// Why with %s replaced by each statement's "says (cite; cite)" (the
	// citations alone for a statement without words), "; " between them.
	var b strings.Builder
	n := len(m.Why)
	for _, s := range says {
		n += len(s) + 5
	}
	for _, c := range cites {
		n += len(c.cite) + 2
	}
	b.Grow(n)
	b.WriteString(m.Why[:at])
	for g, s := range says {
		if g > 0 {
			b.WriteString("; ")
		}
		if s != "" {
			b.WriteString(s)
			b.WriteString(" (")
		}
		first := true
		for _, c := range cites {
			if c.says != g {
				continue
			}
			if !first {
				b.WriteString("; ")
			}
			b.WriteString(c.cite)
			first = false
		}
		if s != "" {
			b.WriteByte(')')
		}
	}
	b.WriteString(m.Why[at+2:])
	return b.String()
}

// DocumentTypes are the document types m scores.
func (m FactorModel) DocumentTypes() []string { return typesOrDefault(m.Types) }

// Scores reports whether m scores documents of type typ ("" for the
// default type), by the rule Assess follows.
func (m *FactorModel) Scores(typ string) bool { return concerns(m.Types, typ) }

// Document types the risk model names besides the privacy policy.
var (
	privacyAndCookie = []string{DefaultType, "cookie"}
	termsAndEULA     = []string{"terms", "eula"}
)

// RiskModel is the risk model: for the privacy policy, the privacy risk of
// what the business does with personal data; for every other type, the
// risk of what that document covers (cookies and similar technologies;
// the contract; returns; delivery; endorsements; content rules). Whatever
// the request left out adds nothing.
var RiskModel = []FactorModel{
	{ID: "sells_or_shares", Points: 20, Why: "Personal information goes to third parties that use it for their own purposes, such as advertising, and people lose control over it: %s.",
		Uncited:   "Personal information goes to third parties that use it for their own purposes, such as advertising, and people lose control over it.",
		Citations: sellsOrSharesCitations,
		Types:     privacyAndCookie,
		count:     func(in *Input) int { return b2i(in.Facts[FactSellsOrShares]) }},
	{ID: "minors_data_sold", Points: 15, Why: "The personal information of consumers under 16 is sold or shared (Cal. Civ. Code § 1798.120(c)).",
		count: func(in *Input) int { return b2i(in.SellsMinorsData) }},
	{ID: "sector_data", Points: 15, Max: 30, Why: "The business type handles data that sector law protects (health, children's, education or financial data).",
		count: func(in *Input) int { return len(in.SectorLaws) }},
	{ID: "cookies_without_consent", Points: 15, Why: "Non-essential cookies are set without asking for consent first (Directive 2002/58/EC Art. 5(3); PECR reg. 6).",
		Types: privacyAndCookie,
		count: func(in *Input) int {
			return b2i(in.Facts[FactSetsNonEssentialCookies] && in.ConsentBanner != nil && !*in.ConsentBanner && hasConsentLaw(in.Laws))
		}},
	{ID: "sensitive_data", Points: 10, Why: "Sensitive personal information is collected (account log-in credentials, card numbers with security codes: %s); a breach harms people more.",
		// The categories are the CCPA's (§ 1798.140(ae)); no other law's
		// definition was checked against them (docs/legal/risk.md, open
		// questions), so elsewhere the reason names no law.
		Uncited:   "Data that gives access to people's accounts or money is collected (account log-in credentials, card numbers with security codes); a breach harms people more.",
		Citations: []LawCitation{{Law: "ccpa", Cite: "Cal. Civ. Code § 1798.140(ae)"}},
		count:     func(in *Input) int { return b2i(in.Facts[FactCollectsSensitive]) }},
	// The transfer factors apply only under a law that regulates transfers
	// out of its region (TransferLaws), and cite that law.
	{ID: "transfers_contractual", Points: 10, Why: "Personal data leaves the region under contractual safeguards only, or under none the catalog knows of (%s).",
		Citations: []LawCitation{
			{Law: "gdpr", Cite: "GDPR Arts. 46, 49"},
			{Law: "uk-gdpr", Cite: "UK GDPR Arts. 44A, 46, 49"},
			{Law: "fadp", Cite: "FADP Arts. 16(2), 17"},
		},
		citeLaws: func(in *Input) []string { return in.ContractualTransferLaws },
		count: func(in *Input) int {
			return b2i(in.Facts[FactInternationalTransfers] && len(in.ContractualTransferLaws) > 0)
		}},
	{ID: "transfers_adequate", Points: 5, Why: "Personal data leaves the region on the strength of %s, which can be withdrawn or annulled.",
		Citations: []LawCitation{
			{Law: "gdpr", Says: "an adequacy decision of the European Commission, the EU-U.S. Data Privacy Framework included", Cite: "GDPR Art. 45"},
			{Law: "uk-gdpr", Says: "regulations approving transfers to the country, the UK Extension to the Data Privacy Framework included", Cite: "UK GDPR Arts. 44A, 45A"},
			{Law: "fadp", Says: "the Federal Council's decision that the country's law protects data adequately, the Swiss-U.S. Data Privacy Framework included", Cite: "FADP Art. 16(1)"},
		},
		citeLaws: func(in *Input) []string { return in.TransferLaws },
		count: func(in *Input) int {
			return b2i(in.Facts[FactInternationalTransfers] && len(in.TransferLaws) > 0 && len(in.ContractualTransferLaws) == 0)
		}},
	{ID: "joint_controllers", Points: 5, Why: "Advertising pixels make the business a joint controller with the platform (GDPR Art. 26; CJEU C-40/17 Fashion ID).",
		Types: privacyAndCookie,
		count: func(in *Input) int { return b2i(len(in.JointControllers) > 0) }},
	{ID: "unknown_services", Points: 3, Max: 9, Why: "A service the catalog does not describe receives personal data: what it does with it is unknown.",
		Types: privacyAndCookie,
		count: func(in *Input) int { return len(in.UnknownServices) }},
	{ID: "non_essential_cookies", Points: 5, Why: "Cookies or similar technologies that are not strictly necessary track visitors' devices.",
		Types: privacyAndCookie,
		count: func(in *Input) int { return b2i(in.Facts[FactSetsNonEssentialCookies]) }},
	{ID: "payments", Points: 5, Why: "Payment data is processed; it attracts fraud.",
		count: func(in *Input) int { return b2i(in.Facts[FactCollectsPayments]) }},
	{ID: "analytics", Points: 5, Why: "Visitors' behaviour on the website is measured.",
		count: func(in *Input) int { return b2i(in.Facts[FactUsesAnalytics]) }},
	{ID: "third_party_services", Points: 1, Max: 10, Why: "Each service that receives personal data is one more organisation that holds it.",
		count: func(in *Input) int { return in.Services + len(in.UnknownServices) }},

	// Contract documents: the risk of the contract, from facts the request
	// states (never from what it left out). Sources: docs/legal/risk.md.
	{ID: "auto_renewal", Points: 15, Why: "Subscriptions renew and are charged automatically until the consumer cancels. Automatic renewal law regulates the sign-up and the cancellation: in California, the offer terms shown clearly and conspicuously next to the consent request, affirmative consent before the first charge, an acknowledgment the consumer can keep, and cancellation online for subscriptions taken online (Cal. Bus. & Prof. Code §§ 17601(b), 17602(a), (d)); in the EU, the duration and the conditions for ending the contract given before it is made (Directive 2011/83/EU Art. 6(1)(o)).",
		Types: termsAndEULA,
		count: func(in *Input) int { return b2i(in.Facts[FactAutoRenews] && hasLaw(in.Laws, "ca-arl", "crd")) }},
	{ID: "withdrawal_right", Points: 10, Why: "Consumers who buy at a distance may withdraw from the contract without giving a reason: %s.",
		Citations: []LawCitation{
			{Law: "crd", Says: "in the EU within 14 days, and for up to 12 months longer if they were not told of the right before the contract", Cite: "Directive 2011/83/EU Arts. 9, 10(1)"},
			{Law: "ccr-2013", Says: "in the UK within 14 days, and for up to 12 months longer if they were not told of the right before the contract", Cite: "SI 2013/3134 regs. 29-31"},
			{Law: "br-cdc", Says: "in Brazil, when they contract outside the business's premises (online purchases included), within 7 days of signing or of receiving the product or service, and what they paid is returned at once, monetarily updated", Cite: "Lei nº 8.078/1990 (CDC) Art. 49; Decreto nº 7.962/2013 Art. 5"},
		},
		Types: []string{"terms", "eula", "refund"},
		count: func(in *Input) int {
			return b2i(in.Facts[FactCollectsPayments] && hasLaw(in.Laws, "crd", "ccr-2013", "br-cdc"))
		}},
	{ID: "refund_window_below_withdrawal", Points: 10, Why: "The business offers its own returns window, shorter than the 14-day statutory withdrawal period (Directive 2011/83/EU Art. 9(1); SI 2013/3134 reg. 30). The statutory period applies whatever the business offers, as the policy says: a return refused after the business's window but within the statutory period would breach the consumer's right. (A window of 0 days, no returns beyond the law, is not a shorter window.)",
		Types: []string{"refund"},
		count: func(in *Input) int {
			w := in.RefundWindowDays
			return b2i(w != nil && *w > 0 && *w < 14 && in.Facts[FactCollectsPayments] && hasLaw(in.Laws, "crd", "ccr-2013"))
		}},
	{ID: "governing_law_abroad", Points: 10, Why: "The contract chooses the law of a country other than the one where the consumers it addresses live. For consumers in a country the business directs its activities to, that choice cannot take away the protection of the rules of their own country that cannot be set aside by agreement (Regulation (EC) No 593/2008 (Rome I) Art. 6(1)-(2), retained in UK law), so more than one law may govern the contract.",
		Types: termsAndEULA,
		count: func(in *Input) int {
			return b2i(slices.ContainsFunc(in.GoverningLawOutside, func(j string) bool { return lawCovers(in.Laws, j, "crd", "ccr-2013") }))
		}},
	{ID: "goods_delivery", Points: 10, Why: "Goods ordered at a distance must be delivered (in the United States, shipped) within the time the business states or, without one, within 30 days; when the business misses it, the consumer can, on the conditions the law sets, cancel and must be refunded (Directive 2011/83/EU Art. 18; Consumer Rights Act 2015 s. 28; 16 CFR §§ 435.1-435.2).",
		Types: []string{"shipping"},
		count: func(in *Input) int { return b2i(hasLaw(in.Laws, "crd", "cra-2015", "us-ftc-mail-order")) }},
	{ID: "transit_risk", Points: 5, Why: "The business bears the risk of loss of or damage to the goods in transit until the consumer, or someone the consumer names other than a carrier the business offered, has them (Directive 2011/83/EU Art. 20; Consumer Rights Act 2015 s. 29).",
		Types: []string{"shipping"},
		count: func(in *Input) int { return b2i(hasLaw(in.Laws, "crd", "cra-2015")) }},
	{ID: "affiliate_links", Points: 10, Why: "The website earns commissions or other benefits from links or recommendations. A material connection between an endorser and the seller (payment, a commission, free or discounted products) must be disclosed clearly and conspicuously (16 CFR § 255.5; the FTC's Endorsement Guides, which interpret Section 5 of the FTC Act).",
		Types: []string{"disclaimer"},
		count: func(in *Input) int { return b2i(in.Facts[FactAffiliateLinks] && hasLaw(in.Laws, "ftc-endorsements")) }},
	{ID: "content_moderation_eu", Points: 10, Why: "Users post or send content that the business may remove, or whose accounts it may suspend, under this policy. For users in the EU, an intermediary service must describe its content moderation in its terms (Regulation (EU) 2022/2065 Art. 14(1)) and apply its restrictions diligently, objectively and proportionately (Art. 14(4)); a hosting service must give each affected user a statement of reasons for a removal or suspension (Art. 17(1)).",
		Types: []string{"acceptable-use"},
		count: func(in *Input) int { return b2i(slices.Contains(in.Jurisdictions, "EU")) }},
}

// sellsOrSharesCitations are what each law makes of personal information
// going to third parties for their own purposes (advertising and social
// services: fact sellsOrShares). The state laws' entries cite the item of
// each law's checklist that the practice triggers (Texas's since item
// us-tx.103.a, docs/legal/risk.md); Nebraska has none, so its documents get
// the reason without a citation.
var sellsOrSharesCitations = []LawCitation{
	{Law: "ccpa", Says: "a sale or sharing under California law", Cite: "Cal. Civ. Code § 1798.140(ad), (ah)"},
	{Law: "eprivacy", Says: "in the EU, the cookies or similar technologies through which it is collected need the visitor's prior consent", Cite: "Directive 2002/58/EC Art. 5(3)"},
	{Law: "pecr", Says: "in the UK, the cookies or similar technologies through which it is collected need the visitor's prior consent", Cite: "PECR reg. 6"},
	{Law: "us-co", Says: stateSaleSays, Cite: "C.R.S. § 6-1-1308(1)(b)"},
	{Law: "us-ct", Says: stateSaleSays, Cite: "Conn. Gen. Stat. § 42-520(d)"},
	{Law: "us-de", Says: stateSaleSays, Cite: "6 Del. C. § 12D-106"},
	{Law: "us-ia", Says: stateSaleSays, Cite: "Iowa Code § 715D.4"},
	{Law: "us-in", Says: "a sale or targeted advertising, which consumers may opt out of under state privacy law", Cite: "Ind. Code § 24-15-3-1"},
	{Law: "us-ky", Says: stateSaleSays, Cite: "KRS 367.3617(4)"},
	{Law: "us-md", Says: stateSaleSays, Cite: "Md. Code, Com. Law § 14-4707"},
	{Law: "us-mn", Says: stateSaleSays, Cite: "Minn. Stat. § 325M.16, subd. 1(b)"},
	{Law: "us-mt", Says: stateSaleSays, Cite: "Mont. Code Ann. § 30-14-2812"},
	{Law: "us-nh", Says: stateSaleSays, Cite: "RSA 507-H:6"},
	{Law: "us-nj", Says: stateSaleSays, Cite: "N.J. Stat. § 56:8-166.6(b)"},
	{Law: "us-or", Says: "targeted advertising, which the business must describe, with how to opt out, under state privacy law", Cite: "ORS 646A.578(4)(h)"},
	{Law: "us-ri", Says: stateSaleSays, Cite: "R.I. Gen. Laws § 6-48.1-3(b)"},
	{Law: "us-tn", Says: stateSaleSays, Cite: "Tenn. Code Ann. § 47-18-3305(d)"},
	{Law: "us-tx", Says: stateSaleSays, Cite: "Tex. Bus. & Com. Code § 541.103(a)"},
	{Law: "us-ut", Says: "a sale or targeted advertising, whose opt-out the business must explain under state privacy law", Cite: "Utah Code § 13-61-302(1)(b)"},
	{Law: "us-va", Says: stateSaleSays, Cite: "Va. Code § 59.1-578(D)"},
}

// stateSaleSays is what a state privacy law that makes the business
// disclose a sale or targeted advertising says of the practice: a
// constant, not a function making each law's LawCitation, so that
// sellsOrSharesCitations is static data (no init code at a cold start).
const stateSaleSays = "a sale or targeted advertising, which the business must disclose under state privacy law"

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func hasConsentLaw(laws []Law) bool {
	for i := range laws {
		if id := laws[i].ID; id == "eprivacy" || id == "pecr" {
			return true
		}
	}
	return false
}

// hasLaw reports whether one of the laws ids applies.
func hasLaw(laws []Law, ids ...string) bool {
	for i := range laws {
		if slices.Contains(ids, laws[i].ID) {
			return true
		}
	}
	return false
}

// lawCovers reports whether one of the laws ids applies and covers the
// jurisdiction j.
func lawCovers(laws []Law, j string, ids ...string) bool {
	for i := range laws {
		if l := &laws[i]; slices.Contains(ids, l.ID) && (slices.Contains(l.Jurisdictions, j) || slices.Contains(l.Jurisdictions, AllJurisdictions)) {
			return true
		}
	}
	return false
}

// citationsAt is byLaw[i], or nil past its end (a factor added to
// RiskModel after its lawCitations were made).
func citationsAt(byLaw []*factorCitations, i int) *factorCitations {
	if i < len(byLaw) {
		return byLaw[i]
	}
	return nil
}

// Assess computes the risk factors, the score and the flags of a document
// of type in.Type: only the factors and flags that concern that type. It
// is deterministic: factors in model order, flags by severity, code, law
// and subject.
func Assess(in Input) Assessment {
	a := Assessment{Factors: make([]Factor, 0, len(RiskModel))}
	byLaw := lawCitations()
	if !lawsEmbedded(in.Laws) {
		byLaw = nil // each factor finds its citations by the laws' ids
	}
	for mi := range RiskModel {
		m := &RiskModel[mi]
		if !concerns(m.Types, in.Type) {
			continue
		}
		n := m.count(&in)
		if n == 0 {
			continue
		}
		pts := n * m.Points
		if m.Max > 0 {
			pts = min(pts, m.Max)
		}
		a.Factors = append(a.Factors, Factor{ID: m.ID, Points: pts, Why: m.why(&in, citationsAt(byLaw, mi))})
		a.Score += pts
	}
	if len(a.Factors) == 0 {
		a.Factors = nil // as before the slice was sized: no factors is null
	}
	a.Score = min(a.Score, 100)
	a.Level = Level(a.Score)
	a.Flags = Flags(in)
	return a
}

// severityOrder ranks flags by severity: errors first, then warnings,
// then information (a switch, not a map: the sort of a document's flags
// asks it twice per comparison).
func severityOrder(s Severity) int {
	switch s {
	case SeverityWarning:
		return 1
	case SeverityInfo:
		return 2
	}
	return 0
}

// flagLaws are the laws Flags asks about by id, each the first of a
// document's laws with that id (nil: none), found in one pass over them
// rather than a pass for each id.
type flagLaws struct {
	gdpr, ukGDPR, ccpa, ccpaRegs, caloppa, eprivacy, pecr, usMD, caARL, usCOPPA *Law
}

func (fl *flagLaws) find(laws []Law) {
	for i := range laws {
		var p **Law
		switch laws[i].ID {
		case "gdpr":
			p = &fl.gdpr
		case "uk-gdpr":
			p = &fl.ukGDPR
		case "ccpa":
			p = &fl.ccpa
		case "ccpa-regs":
			p = &fl.ccpaRegs
		case "caloppa":
			p = &fl.caloppa
		case "eprivacy":
			p = &fl.eprivacy
		case "pecr":
			p = &fl.pecr
		case "us-md":
			p = &fl.usMD
		case "ca-arl":
			p = &fl.caARL
		case "us-coppa":
			p = &fl.usCOPPA
		default:
			continue
		}
		if *p == nil {
			*p = &laws[i]
		}
	}
}

// Flags computes the compliance flags of in, each from the catalog.
func Flags(in Input) []Flag {
	// Raised in scratch space on the stack and sorted by position: a
	// Flag is seven strings, which sorting the flags themselves copied
	// twice at every comparison. The result is a slice of their number.
	var fb [16]Flag
	out := fb[:0]
	// key holds, for each of out, its severity, its code's rank and its
	// position in out as one number (flagKey), in the order the flags
	// sort by; entry its catalog entry.
	var kb [len(fb)]uint64
	key := kb[:0]
	var eb [len(fb)]*flagEntry
	entry := eb[:0]
	var laws flagLaws
	laws.find(in.Laws)
	named := flagsByName()
	// raise adds the catalog flag e under law, if e cites law and
	// concerns the document's type.
	raise := func(e *flagEntry, subject, law string) {
		d := e.def
		if !concerns(d.Types, in.Type) {
			return
		}
		if c, ok := d.Citation(law); ok {
			out = append(out, d.flag(law, c, subject))
			key = append(key, flagKey(d.Severity, e.rank, len(key)))
			entry = append(entry, e)
		}
	}
	primary := ""
	for _, l := range [...]*Law{laws.gdpr, laws.ukGDPR, laws.ccpa, laws.caloppa} {
		if l != nil {
			primary = l.ShortName
			break
		}
	}
	// A document for the EU and the UK answers to both GDPRs and both
	// cookie laws: their flags are raised under each.
	var gb [2]*Law
	gdprs := gb[:0]
	for _, l := range [...]*Law{laws.gdpr, laws.ukGDPR} {
		if l != nil {
			gdprs = append(gdprs, l)
		}
	}
	var cb [2]string
	cookieLaws := cb[:0]
	for _, l := range [...]*Law{laws.eprivacy, laws.pecr} {
		if l != nil {
			cookieLaws = append(cookieLaws, l.ShortName)
		}
	}
	ccpa := laws.ccpa != nil

	for _, cookieLaw := range cookieLaws {
		if in.Facts[FactSetsNonEssentialCookies] {
			switch {
			case in.ConsentBanner != nil && !*in.ConsentBanner:
				raise(named.cookieConsentNotCollected, "", cookieLaw)
			case in.ConsentBanner != nil:
				raise(named.cookieConsentRequired, "", cookieLaw)
			}
		}
		if in.EmailTracking {
			raise(named.emailTrackingConsent, "", cookieLaw)
		}
	}
	for _, gdpr := range gdprs {
		for _, s := range in.JointControllers {
			raise(named.jointController, s, gdpr.ShortName)
		}
		for _, s := range in.UnsafeguardedTransfers[gdpr.ID] {
			raise(named.transferSafeguardUnknown, s, gdpr.ShortName)
		}
		if !in.DPOStated {
			raise(named.dpoNotStated, "", gdpr.ShortName)
		}
		raise(named.automatedDecision, "", gdpr.ShortName)
	}
	for _, s := range in.UnknownServices {
		raise(named.unknownService, s, primary)
	}
	for _, field := range in.Implied {
		raise(mustLookup("implied_"+snake(field)), "", primary)
	}
	if ccpa {
		if in.Facts[FactSellsOrShares] {
			if in.OptOutLink != nil && !*in.OptOutLink {
				raise(named.ccpaOptOutNotOffered, "", "CCPA")
			} else {
				raise(named.ccpaOptOutLink, "", "CCPA")
			}
		}
		if in.SellsMinorsData && in.Facts[FactSellsOrShares] {
			raise(named.ccpaMinorsOptIn, "", "CCPA")
		}
		raise(named.ccpaWebRequest, "", "CCPA")
		if in.Facts[FactCollectsSensitive] && laws.ccpaRegs != nil {
			raise(named.ccpaSensitiveLimitedUse, "", "CCPA Regulations")
		}
	}
	// Maryland forbids the sale of sensitive data outright (issue 8, j5b).
	if laws.usMD != nil && in.Facts[FactSellsSensitiveData] {
		raise(named.usMDSensitiveDataSale, "", "MODPA")
	}
	// California's Automatic Renewal Law: what the terms cannot do
	// themselves (issue 8, review of 2026-11-26).
	if laws.caARL != nil && in.Facts[FactAutoRenews] {
		raise(named.caARLPractices, "", "California ARL")
	}
	if in.CCPAExempt {
		raise(named.ccpaNotApplicable, "", "CCPA")
	}
	if laws.caloppa != nil {
		raise(named.caloppaDoNotTrack, "", "CalOPPA")
	}
	if !in.Facts[FactHasThirdPartyServices] || (in.Services <= 1 && len(in.UnknownServices) == 0) {
		raise(named.noThirdPartyServices, "", primary)
	}
	if in.SpecialCategory {
		for _, gdpr := range gdprs {
			raise(named.specialCategoryData, "", gdpr.ShortName)
		}
	}
	for _, s := range in.SectorLaws {
		// A document with the children's notice (directedToChildren) names
		// what COPPA still asks beyond it instead (issue 8, part j6).
		if s == "COPPA" && in.Facts[FactDirectedToChildren] && laws.usCOPPA != nil {
			raise(named.coppaPractices, "", s)
			continue
		}
		raise(mustLookup("sector_"+strings.ToLower(s)), "", s)
	}
	// Checklist items whose condition the request cannot express: one
	// flag per catalog code, citing every item of that code.
	for li := range in.Laws {
		l := &in.Laws[li]
		for ri := range l.NotModelled {
			r := &l.NotModelled[ri]
			e := r.flag
			if e == nil || e.def.Code != r.FlagCode {
				e = mustLookup(r.FlagCode) // an item made otherwise
			}
			i := slices.Index(entry, e)
			if i < 0 {
				raise(e, "", l.ShortName)
				continue
			}
			if c, _ := e.def.Citation(l.ShortName); c != "" && !strings.Contains(out[i].Citation, c) {
				out[i].Citation += "; " + c
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	// By severity and code, law and subject (stable): the keys sorted as
	// numbers order the flags by severity and code, those of one code
	// as raised, and the few flags of one code (under two laws, about two
	// services) are then ordered by law and subject, each inserted after
	// those that do not come after it. A document has a dozen flags,
	// mostly of codes of their own: a sort calling a comparison function
	// for each pair cost more than the comparing.
	slices.Sort(key)
	for lo := 0; lo < len(key); {
		hi := lo + 1
		for hi < len(key) && key[hi]&^flagIndexMask == key[lo]&^flagIndexMask {
			hi++
		}
		for i := lo + 1; i < hi; i++ {
			for k := i; k > lo && lawSubjectBefore(&out[key[k]&flagIndexMask], &out[key[k-1]&flagIndexMask]); k-- {
				key[k], key[k-1] = key[k-1], key[k]
			}
		}
		lo = hi
	}
	sorted := make([]Flag, len(out))
	for k, x := range key {
		sorted[k] = out[x&flagIndexMask]
	}
	return sorted
}

// flagIndexMask holds a flag's position among those raised in its
// flagKey.
const flagIndexMask = 1<<32 - 1

// flagKey is the number flags sort by: severity (severityOrder), then the
// code's rank (codeRanks, below the catalog's length), then i, the
// flag's position among those raised, which the lowest 32 bits hold
// (flagIndexMask).
func flagKey(s Severity, rank, i int) uint64 {
	return uint64(severityOrder(s))<<60 | uint64(rank)<<32 | uint64(i)
}

// lawSubjectBefore reports whether flag a comes before flag b of the same
// severity and code: by law, then subject.
func lawSubjectBefore(a, b *Flag) bool {
	if a.Law != b.Law {
		return a.Law < b.Law
	}
	return a.Subject < b.Subject
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
