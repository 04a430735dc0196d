package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
)

// Document is the format-neutral tree a policy is rendered from: step 4 of
// the pipeline. Strings in it are raw; renderers escape them.
type Document struct {
	Title  []Inline
	Blocks []Block
	// Evidence says, for each applicable requirement, which section
	// satisfies it, in checklist order.
	Evidence []Evidence
}

// Evidence ties a checklist requirement to the section that satisfies it.
type Evidence struct {
	Requirement string `json:"requirement"`
	Citation    string `json:"citation"`
	Section     string `json:"section"`
	Heading     string `json:"heading"`
	Anchor      string `json:"anchor"`
	Clause      string `json:"clause"`
}

// BlockKind is the kind of a Block.
type BlockKind int

const (
	Heading BlockKind = iota
	Paragraph
	List
	Table
)

// Block is one block-level element.
type Block struct {
	Kind    BlockKind
	Level   int  // Heading: 2 for sections, 3 below
	Strong  bool // Paragraph: a prominent statement
	Section string
	// Anchor is a section heading's fragment id: its text as GitHub and
	// the HTML renderer slug it ("Your rights" -> "your-rights").
	Anchor  string
	Inlines []Inline   // Heading, Paragraph
	Items   [][]Inline // List
	Header  [][]Inline // Table
	Rows    [][][]Inline
}

// InlineKind is the kind of an Inline.
type InlineKind int

const (
	Plain InlineKind = iota
	Link
	// Missing marks a fact the request did not give; renderers make it stand out.
	Missing
)

// Inline is a run of text.
type Inline struct {
	Kind InlineKind
	Text string
	URL  string // Link
}

// GapError reports applicable requirements no included clause satisfies.
type GapError struct {
	Requirements []string
}

func (e *GapError) Error() string {
	return "policy: requirements not satisfied by any clause: " + strings.Join(e.Requirements, ", ")
}

// builder turns facts into a Document in one language.
type builder struct {
	f    *Facts
	t    *Wording
	date time.Time
	vars map[string][]Inline
	// regime is the jurisdiction whose words the current clause uses
	// (jlabel, region, law, authority): the primary one, or in a
	// document for several transfer regimes the regime a clause or table
	// is about.
	regime catalog.Jurisdiction
	// base are the document's placeholder values; byJurisdiction the same
	// with one listed jurisdiction's region, law, authority and
	// representative, set only when the document covers several.
	base           map[string][]Inline
	byJurisdiction map[string]map[string][]Inline
}

func (b *builder) label(key string) string {
	return b.t.Labels[key]
}

// labelInlines expands a label's placeholders.
func (b *builder) labelInlines(key string, extra map[string][]Inline) []Inline {
	return b.expand(b.label(key), extra)
}

// expand turns a line of clause text into inlines, substituting
// placeholders ({name}, ASCII letters; placeholder in clauses.go is the
// same pattern for the library check). A name with no value stays as
// written. Plain text runs are merged into one inline.
func (b *builder) expand(s string, extra map[string][]Inline) []Inline {
	if s == "" {
		return nil
	}
	if strings.IndexByte(s, '{') < 0 {
		return []Inline{{Kind: Plain, Text: s}}
	}
	var out []Inline
	var plain []byte // the plain run being built
	flush := func() {
		if len(plain) > 0 {
			out = append(out, Inline{Kind: Plain, Text: string(plain)})
			plain = plain[:0]
		}
	}
	i := 0
	for {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			break
		}
		j += i
		k := j + 1
		for k < len(s) && ('a' <= s[k] && s[k] <= 'z' || 'A' <= s[k] && s[k] <= 'Z') {
			k++
		}
		if k == j+1 || k == len(s) || s[k] != '}' {
			plain = append(plain, s[i:j+1]...)
			i = j + 1
			continue
		}
		plain = append(plain, s[i:j]...)
		name := s[j+1 : k]
		v, ok := extra[name]
		if !ok {
			v, ok = b.vars[name]
		}
		if !ok {
			plain = append(plain, s[j:k+1]...)
		}
		for _, in := range v {
			if in.Kind == Plain {
				plain = append(plain, in.Text...)
			} else {
				flush()
				out = append(out, in)
			}
		}
		i = k + 1
	}
	plain = append(plain, s[i:]...)
	flush()
	return out
}

func text(s string) []Inline { return []Inline{{Kind: Plain, Text: s}} }

// userText makes a user-supplied string one line: runs of whitespace,
// including newlines in a postal address, become ", " or " " so that no
// format can read structure into them.
func userText(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
	return strings.Join(lines, ", ")
}

func (b *builder) setVars() {
	f, req := b.f, b.f.Request
	missing := func(field string) []Inline {
		return []Inline{{Kind: Missing, Text: b.label("missing." + field)}}
	}
	v := map[string][]Inline{
		"businessName":    text(userText(req.BusinessName)),
		"websiteUrl":      {{Kind: Link, Text: req.WebsiteURL, URL: req.WebsiteURL}},
		"effectiveDate":   text(b.date.Format(b.t.DateFormat)),
		"templateVersion": text(TemplateVersion),
		"region":          text(b.label("region." + f.Jurisdiction.ID)),
		"dpoContact":      text(userText(req.DPOContact)),
		"phone":           text(req.Phone),
		"minorsStatement": missing("minorsStatement"),
		"tollFreeNumber":  missing("tollFreeNumber"),
		"representative":  missing("representative"),
		"hostingProvider": missing("hostingProvider"),
		"consentMethod":   missing("consentMethod"),
		// Disclaimer (issue 8, t2): shown only while affiliateLinks is not stated.
		"affiliateStatus": missing("affiliateLinks"),
	}
	// Without an opt-out link and signal processing the document says so;
	// not stated, it shows a placeholder (a todo).
	v["optOutLinkStatus"], v["optOutSignalsStatus"] = missing("optOutLink"), missing("optOutLink")
	if req.OptOutLink != nil && !*req.OptOutLink {
		v["optOutLinkStatus"], v["optOutSignalsStatus"] = text(b.label("optOut.noLink")), text(b.label("optOut.noSignals"))
	}
	if req.TollFreeNumber != "" {
		v["tollFreeNumber"] = text(req.TollFreeNumber)
	}
	if r := f.representative(); r != "" {
		v["representative"] = text(userText(r))
	}
	if m := req.SellsMinorsData; m != nil {
		v["minorsStatement"] = text(b.label(map[bool]string{true: "minors.yes", false: "minors.no"}[*m]))
	}
	if req.MemberState != "" {
		if a, ok := f.Jurisdiction.Authorities[req.MemberState]; ok {
			v["memberStateName"] = text(b.country(req.MemberState))
			v["memberAuthorityName"] = text(a.Name)
			v["memberAuthorityUrl"] = []Inline{{Kind: Link, Text: a.URL, URL: a.URL}}
		}
	}
	var joint, email, cross []string
	for _, s := range f.Services {
		if s.JointController != nil && *s.JointController {
			joint = append(joint, s.Name)
		}
		if emailTracker(s) {
			email = append(email, s.Name)
		}
		if crossSite(s) {
			cross = append(cross, s.Name)
		}
	}
	v["jointServices"] = text(b.join(joint))
	v["emailServices"] = text(b.join(email))
	v["crossSiteServices"] = text(capFirst(b.join(cross)))
	v["unknownServices"] = text(b.join(f.Unknown))
	if req.ContactEmail != "" {
		v["contactEmail"] = []Inline{{Kind: Link, Text: req.ContactEmail, URL: "mailto:" + req.ContactEmail}}
	} else {
		v["contactEmail"] = missing("contactEmail")
	}
	v["postalAddress"] = text(userText(req.PostalAddress))
	// Issue 8, part j3: a clause that must give the address (APPI Art.
	// 32(1)(i), Thai PDPA s 23(5)) shows a placeholder when it is missing;
	// the other clauses use it only under hasPostalAddress.
	if req.PostalAddress == "" {
		v["postalAddress"] = missing("postalAddress")
	}
	// The same for the Indian Grievance Officer (IT (SPDI) Rules 2011,
	// r 5(9)); the other clauses use dpoContact only under hasDPO.
	if req.DPOContact == "" {
		v["dpoContact"] = missing("dpoContact")
	}
	if a := f.Jurisdiction.Authority; a != nil {
		v["authorityName"] = text(a.Name)
		v["authorityUrl"] = []Inline{{Kind: Link, Text: a.URL, URL: a.URL}}
	}
	for _, l := range f.Laws {
		if n := b.label("law." + l.ID); n != "" {
			v["lawName"] = text(n)
			v["lawShort"] = text(b.label("lawShort." + l.ID))
		}
	}
	var cats []string
	for _, s := range f.Services {
		cats = addUnique(cats, b.label("serviceCategory."+s.Category))
	}
	if len(f.Unknown) > 0 {
		cats = addUnique(cats, b.label("serviceCategory.unknown"))
	}
	v["recipientCategories"] = text(b.join(cats))
	var sold []string
	for _, s := range f.Services {
		if s.SellsOrShares {
			sold = append(sold, s.Name)
		}
	}
	v["soldSharedServices"] = text(b.join(sold))
	var without []string
	for _, p := range f.Purposes {
		if w, ok := b.t.Labels["purpose."+p.ID+".withoutData"]; ok {
			without = append(without, w)
		}
	}
	v["provisionExamples"] = text(b.joinOr(without))
	// Issue 8, part j1: the person in charge in Québec (s. 3.1) and the
	// encarregado in Brazil (LGPD Art. 41) must be named; missing, they are
	// placeholders (and todos).
	v["privacyOfficer"], v["encarregado"] = missing("privacyOfficer"), missing("encarregado")
	if req.PrivacyOfficer != "" {
		v["privacyOfficer"] = text(userText(req.PrivacyOfficer))
	}
	if req.DPOContact != "" {
		v["encarregado"] = text(userText(req.DPOContact))
	}
	b.contractVars(v, missing)
	b.shippingVars(v, missing) // shipping policy (issue 8, t4)
	b.varsJ2(v)                // issue 8, part j2 (j2.go)
	b.regime = f.Jurisdiction
	if len(f.Jurisdictions) > 1 {
		// Each listed jurisdiction's words: its region, its law (as in a
		// document for it alone: its last law with a name label), its
		// authority and Art. 27 representative.
		b.byJurisdiction = map[string]map[string][]Inline{}
		for _, r := range f.Jurisdictions {
			rv := maps.Clone(v)
			rv["region"] = text(b.label("region." + r.ID))
			for _, l := range f.Laws {
				if n := b.label("law." + l.ID); n != "" && slices.Contains(l.Jurisdictions, r.ID) {
					rv["lawName"], rv["lawShort"] = text(n), text(b.label("lawShort."+l.ID))
				}
			}
			if a := r.Authority; a != nil {
				rv["authorityName"] = text(a.Name)
				rv["authorityUrl"] = []Inline{{Kind: Link, Text: a.URL, URL: a.URL}}
			}
			if rep := f.representativeFor(r); rep != "" {
				rv["representative"] = text(userText(rep))
			} else {
				rv["representative"] = missing("representative")
			}
			b.byJurisdiction[r.ID] = rv
		}
		// Clauses about no one jurisdiction speak of the primary one's law,
		// or, with several transfer regimes, of all of them at once.
		v = maps.Clone(b.byJurisdiction[f.Jurisdiction.ID])
		if len(f.Regimes) > 1 {
			var regions, names, shorts []string
			for _, r := range f.Regimes {
				rv := b.byJurisdiction[r.ID]
				regions = append(regions, b.label("region."+r.ID))
				if n, ok := rv["lawName"]; ok {
					names, shorts = append(names, n[0].Text), append(shorts, rv["lawShort"][0].Text)
				}
			}
			v["region"], v["lawName"], v["lawShort"] = text(b.join(regions)), text(b.join(names)), text(b.join(shorts))
		}
	}
	b.base = v
	b.vars = v
}

// contractVars fills the placeholders of the contract documents (terms,
// eula, acceptable-use): the governing law, the minimum age and the
// subscription terms, each a placeholder (and a todo) when not given.
func (b *builder) contractVars(v map[string][]Inline, missing func(string) []Inline) {
	req := b.f.Request
	v["governingLaw"], v["minimumAge"] = missing("governingLaw"), missing("minimumAge")
	v["subscriptionTerms"] = missing("subscriptions")
	v["billingPeriod"], v["cancellationMethod"] = missing("billingPeriod"), missing("cancellation")
	if req.GoverningLaw != "" {
		v["governingLaw"] = text(governingLawName(req.GoverningLaw))
	}
	if req.MinimumAge > 0 {
		v["minimumAge"] = text(fmt.Sprint(req.MinimumAge))
	}
	// Refund policy (issue 8, t3): the voluntary return window.
	v["refundWindowDays"] = missing("refundWindowDays")
	v["returnShippingPaidBy"] = missing("returnShippingPaidBy") // used only while not stated
	if d := req.RefundWindowDays; d != nil {
		v["refundWindowDays"] = text(fmt.Sprint(*d))
	}
	if s := req.Subscriptions; s != nil && s.BillingPeriod != "" {
		v["billingPeriod"] = text(b.label("billingPeriod." + s.BillingPeriod))
	}
	if s := req.Subscriptions; s != nil && s.Cancellation != "" {
		v["cancellationMethod"] = b.labelInlines("cancellation."+s.Cancellation, map[string][]Inline{"websiteUrl": v["websiteUrl"], "contactEmail": v["contactEmail"]})
	}
}

// shippingVars fills the shipping policy's placeholders (issue 8, t4):
// where the business ships ("shippingRegions") and when it dispatches
// ("dispatchTime"), each a placeholder (and a todo) when not given.
func (b *builder) shippingVars(v map[string][]Inline, missing func(string) []Inline) {
	req := b.f.Request
	v["shippingRegions"], v["dispatchTime"] = missing("shippingRegions"), missing("dispatchDays")
	if len(req.ShippingRegions) > 0 {
		names := make([]string, len(req.ShippingRegions))
		for i, code := range req.ShippingRegions {
			switch code {
			case ShipWorldwide, ShipEU:
				names[i] = b.label("shipTo." + code)
			default:
				names[i] = CountryName(code)
			}
		}
		v["shippingRegions"] = text(b.join(names))
	}
	if d := req.DispatchDays; d != nil {
		switch *d {
		case 0:
			v["dispatchTime"] = text(b.label("dispatch.sameDay"))
		case 1:
			v["dispatchTime"] = text(b.label("dispatch.oneDay"))
		default:
			v["dispatchTime"] = text(strings.ReplaceAll(b.label("dispatch.days"), "#", fmt.Sprint(*d)))
		}
	}
}

// join lists items in prose: "a, b and c".
func (b *builder) join(items []string) string {
	switch len(items) {
	case 0:
		return b.label("none")
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], b.label("listSeparator")) + b.label("listLastSeparator") + items[len(items)-1]
}

// joinOr lists alternatives in prose: "a, b or c".
func (b *builder) joinOr(items []string) string {
	if len(items) < 2 {
		return b.join(items)
	}
	return strings.Join(items[:len(items)-1], b.label("listSeparator")) + b.label("listLastSeparatorOr") + items[len(items)-1]
}

// useJurisdiction makes r's words current (the document's own when r is
// the zero value).
func (b *builder) useJurisdiction(r catalog.Jurisdiction) {
	if rv, ok := b.byJurisdiction[r.ID]; ok {
		b.regime, b.vars = r, rv
		return
	}
	b.regime, b.vars = b.f.Jurisdiction, b.base
}

// clauseJurisdiction is the one listed jurisdiction whose laws a clause
// satisfies (the UK complaint clause satisfies UK GDPR only; Brazil's
// clauses the LGPD), or the zero value for a clause about several
// jurisdictions or none, which speaks with the document's own words.
func (b *builder) clauseJurisdiction(c Clause) catalog.Jurisdiction {
	var found []catalog.Jurisdiction
	for i, id := range c.Satisfies {
		r, ok := compliance.FindRequirement(b.f.Laws, id)
		if !ok {
			continue
		}
		li := slices.IndexFunc(b.f.Laws, func(l compliance.Law) bool { return l.ID == r.Law })
		covered := slices.DeleteFunc(slices.Clone(b.f.Jurisdictions), func(j catalog.Jurisdiction) bool {
			return !slices.Contains(b.f.Laws[li].Jurisdictions, j.ID)
		})
		if i == 0 || found == nil {
			found = covered
			continue
		}
		found = slices.DeleteFunc(found, func(j catalog.Jurisdiction) bool {
			return !slices.ContainsFunc(covered, func(k catalog.Jurisdiction) bool { return k.ID == j.ID })
		})
	}
	if len(found) != 1 {
		return catalog.Jurisdiction{}
	}
	return found[0]
}

// holds reports whether every condition of when holds: "x" holds when x
// does, "!x" when x does not, and "a|b" when either of its alternatives
// (each possibly negated) holds.
func holds(cond map[string]bool, when []string) bool {
	one := func(w string) bool {
		if name, neg := strings.CutPrefix(w, "!"); neg {
			return !cond[name]
		}
		return cond[w]
	}
	for _, w := range when {
		ok := false
		for alt := range strings.SplitSeq(w, "|") {
			if one(alt) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// build selects the clauses whose conditions hold and assembles the tree,
// recording which section satisfies each requirement.
func (b *builder) build(s *Structure, applicable []compliance.Requirement) (*Document, error) {
	b.setVars()
	cond := b.f.conditions()
	n := 0
	for _, sec := range s.Sections {
		n += 1 + len(sec.Clauses)
	}
	doc := &Document{Title: text(b.t.Titles[s.Type]), Blocks: make([]Block, 0, n)}
	satisfied := make(map[string][2]string, len(applicable))
	var blocks []Block // one section's, reused
	for _, sec := range s.Sections {
		if !holds(cond, sec.When) {
			continue
		}
		blocks = blocks[:0]
		for _, c := range sec.Clauses {
			if !holds(cond, c.When) {
				continue
			}
			if b.byJurisdiction != nil {
				b.useJurisdiction(b.clauseJurisdiction(c))
			}
			cb, err := b.clause(c.ID, sec.ID)
			if err != nil {
				return nil, err
			}
			// A clause that only adds list items continues the list of
			// the clause before it.
			if n := len(blocks); n > 0 && len(cb) > 0 && blocks[n-1].Kind == List && cb[0].Kind == List {
				blocks[n-1].Items = append(blocks[n-1].Items, cb[0].Items...)
				cb = cb[1:]
			}
			blocks = append(blocks, cb...)
			for _, r := range c.Satisfies {
				if _, done := satisfied[r]; !done {
					satisfied[r] = [2]string{sec.ID, c.ID}
				}
			}
		}
		if len(blocks) == 0 {
			continue
		}
		heading := b.t.Sections[sec.ID]
		doc.Blocks = append(doc.Blocks, Block{Kind: Heading, Level: 2, Section: sec.ID, Anchor: slug(heading), Inlines: text(heading)})
		doc.Blocks = append(doc.Blocks, blocks...)
	}
	fillContents(doc)
	doc.Evidence = make([]Evidence, 0, len(applicable))
	var gaps []string
	for _, r := range applicable {
		where, ok := satisfied[r.ID]
		if !ok {
			gaps = append(gaps, r.ID)
			continue
		}
		heading := b.t.Sections[where[0]]
		doc.Evidence = append(doc.Evidence, Evidence{Requirement: r.ID, Citation: r.Citation, Section: where[0], Heading: heading, Anchor: slug(heading), Clause: where[1]})
	}
	if len(gaps) > 0 {
		return doc, &GapError{Requirements: gaps}
	}
	return doc, nil
}

// clause turns one clause's lines into blocks: "- " lines become list
// items, "!" lines prominent paragraphs, "@name" lines generated blocks,
// anything else a paragraph.
func (b *builder) clause(id, section string) ([]Block, error) {
	lines, ok := b.t.Clauses[id]
	if !ok {
		return nil, fmt.Errorf("policy: language %s has no text for clause %s", b.t.Language, id)
	}
	var out []Block
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "@"):
			gen, ok := generators[line[1:]]
			if !ok {
				return nil, fmt.Errorf("policy: clause %s: unknown generator %s", id, line)
			}
			for _, blk := range gen(b) {
				blk.Section = section
				out = append(out, blk)
			}
		case strings.HasPrefix(line, "- "):
			item := b.expand(line[2:], nil)
			if n := len(out); n > 0 && out[n-1].Kind == List {
				out[n-1].Items = append(out[n-1].Items, item)
			} else {
				out = append(out, Block{Kind: List, Section: section, Items: [][]Inline{item}})
			}
		case strings.HasPrefix(line, "!"):
			out = append(out, Block{Kind: Paragraph, Strong: true, Section: section, Inlines: b.expand(line[1:], nil)})
		default:
			out = append(out, Block{Kind: Paragraph, Section: section, Inlines: b.expand(line, nil)})
		}
	}
	return out, nil
}

// contentsSection holds the table of contents; summarySection the summary.
const (
	contentsSection = "contents"
	summarySection  = "summary"
)

// fillContents fills the table of contents (the list genContents left
// empty) with a link to every section after it.
func fillContents(doc *Document) {
	toc := slices.IndexFunc(doc.Blocks, func(b Block) bool { return b.Section == contentsSection && b.Kind == List })
	if toc < 0 {
		return
	}
	var items [][]Inline
	for _, blk := range doc.Blocks[toc+1:] {
		if blk.Kind == Heading && blk.Level == 2 {
			items = append(items, []Inline{{Kind: Link, Text: blk.Inlines[0].Text, URL: "#" + blk.Anchor}})
		}
	}
	doc.Blocks[toc].Items = items
}

// slug is a heading's fragment id as GitHub makes it: lower case, letters,
// digits, hyphens and underscores kept, spaces as hyphens.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
