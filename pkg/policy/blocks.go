package policy

import (
	"slices"
	"strings"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// generators build the blocks a clause line "@name" stands for: the lists
// and tables whose rows come from the facts. Their words come from the
// language's labels, so they are language-neutral too.
var generators = map[string]func(*builder) []Block{
	"categories":          genCategories,
	"purposes":            genPurposes,
	"interests":           genInterests,
	"ccpaPurposes":        genCCPAPurposes,
	"services":            genServices,
	"transfers":           genTransfers,
	"cookies":             genCookies,
	"retentionPurposes":   genRetentionPurposes,
	"retentionCategories": genRetentionCategories,
	"ccpaCategories":      genCCPACategories,
	"ccpaSensitive":       genCCPASensitive,
	"ccpaSold":            genCCPASold,
	"ccpaDisclosed":       genCCPADisclosed,
	"cookiePurposes":      genCookiePurposes,
	"ccpaSources":         genCCPASources,
	"cookiesUnknown":      genCookiesUnknown,
	// Cookie policy (issue 8, t2): cookie_policy.go.
	"cookieTable":         genCookieTable,
	"cookiePolicyUnknown": genCookiePolicyUnknown,
	"summary":             genSummary,
	"representatives":     genRepresentatives,
	"toc":                 genContents,
	"usShared":            genUSShared,
}

// genContents is the table of contents: an empty list that build fills
// with the sections that follow (fillContents).
func genContents(*builder) []Block { return []Block{{Kind: List}} }

// genSummary is the layered notice's first layer: who we are, what we
// collect and why, who gets it, the reader's rights and how to reach us.
func genSummary(b *builder) []Block {
	f := b.f
	var cats, purposes, recipients []string
	for _, c := range f.Categories {
		cats = append(cats, lowerFirst(b.label("category."+c.ID)))
	}
	for _, p := range f.Purposes {
		purposes = addUnique(purposes, lowerFirst(b.label("purpose."+p.ID+".short")))
	}
	for _, s := range f.Services {
		recipients = append(recipients, s.Name)
	}
	recipients = append(recipients, f.Unknown...)
	if !f.hostKnown() {
		recipients = append(recipients, b.label("summary.host"))
	}
	item := func(key string, extra map[string][]Inline) []Inline { return b.labelInlines(key, extra) }
	l := Block{Kind: List}
	l.Items = append(l.Items,
		item("summary.who", nil),
		item("summary.what", map[string][]Inline{"categories": text(b.join(cats))}),
		item("summary.why", map[string][]Inline{"purposes": text(b.join(purposes))}),
		item("summary.recipients", map[string][]Inline{"recipients": text(b.join(recipients))}),
	)
	if f.HasLaw(lawCCPA) {
		if f.Set[compliance.FactSellsOrShares] {
			l.Items = append(l.Items, item("summary.sold", nil))
		} else {
			l.Items = append(l.Items, item("summary.notSold", nil))
		}
	}
	switch {
	case f.gdprFamily():
		l.Items = append(l.Items, item("summary.rights.gdpr", nil))
	case f.HasLaw(lawCCPA):
		l.Items = append(l.Items, item("summary.rights.ccpa", nil))
	case f.usStateLaw(): // issue 8: US state privacy laws
		l.Items = append(l.Items, item("summary.rights.usStates", nil))
	default:
		// Issue 8, part j1: a law with its own summary of rights
		// ("summary.rights.<law id>") names them; else CalOPPA's choices.
		key := "summary.rights.caloppa"
		for _, law := range f.Laws {
			if _, ok := b.t.Labels["summary.rights."+law.ID]; ok {
				key = "summary.rights." + law.ID
				break
			}
		}
		l.Items = append(l.Items, item(key, nil))
	}
	l.Items = append(l.Items, item("summary.contact", nil))
	return []Block{l}
}

// jlabel is the label for key in the current regime's jurisdiction
// ("key.UK") where there is one, else the general label.
func (b *builder) jlabel(key string) string {
	if v, ok := b.t.Labels[key+"."+b.regime.ID]; ok {
		return v
	}
	return b.label(key)
}

// jkey is key.<JURISDICTION> where the language has that label, else key
// (jlabel's lookup, for labels expanded with placeholders).
func (b *builder) jkey(key string) string {
	if _, ok := b.t.Labels[key+"."+b.f.Jurisdiction.ID]; ok {
		return key + "." + b.f.Jurisdiction.ID
	}
	return key
}

// examples is what a data category includes, limited to what the facts
// support: no cookie identifiers without cookies, no emails without an
// email service.
func (b *builder) examples(id string) string {
	f := b.f
	var parts []string
	switch id {
	case "identifiers":
		parts = append(parts, b.label("example.ipAddress"))
		if f.cookiesKnown() || slices.ContainsFunc(f.Services, func(s ServiceFact) bool { return s.CookiesUnknown() }) {
			parts = append(parts, b.label("example.cookieIds"))
		}
		if f.Request.CollectsUserData || f.hasPurpose("account") || f.hasPurpose("orders") || f.hasPurpose("payments") {
			parts = append(parts, b.label("example.accountIds"))
		}
		return b.expandText(b.label("category.identifiers.examples"), map[string][]Inline{"examples": text(capFirst(b.join(parts)))})
	case "internet_activity":
		parts = append(parts, b.label("example.channel.website"))
		if f.hasServiceCategory("email_marketing") || f.hasServiceCategory("crm") {
			parts = append(parts, b.label("example.channel.emails"))
		}
		if f.hasServiceCategory("advertising") {
			parts = append(parts, b.label("example.channel.ads"))
		}
		return b.expandText(b.label("category.internet_activity.examples"), map[string][]Inline{"channels": text(b.join(parts))})
	}
	return b.label("category." + id + ".examples")
}

// expandText expands a label whose placeholders are all plain text.
func (b *builder) expandText(label string, extra map[string][]Inline) string {
	var sb strings.Builder
	for _, in := range b.expand(label, extra) {
		sb.WriteString(in.Text)
	}
	return sb.String()
}

func (f *Facts) hasPurpose(id string) bool {
	return slices.ContainsFunc(f.Purposes, func(p PurposeFact) bool { return p.ID == id })
}

func (f *Facts) hasServiceCategory(id string) bool {
	return slices.ContainsFunc(f.Services, func(s ServiceFact) bool { return s.Category == id })
}

func (b *builder) header(keys ...string) [][]Inline {
	out := make([][]Inline, len(keys))
	for i, k := range keys {
		out[i] = text(b.label("table." + k))
	}
	return out
}

func (b *builder) categoryNames(ids []string) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = b.label("category." + id)
	}
	return b.join(names)
}

func genCategories(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("category", "examples", "source")}
	for _, c := range b.f.Categories {
		srcs := make([]string, len(c.Sources))
		for i, s := range c.Sources {
			srcs[i] = b.label("source." + s)
		}
		t.Rows = append(t.Rows, [][]Inline{
			text(b.label("category." + c.ID)),
			text(b.examples(c.ID)),
			text(capFirst(b.join(srcs))),
		})
	}
	return []Block{t}
}

func genPurposes(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("purpose", "personalData", "basis")}
	for _, p := range b.f.Purposes {
		t.Rows = append(t.Rows, [][]Inline{
			text(b.label("purpose." + p.ID)),
			text(b.categoryNames(p.Categories)),
			b.labelInlines(b.jkey("basis."+p.GDPRBasis), nil), // a jurisdiction may name its own article (issue 8, j1)
		})
	}
	return []Block{t}
}

func genInterests(b *builder) []Block {
	l := Block{Kind: List}
	for _, p := range b.f.Purposes {
		if p.GDPRBasis == "legitimate_interests" {
			l.Items = append(l.Items, text(b.label("purpose."+p.ID)+": "+lowerFirst(b.label("purpose."+p.ID+".interest"))+"."))
		}
	}
	return []Block{l}
}

func genCCPAPurposes(b *builder) []Block {
	l := Block{Kind: List}
	var seen []string
	for _, p := range b.f.Purposes {
		s := b.label("purpose." + p.ID + ".ccpa")
		if !slices.Contains(seen, s) {
			seen = append(seen, s)
			l.Items = append(l.Items, text(s+"."))
		}
	}
	return []Block{l}
}

func genServices(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("service", "provider", "purpose", "data", "role", "policy")}
	for _, s := range b.f.Services {
		provider := s.Provider
		if provider == "" {
			provider = b.label("country.unknown")
		}
		if s.EUEntity != "" && b.f.Jurisdiction.EUEntity && s.EUEntity != s.Provider {
			provider += " (" + s.EUEntity + ")"
		}
		if s.ProviderCountry != "" {
			provider += ", " + b.country(s.ProviderCountry)
		}
		t.Rows = append(t.Rows, [][]Inline{
			text(s.Name),
			text(provider),
			text(s.Purpose),
			text(b.categoryNames(b.f.received(s.ID))),
			text(b.role(s)),
			b.link(s.PrivacyPolicyURL),
		})
	}
	return []Block{t}
}

// received lists, in catalog order, the data categories the service
// receives here (a host only what the website collects).
func (f *Facts) received(id string) []string {
	var out []string
	for _, c := range f.Categories {
		if slices.Contains(c.Recipients, id) {
			out = append(out, c.ID)
		}
	}
	return out
}

// link is a URL as a link, or "Not confirmed" when the catalog has none.
func (b *builder) link(url string) []Inline {
	if url == "" {
		return text(b.label("country.unknown"))
	}
	return []Inline{{Kind: Link, Text: url, URL: url}}
}

// role describes the provider's GDPR role for each purpose it serves, as
// its terms state it: "Processor", or "Processor (payments); Controller
// (security)". A purpose without a recorded role is not characterised.
func (b *builder) role(s ServiceFact) string {
	var groups []string
	byRole := map[string][]string{}
	for _, p := range s.Purposes {
		r, ok := s.Roles[p]
		if !ok {
			continue
		}
		if _, seen := byRole[r]; !seen {
			groups = append(groups, r)
		}
		byRole[r] = append(byRole[r], lowerFirst(b.label("purpose."+p+".short")))
	}
	switch len(groups) {
	case 0:
		return b.label("role.unknown")
	case 1:
		if len(byRole[groups[0]]) == len(s.Purposes) {
			return b.label("role." + groups[0])
		}
	}
	parts := make([]string, len(groups))
	for i, r := range groups {
		parts[i] = b.expandText(b.label("role.for"), map[string][]Inline{"role": text(b.label("role." + r)), "purposes": text(b.join(byRole[r]))})
	}
	return strings.Join(parts, "; ")
}

func (b *builder) country(code string) string {
	if n := b.label("country." + code); n != "" {
		return n
	}
	return CountryName(code)
}

// genTransfers is the table of transfers out of each transfer regime's
// region, each under a caption naming the regime when there are several.
func genTransfers(b *builder) []Block {
	regimes := b.f.transferRegimes()
	if len(regimes) == 1 {
		return []Block{b.transferTable(regimes[0])}
	}
	defer b.useJurisdiction(catalog.Jurisdiction{})
	var out []Block
	for _, r := range regimes {
		b.useJurisdiction(r)
		t := b.transferTable(r)
		if len(t.Rows) == 0 {
			continue
		}
		out = append(out, Block{Kind: Paragraph, Inlines: b.labelInlines("transfer.regime", nil)}, t)
	}
	return out
}

// transferTable lists the services that transfer personal data out of j's
// region, with what each transfer rests on under j's law.
func (b *builder) transferTable(j catalog.Jurisdiction) Block {
	t := Block{Kind: Table, Header: b.header("service", "country", "adequacy", "safeguard")}
	t.Header[2] = text(b.jlabel("table.adequacy"))
	for _, s := range b.f.Services {
		if !transfersOutOf(j, s.Service) {
			continue
		}
		country := b.label("country.unknown")
		if s.ProviderCountry != "" {
			country = b.country(s.ProviderCountry)
		}
		var access []string
		for _, c := range s.AccessCountries {
			if !slices.Contains(j.Countries, c) && c != s.ProviderCountry {
				access = append(access, b.country(c))
			}
		}
		if len(access) > 0 {
			country = b.expandText(b.label("transfer.access"), map[string][]Inline{"country": text(country), "access": text(b.join(access))})
		}
		var adequacy, safeguard string
		mechs := mechanisms(j, s)
		switch transferBasis(j, s) {
		case basisAdequacy:
			adequacy, safeguard = b.jlabel("adequacy.yes"), b.jlabel("safeguard.adequacy")
		case basisDPF:
			adequacy = b.jlabel("adequacy.dpf")
			safeguard = b.jlabel("safeguard.dpf")
		default:
			adequacy = b.jlabel("adequacy.no")
			if s.ProviderCountry == "" {
				adequacy = b.label("adequacy.unknown")
			}
		}
		var named []string
		for _, m := range mechs {
			if m != j.Certification {
				named = append(named, b.label("mechanism."+m))
			}
		}
		switch {
		case len(named) > 0 && safeguard != "":
			safeguard += "; " + b.label("safeguard.also") + " " + b.join(named)
		case len(named) > 0:
			safeguard = capFirst(b.join(named))
		case safeguard == "":
			safeguard = b.label("safeguard.unknown")
		}
		t.Rows = append(t.Rows, [][]Inline{
			text(s.Name),
			text(country),
			text(adequacy),
			text(safeguard + "."),
		})
	}
	return t
}

// genRepresentatives names the Art. 27 representative in each regime's
// region where the business is not established.
func genRepresentatives(b *builder) []Block {
	var out []Block
	for _, r := range b.f.transferRegimes() {
		if !b.f.needsRepresentativeIn(r) {
			continue
		}
		if b.byJurisdiction != nil {
			b.useJurisdiction(r)
		}
		out = append(out, Block{Kind: Paragraph, Inlines: b.labelInlines("representative.text", nil)})
	}
	if b.byJurisdiction != nil {
		b.useJurisdiction(catalog.Jurisdiction{})
	}
	return out
}

// Transfer bases, strongest first.
const (
	basisAdequacy = iota // an adequacy decision covers the country
	basisDPF             // the provider's Data Privacy Framework certification
	basisContract        // standard clauses, the UK Addendum or IDTA, or BCRs
	basisNone            // no safeguard the catalog knows of
)

// mechanisms are the transfer tools the provider states for the
// document's jurisdiction; a certified U.S. provider is covered by the
// jurisdiction's certification mechanism where certification alone implies
// it (the EU-U.S. DPF; the UK Extension must be stated).
func mechanisms(j catalog.Jurisdiction, s ServiceFact) []string {
	out := slices.Clone(s.Transfers[j.ID])
	certified := s.ProviderCountry == "US" && s.DataPrivacyFramework != nil && *s.DataPrivacyFramework
	if j.CertificationImplied && certified && !slices.Contains(out, j.Certification) {
		out = append([]string{j.Certification}, out...)
	}
	return out
}

// transferBasis is what a service's transfer out of the region rests on.
func transferBasis(j catalog.Jurisdiction, s ServiceFact) int {
	mechs := mechanisms(j, s)
	adequate := func(c string) bool { return slices.Contains(j.Adequate, c) || slices.Contains(j.Countries, c) }
	accessOK := !slices.ContainsFunc(s.AccessCountries, func(c string) bool { return !adequate(c) })
	switch {
	case s.ProviderCountry != "" && adequate(s.ProviderCountry) && accessOK:
		return basisAdequacy
	case s.ProviderCountry == "US" && j.Certification != "" && slices.Contains(mechs, j.Certification) && accessOK:
		return basisDPF
	case slices.ContainsFunc(mechs, func(m string) bool { return m != j.Certification }):
		return basisContract
	}
	return basisNone
}

func genCookies(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("cookie", "provider", "purpose", "duration", "cookieType")}
	kind := func(essential bool) []Inline {
		switch {
		case essential:
			return text(b.label("cookie.essential"))
		case b.f.gdprFamily():
			return text(b.label("cookie.nonEssential"))
		}
		return text(b.label("cookie.nonEssential.US-CA"))
	}
	for _, s := range b.f.Services {
		for _, c := range s.Cookies {
			d := c.Duration
			if d == "" {
				d = b.label("cookie.durationUnknown")
			}
			t.Rows = append(t.Rows, [][]Inline{text(c.Name), text(s.Name), text(c.Purpose), text(d), kind(s.Essential)})
		}
		// Known to set cookies, but no source named them: say so rather
		// than leave the service out of the table.
		if s.SetsCookiesKnown() && len(s.Cookies) == 0 {
			t.Rows = append(t.Rows, [][]Inline{text(b.label("cookie.unlisted")), text(s.Name), text(b.label("cookie.unlistedPurpose")), text(b.label("cookie.durationUnknown")), kind(s.Essential)})
		}
	}
	if b.f.AnalyticsCookiesAssumed {
		t.Rows = append(t.Rows, [][]Inline{
			{{Kind: Missing, Text: b.label("missing.cookieNames")}},
			text(b.label("cookie.analyticsTool")),
			text(b.label("purpose.analytics")),
			{{Kind: Missing, Text: b.label("missing.cookieDuration")}},
			kind(false),
		})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return []Block{t}
}

// cookiesUnconfirmed names the services whose use of cookies no source
// confirmed, strictly necessary ones apart from the others.
func (f *Facts) cookiesUnconfirmed() (essential, other []string) {
	for _, s := range f.Services {
		if !s.CookiesUnknown() {
			continue
		}
		if s.Essential {
			essential = append(essential, s.Name)
		} else {
			other = append(other, s.Name)
		}
	}
	return essential, other
}

// genCookiesUnknown names the services whose use of cookies no source
// confirmed, without saying either that they set cookies or that they
// do not.
func genCookiesUnknown(b *builder) []Block {
	essential, other := b.f.cookiesUnconfirmed()
	var out []Block
	if len(essential) > 0 {
		out = append(out, Block{Kind: Paragraph, Inlines: b.expand(b.jlabel("cookie.unknown.essential"), map[string][]Inline{"services": text(b.join(essential))})})
	}
	if len(other) > 0 {
		out = append(out, Block{Kind: Paragraph, Inlines: b.expand(b.jlabel("cookie.unknown.nonEssential"), map[string][]Inline{"services": text(b.join(other))})})
	}
	return out
}

// cookiePurposes are the purposes for which cookies that need consent are set.
var cookiePurposes = []string{"analytics", "advertising", "embedded_content"}

func genCookiePurposes(b *builder) []Block {
	l := Block{Kind: List, Items: [][]Inline{text(b.label("cookie.purposes.strictlyNecessary"))}}
	for _, p := range b.f.Purposes {
		if slices.Contains(cookiePurposes, p.ID) {
			l.Items = append(l.Items, text(b.label("purpose."+p.ID)+"."))
		}
	}
	return []Block{l}
}

// gdprFamily reports whether the GDPR or the UK GDPR applies.
func (f *Facts) gdprFamily() bool { return f.HasLaw(lawGDPR) || f.HasLaw(lawUKGDPR) }

func genRetentionPurposes(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("purpose", "retention")}
	for _, p := range b.f.Purposes {
		name := b.label("purpose." + p.ID)
		if !b.f.gdprFamily() {
			// The CCPA category table refers to purposes by these names.
			name = b.label("purpose." + p.ID + ".short")
		}
		period := b.jlabel("purpose."+p.ID+".retention") + "."
		if r, ok := b.f.Request.Retention[p.ID]; ok {
			period = capFirst(strings.TrimSuffix(r, ".")) + "."
		}
		// What a provider keeps for the purpose, as it states it.
		for _, s := range b.f.Services {
			if s.Retention != "" && slices.Contains(s.Purposes, p.ID) {
				period += " " + b.expandText(b.label("retention.service"), map[string][]Inline{"service": text(s.Name), "retention": text(s.Retention)})
			}
		}
		t.Rows = append(t.Rows, [][]Inline{text(name), text(period)})
	}
	return []Block{t}
}

// genRetentionCategories gives each category its retention: the
// criterion of its purpose, or, for a category used for several purposes,
// the longest of their criteria (listed by genRetentionPurposes).
func genRetentionCategories(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("category", "retention")}
	for _, c := range b.f.Categories {
		var shorts []string
		var only string
		for _, p := range b.f.Purposes {
			if slices.Contains(c.Purposes, p.ID) {
				shorts = append(shorts, b.label("purpose."+p.ID+".short"))
				only = b.jlabel("purpose."+p.ID+".retention") + "."
			}
		}
		cell := only
		if len(shorts) > 1 {
			cell = b.expandText(b.label("retention.longestOf"), map[string][]Inline{"purposes": text(b.join(shorts))})
		}
		t.Rows = append(t.Rows, [][]Inline{text(b.label("category." + c.ID)), text(cell)})
	}
	return []Block{t}
}

// ccpaGroup is one statutory CCPA category and what the facts say about it.
type ccpaGroup struct {
	letter      string
	categories  []string
	sources     []string
	purposes    []string
	soldTo      []string // service categories of third-party recipients
	soldFor     []string // purposes of those recipients
	disclosed   []string // service categories of service-provider recipients
	discloseFor []string // purposes of those recipients
}

func (b *builder) ccpaGroups() []ccpaGroup {
	var groups []ccpaGroup
	for _, letter := range []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "other"} {
		g := ccpaGroup{letter: letter}
		for _, c := range b.f.Categories {
			if !slices.Contains(c.CCPA, letter) {
				continue
			}
			g.categories = append(g.categories, c.ID)
			g.sources = addUnique(g.sources, c.Sources...)
			g.purposes = addUnique(g.purposes, c.Purposes...)
			for _, id := range c.Recipients {
				s := b.f.service(id)
				cat := b.label("serviceCategory." + s.Category)
				if s.SellsOrShares {
					g.soldTo = addUnique(g.soldTo, cat)
					g.soldFor = addUnique(g.soldFor, s.Purposes...)
				} else {
					g.disclosed = addUnique(g.disclosed, cat)
					g.discloseFor = addUnique(g.discloseFor, s.Purposes...)
				}
			}
		}
		if len(g.categories) > 0 {
			slices.Sort(g.sources)
			groups = append(groups, g)
		}
	}
	return groups
}

func (f *Facts) service(id string) ServiceFact {
	i := slices.IndexFunc(f.Services, func(s ServiceFact) bool { return s.ID == id })
	return f.Services[i]
}

func genCCPACategories(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("ccpaCategory", "examples", "source", "purposes", "soldShared")}
	for _, g := range b.ccpaGroups() {
		examples := make([]string, len(g.categories))
		for i, c := range g.categories {
			examples[i] = b.examples(c)
		}
		srcs := make([]string, len(g.sources))
		for i, s := range g.sources {
			srcs[i] = b.label("source." + s)
		}
		var ps []string
		for _, p := range b.f.Purposes {
			if slices.Contains(g.purposes, p.ID) {
				ps = addUnique(ps, b.label("purpose."+p.ID+".ccpa"))
			}
		}
		sold := text(b.label("ccpa.soldShared.no"))
		if len(g.soldTo) > 0 {
			sold = b.labelInlines("ccpa.soldShared.yes", map[string][]Inline{"recipients": text(b.join(g.soldTo))})
		}
		t.Rows = append(t.Rows, [][]Inline{
			text(b.label("ccpa." + g.letter)),
			text(strings.Join(examples, "; ")),
			text(capFirst(b.join(srcs))),
			text(strings.Join(ps, "; ")),
			sold,
		})
	}
	return []Block{t}
}

func genCCPASensitive(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("category", "purposes", "soldShared")}
	for _, c := range b.f.Categories {
		if !c.Sensitive {
			continue
		}
		var ps []string
		for _, p := range b.f.Purposes {
			if slices.Contains(c.Purposes, p.ID) {
				ps = addUnique(ps, b.label("purpose."+p.ID+".ccpa"))
			}
		}
		name := b.label("ccpa.sensitive." + c.ID)
		if name == "" {
			name = b.label("category." + c.ID)
		}
		t.Rows = append(t.Rows, [][]Inline{text(name), text(strings.Join(ps, "; ")), text(b.label("ccpa.soldShared.no"))})
	}
	return []Block{t}
}

func genCCPASold(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("ccpaCategory", "thirdParties", "sellPurposes")}
	for _, g := range b.ccpaGroups() {
		if len(g.soldTo) > 0 {
			t.Rows = append(t.Rows, [][]Inline{text(b.label("ccpa." + g.letter)), text(b.join(g.soldTo)), text(b.ccpaPurposes(g.soldFor))})
		}
	}
	return []Block{t}
}

func genCCPADisclosed(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("ccpaCategory", "disclosedTo", "disclosePurposes")}
	for _, g := range b.ccpaGroups() {
		if len(g.disclosed) > 0 {
			t.Rows = append(t.Rows, [][]Inline{text(b.label("ccpa." + g.letter)), text(b.join(g.disclosed)), text(b.ccpaPurposes(g.discloseFor))})
		}
	}
	if len(t.Rows) == 0 {
		return []Block{{Kind: Paragraph, Inlines: text(b.label("ccpa.disclosed.none"))}}
	}
	return []Block{{Kind: Paragraph, Inlines: text(b.label("ccpa.disclosed.intro"))}, t}
}

// ccpaPurposes names purposes in CCPA terms, in catalog order.
func (b *builder) ccpaPurposes(ids []string) string {
	var out []string
	for _, p := range b.f.Purposes {
		if slices.Contains(ids, p.ID) {
			out = addUnique(out, b.label("purpose."+p.ID+".ccpa"))
		}
	}
	return strings.Join(out, "; ")
}

func genCCPASources(b *builder) []Block {
	var all []string
	for _, c := range b.f.Categories {
		all = addUnique(all, c.Sources...)
	}
	l := Block{Kind: List}
	for _, s := range []string{"you", "device", "derived"} {
		if slices.Contains(all, s) {
			key := "source." + s + ".description"
			if s == "device" && (b.f.hasServiceCategory("email_marketing") || b.f.hasServiceCategory("crm")) {
				key += ".emails"
			}
			l.Items = append(l.Items, text(b.label(key)))
		}
	}
	return []Block{l}
}

func capFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// genUSShared (issue 8, US state privacy laws) lists, in the document's
// own category names, each category of personal data the business shares
// with third parties (services that do not act only for it) and the
// categories of those third parties (e.g. Va. Code § 59.1-578(C)(4)-(5)).
func genUSShared(b *builder) []Block {
	t := Block{Kind: Table, Header: b.header("category", "thirdParties")}
	for _, c := range b.f.Categories {
		var to []string
		for _, id := range c.SoldShared {
			to = addUnique(to, b.label("serviceCategory."+b.f.service(id).Category))
		}
		if len(to) > 0 {
			t.Rows = append(t.Rows, [][]Inline{text(b.label("category." + c.ID)), text(b.join(to))})
		}
	}
	return []Block{t}
}
