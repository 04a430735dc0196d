package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/policygen/policygen/pkg/errs"
)

// Request is a validated, normalised generation request: what the client
// asked for, in canonical form. The zero values of optional fields are
// replaced by their defaults by ParseRequest.
type Request struct {
	Type               string   `json:"type"`
	BusinessName       string   `json:"businessName"`
	WebsiteURL         string   `json:"websiteUrl"`
	BusinessType       string   `json:"businessType"`
	Language           string   `json:"language"`
	Jurisdiction       string   `json:"jurisdiction"`
	CollectsPayments   bool     `json:"collectsPayments"`
	CollectsUserData   bool     `json:"collectsUserData"`
	UsesAnalytics      bool     `json:"usesAnalytics"`
	ThirdPartyServices []string `json:"thirdPartyServices"`
	// MemberState is the EU or EEA state whose supervisory authority the
	// document names for complaints (ISO 3166-1 alpha-2); set when the
	// jurisdiction was given as a member state ("DE", "France").
	MemberState   string `json:"memberState,omitempty"`
	ContactEmail  string `json:"contactEmail,omitempty"`
	PostalAddress string `json:"postalAddress,omitempty"`
	Phone         string `json:"phone,omitempty"`
	// TollFreeNumber is the toll-free telephone number for CCPA requests
	// (Cal. Civ. Code § 1798.130(a)(1)(A)).
	TollFreeNumber string `json:"tollFreeNumber,omitempty"`
	// EstablishedIn is the country (ISO 3166-1 alpha-2) where the business
	// is established: it decides whether an Art. 27 representative is needed.
	EstablishedIn    string `json:"establishedIn,omitempty"`
	DPOContact       string `json:"dpoContact,omitempty"`
	EURepresentative string `json:"euRepresentative,omitempty"`
	UKRepresentative string `json:"ukRepresentative,omitempty"`
	// The tri-state answers below are nil when the request does not say.
	OnlineOnly    *bool `json:"onlineOnly,omitempty"`    // operates exclusively online (CCPA request methods)
	ConsentBanner *bool `json:"consentBanner,omitempty"` // asks for cookie consent before non-essential cookies are set
	// SellsMinorsData: the business has actual knowledge that it sells or
	// shares personal information of consumers under 16.
	SellsMinorsData *bool `json:"sellsMinorsData,omitempty"`
	// OptOutLink: the website has a "Do Not Sell or Share My Personal
	// Information" link and processes opt-out preference signals (GPC).
	OptOutLink *bool `json:"optOutLink,omitempty"`
	// SellsSensitiveData and SellsBiometricData (issue 8, US states): the
	// business sells personal data that is sensitive data, or biometric
	// data; Texas then prescribes a notice (Tex. Bus. & Com. Code
	// § 541.102(b), (c)).
	SellsSensitiveData *bool `json:"sellsSensitiveData,omitempty"`
	SellsBiometricData *bool `json:"sellsBiometricData,omitempty"`
	// CCPAThresholdsMet: the business meets a threshold of Cal. Civ. Code
	// § 1798.140(d)(1); when false the CCPA does not apply to it.
	CCPAThresholdsMet *bool `json:"ccpaThresholdsMet,omitempty"`
	// HostingProvider is a catalog service id, or the name of a provider
	// the catalog does not know.
	HostingProvider string `json:"hostingProvider,omitempty"`
	// Retention maps purpose ids to how long data is kept for them.
	Retention map[string]string `json:"retention,omitempty"`
	// TransferSafeguards maps a service (catalog id) to the transfer
	// mechanisms the business's contract with it relies on, for the
	// document's jurisdiction (catalog.TransferMechanisms).
	TransferSafeguards map[string][]string `json:"transferSafeguards,omitempty"`
	Format             string              `json:"format"`
	// EffectiveDate is the document's "Last updated" date, YYYY-MM-DD. It is
	// part of the input so that the normalised request alone reproduces the
	// document byte for byte; the API fills in the creation date (UTC) when
	// the client leaves it out.
	EffectiveDate string `json:"effectiveDate"`
}

// Field bounds. They are part of the API contract (openapi.yaml).
const (
	MaxBusinessName  = 200
	MaxWebsiteURL    = 2048
	MaxContactEmail  = 254
	MaxPostalAddress = 500
	MaxServices      = 50
	MaxServiceID     = 64
	MaxPhone         = 40
	MaxContact       = 500 // DPO and representatives: a name and how to reach them
	MaxRetention     = 300
)

// Defaults of the optional fields.
const (
	DefaultLanguage = "en"
	DefaultFormat   = "markdown"
)

// Formats a document can be rendered in.
var Formats = []string{"markdown", "html", "text"}

// ParseRequest decodes a JSON generation request and validates every field,
// reporting all problems at once. Malformed JSON or a body that is not an
// object is errs.Invalid (400, code invalid_json); field problems are
// errs.Unprocessable (422, code validation_failed) with one FieldError per
// offending field.
func ParseRequest(body []byte) (Request, error) {
	raw, dups, err := decodeObject(body)
	if err != nil {
		return Request{}, err
	}
	var (
		req  Request
		bad  errs.Fields
		text func(name string, required bool, max int, multiline bool) (string, bool)
	)
	for _, name := range dups {
		// Two parsers could read a repeated member differently (first or
		// last wins), so the request is ambiguous: say so.
		bad.Add(name, "appears more than once")
	}
	for name := range raw {
		if !slices.Contains(fieldNames, name) {
			bad.Add(name, "unknown field")
		}
	}

	str := func(name string, required bool, max int) (string, bool) {
		return text(name, required, max, false)
	}
	text = func(name string, required bool, max int, multiline bool) (string, bool) {
		v, ok := raw[name]
		if !ok || string(v) == "null" {
			if required {
				bad.Add(name, "is required")
			}
			return "", false
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			bad.Add(name, "must be a string")
			return "", false
		}
		if multiline {
			// Browsers submit text-area line breaks as CR LF.
			s = strings.ReplaceAll(s, "\r\n", "\n")
		}
		s = strings.TrimSpace(s)
		switch {
		case s == "" && required:
			bad.Add(name, "must not be empty")
			return "", false
		case utf8.RuneCountInString(s) > max:
			bad.Add(name, fmt.Sprintf("must be at most %d characters", max))
			return "", false
		}
		if i := strings.IndexFunc(s, func(r rune) bool { return forbidden(r, multiline) }); i >= 0 {
			r, _ := utf8.DecodeRuneInString(s[i:])
			bad.Add(name, "must not contain "+describeRune(r)+": remove it (invisible formatting and control characters cannot appear in a published document)")
			return "", false
		}
		return s, true
	}
	boolean := func(name string) bool {
		v, ok := raw[name]
		if !ok || string(v) == "null" {
			bad.Add(name, "is required")
			return false
		}
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			bad.Add(name, "must be a boolean")
		}
		return b
	}
	enum := func(name, what string, required bool, def string, allowed []string, canon func(string) string, names func(string) []string) string {
		s, ok := str(name, required, 64)
		if !ok {
			return def
		}
		if s == "" {
			return def
		}
		// Exact, then as people type it: any letter case, spaces for
		// hyphens or underscores ("Professional Services"), when that
		// names exactly one value.
		c, ok := resolve(canon(s), allowed, names)
		if !ok {
			sug := suggest(s, allowed)
			bad.AddValue(name, unknownValue(what, s, sug), s, sug)
			return def
		}
		return c
	}

	req.Type = enum("type", "document type", true, "", Types(), strings.ToLower, nil)
	if s, ok := str("businessName", true, MaxBusinessName); ok {
		req.BusinessName = s
	}
	if s, ok := str("websiteUrl", true, MaxWebsiteURL); ok {
		if u, err := normaliseURL(s); err != nil {
			bad.Add("websiteUrl", err.Error())
		} else {
			req.WebsiteURL = u
		}
	}
	req.BusinessType = enum("businessType", "business type", true, "", BusinessTypes(), strings.ToLower, businessTypeNames)
	req.Language = enum("language", "language", false, DefaultLanguage, Languages(), strings.ToLower, nil)
	req.Jurisdiction, req.MemberState = jurisdiction(raw, str, &bad)
	req.CollectsPayments = boolean("collectsPayments")
	req.CollectsUserData = boolean("collectsUserData")
	req.UsesAnalytics = boolean("usesAnalytics")
	req.ThirdPartyServices = services(raw["thirdPartyServices"], &bad)
	if s, ok := str("hostingProvider", false, MaxServiceID); ok && s != "" {
		req.HostingProvider = serviceRef(s)
	}
	if s, ok := str("contactEmail", false, MaxContactEmail); ok && s != "" {
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s || a.Name != "" {
			bad.Add("contactEmail", "must be a plain email address such as privacy@example.com")
		} else {
			req.ContactEmail = s
		}
	}
	// An address typed in a text area has line breaks; they are kept.
	if s, ok := text("postalAddress", false, MaxPostalAddress, true); ok {
		req.PostalAddress = s
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"phone", &req.Phone}, {"tollFreeNumber", &req.TollFreeNumber}} {
		if s, ok := str(f.name, false, MaxPhone); ok && s != "" {
			if !phoneLike(s) {
				bad.Add(f.name, "must be a telephone number such as +44 20 7946 0000 or (800) 555-0199: digits, spaces, +, -, ., ( and ) only")
			} else {
				*f.dst = s
			}
		}
	}
	if s, ok := str("establishedIn", false, 64); ok && s != "" {
		if c, ok := resolveCountry(s); ok {
			req.EstablishedIn = c
		} else {
			sug := suggest(s, countryList())
			bad.AddValue("establishedIn", unknownValue("country (ISO 3166-1 alpha-2 code or English name)", s, sug), s, sug)
		}
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"dpoContact", &req.DPOContact}, {"euRepresentative", &req.EURepresentative}, {"ukRepresentative", &req.UKRepresentative}} {
		if s, ok := text(f.name, false, MaxContact, true); ok {
			*f.dst = s
		}
	}
	optBool := func(name string) *bool {
		v, ok := raw[name]
		if !ok || string(v) == "null" {
			return nil
		}
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			bad.Add(name, "must be true, false or null (null or absent: not stated)")
			return nil
		}
		return &b
	}
	req.OnlineOnly = optBool("onlineOnly")
	req.ConsentBanner = optBool("consentBanner")
	req.SellsMinorsData = optBool("sellsMinorsData")
	req.OptOutLink = optBool("optOutLink")
	req.SellsSensitiveData = optBool("sellsSensitiveData")
	req.SellsBiometricData = optBool("sellsBiometricData")
	req.CCPAThresholdsMet = optBool("ccpaThresholdsMet")
	req.Retention = retention(raw["retention"], &bad)
	req.TransferSafeguards = safeguards(raw["transferSafeguards"], req.Jurisdiction, &bad)
	req.Format = enum("format", "format", false, DefaultFormat, Formats, strings.ToLower, nil)
	if s, ok := str("effectiveDate", false, len(DateLayout)); ok && s != "" {
		if d, err := ParseDate(s); err != nil {
			bad.Add("effectiveDate", err.Error())
		} else {
			req.EffectiveDate = d.Format(DateLayout)
		}
	}

	if err := bad.Err(errs.Unprocessable, "validation_failed", "the request has invalid fields"); err != nil {
		return Request{}, err
	}
	return req, nil
}

// decodeObject reads body as exactly one JSON object and returns its
// members undecoded, plus the names of members that appear more than once.
// Invalid UTF-8, anything but an object, or anything after it is invalid_json.
func decodeObject(body []byte) (map[string]json.RawMessage, []string, error) {
	notObject := errs.E(errs.Invalid, "invalid_json", "request body must be one JSON object")
	if !utf8.Valid(body) {
		// encoding/json would silently turn invalid bytes into U+FFFD.
		return nil, nil, errs.E(errs.Invalid, "invalid_json", "request body must be UTF-8 encoded JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, notObject
	}
	raw := map[string]json.RawMessage{}
	var dups []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, notObject
		}
		name, _ := tok.(string) // object keys are always strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, notObject
		}
		if _, ok := raw[name]; ok && !slices.Contains(dups, name) {
			dups = append(dups, name)
		}
		raw[name] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, nil, notObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errs.E(errs.Invalid, "invalid_json", "request body must hold exactly one JSON object and nothing after it")
	}
	return raw, dups, nil
}

var fieldNames = []string{
	"type", "businessName", "websiteUrl", "businessType", "language", "jurisdiction",
	"collectsPayments", "collectsUserData", "usesAnalytics", "thirdPartyServices",
	"contactEmail", "postalAddress", "format", "effectiveDate",
	"memberState", "phone", "tollFreeNumber", "establishedIn", "dpoContact",
	"euRepresentative", "ukRepresentative", "onlineOnly", "consentBanner",
	"sellsMinorsData", "ccpaThresholdsMet", "hostingProvider", "retention", "transferSafeguards", "optOutLink",
	"sellsSensitiveData", "sellsBiometricData",
}

// DateLayout is the form of Request.EffectiveDate.
const DateLayout = "2006-01-02"

// ParseDate parses an effective date: a calendar date from 2000 to 2099.
func ParseDate(s string) (time.Time, error) {
	d, err := time.Parse(DateLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("must be a date in the form YYYY-MM-DD")
	}
	if d.Year() < 2000 || d.Year() > 2099 {
		return time.Time{}, fmt.Errorf("must be a date between 2000-01-01 and 2099-12-31")
	}
	return d, nil
}

// services validates thirdPartyServices: an array of service names. A
// service the catalog knows (by id, display name or alias, in any letter
// case) becomes its id; any other name is kept as given, to be disclosed
// generically and flagged, never refused. The result is de-duplicated and
// sorted so that the same set of services always yields the same document.
func services(v json.RawMessage, bad *errs.Fields) []string {
	out := []string{}
	if v == nil || string(v) == "null" {
		return out
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		bad.Add("thirdPartyServices", "must be an array of strings")
		return out
	}
	if len(items) > MaxServices {
		bad.Add("thirdPartyServices", fmt.Sprintf("must have at most %d entries", MaxServices))
		return out
	}
	for i, item := range items {
		field := fmt.Sprintf("thirdPartyServices[%d]", i)
		var s string
		if err := json.Unmarshal(item, &s); err != nil {
			bad.Add(field, "must be a string")
			continue
		}
		s = strings.Join(strings.Fields(s), " ")
		switch {
		case s == "":
			bad.Add(field, "must not be empty")
			continue
		case utf8.RuneCountInString(s) > MaxServiceID:
			bad.Add(field, fmt.Sprintf("must be at most %d characters", MaxServiceID))
			continue
		case strings.ContainsFunc(s, func(r rune) bool { return forbidden(r, false) }):
			bad.Add(field, "must not contain control or bidirectional formatting characters")
			continue
		}
		ref := serviceRef(s)
		if !slices.ContainsFunc(out, func(o string) bool { return fold(o) == fold(ref) }) {
			out = append(out, ref)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(fold(a), fold(b)) })
	return out
}

// serviceRef is the catalog id of the service s names (by id, display name
// or alias, any letter case), or s itself when the catalog does not know it.
func serviceRef(s string) string {
	if id, ok := serviceIndex()[fold(s)]; ok {
		return id
	}
	return s
}

var (
	serviceIndexOnce sync.Once
	serviceByName    map[string]string
)

// serviceIndex maps every service id, display name and alias, folded, to
// its id; the catalog guarantees each folded name means one service.
func serviceIndex() map[string]string {
	serviceIndexOnce.Do(func() {
		serviceByName = map[string]string{}
		for _, id := range ServiceIDs() {
			for _, n := range append([]string{id}, serviceNames(id)...) {
				serviceByName[fold(n)] = id
			}
		}
	})
	return serviceByName
}

// jurisdiction reads the jurisdiction, by id, alias ("GB", "EEA") or as an
// EU or EEA member state ("DE", "France": the EU, with that state's
// supervisory authority), and the optional memberState.
func jurisdiction(raw map[string]json.RawMessage, str func(string, bool, int) (string, bool), bad *errs.Fields) (string, string) {
	s, ok := str("jurisdiction", true, 64)
	if !ok {
		return "", ""
	}
	j, ok := resolve(strings.ToUpper(s), Jurisdictions(), jurisdictionNames)
	member := ""
	if !ok {
		if c, found := resolveCountry(s); found && memberJurisdiction(c) != "" {
			j, member, ok = memberJurisdiction(c), c, true
		}
	}
	if !ok {
		sug := suggest(s, Jurisdictions())
		bad.AddValue("jurisdiction", unknownValue("jurisdiction", s, sug), s, sug)
		return "", ""
	}
	if m, given := str("memberState", false, 64); given && m != "" {
		c, found := resolveCountry(m)
		switch {
		case !found || memberJurisdiction(c) == "":
			bad.AddValue("memberState", fmt.Sprintf("%q is not an EU or EEA member state; use its ISO 3166-1 alpha-2 code or English name, such as DE or France.", m), m, nil)
		case memberJurisdiction(c) != j:
			bad.Add("memberState", "applies only to the jurisdiction "+memberJurisdiction(c))
		case member != "" && member != c:
			bad.Add("memberState", fmt.Sprintf("names %s but jurisdiction names %s; give one of them", c, member))
		default:
			member = c
		}
	}
	return j, member
}

// memberJurisdiction is the jurisdiction whose supervisory authorities are
// per member state (the EU) and that country c belongs to, or "".
func memberJurisdiction(c string) string {
	for _, j := range cat().Jurisdictions {
		if _, ok := j.Authorities[c]; ok {
			return j.ID
		}
	}
	return ""
}

// jurisdictionMechanisms are the transfer mechanisms a jurisdiction's law
// knows (catalog data).
func jurisdictionMechanisms(id string) []string {
	j, _ := cat().Jurisdiction(id)
	return j.TransferMechanisms
}

// safeguards reads transferSafeguards: service (id, name or alias) ->
// mechanism ids valid in the jurisdiction. The services are checked against
// the request's services in BuildFacts' todos, not here: an entry for a
// service not used is harmless and reported as a 422 to catch typos.
func safeguards(v json.RawMessage, jurisdiction string, bad *errs.Fields) map[string][]string {
	if v == nil || string(v) == "null" {
		return nil
	}
	var m map[string][]string
	if err := json.Unmarshal(v, &m); err != nil {
		bad.Add("transferSafeguards", `must be an object mapping services to arrays of mechanisms, such as {"hubspot": ["eu_sccs"]}`)
		return nil
	}
	allowed := jurisdictionMechanisms(jurisdiction)
	out := map[string][]string{}
	for k, ms := range m {
		field := "transferSafeguards." + k
		id := serviceRef(strings.TrimSpace(k))
		if _, known := cat().Service(id); !known {
			sug := suggest(k, ServiceIDs())
			bad.AddValue(field, unknownValue("catalog service", k, sug), k, sug)
			continue
		}
		if len(allowed) == 0 {
			bad.Add(field, "applies only to the EU and UK jurisdictions")
			continue
		}
		var clean []string
		for _, mech := range ms {
			if !slices.Contains(allowed, mech) {
				sug := suggest(mech, allowed)
				bad.AddValue(field, unknownValue("transfer mechanism for "+jurisdiction+" ("+strings.Join(allowed, ", ")+")", mech, sug), mech, sug)
				continue
			}
			if !slices.Contains(clean, mech) {
				clean = append(clean, mech)
			}
		}
		if len(ms) == 0 {
			bad.Add(field, "must name at least one mechanism")
			continue
		}
		slices.Sort(clean)
		out[id] = clean
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// phoneLike accepts what people write as a telephone number: digits with
// spaces, +, -, ., ( and ), and at least five digits.
func phoneLike(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case strings.ContainsRune(" +-.()", r):
		default:
			return false
		}
	}
	return digits >= 5
}

// retention reads the optional retention object: purpose id (or name as
// people type it) -> how long data is kept for it.
func retention(v json.RawMessage, bad *errs.Fields) map[string]string {
	if v == nil || string(v) == "null" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		bad.Add("retention", `must be an object mapping purposes to periods, such as {"account": "until the account is closed, then 30 days"}`)
		return nil
	}
	purposes := PurposeIDs()
	out := map[string]string{}
	for k, raw := range m {
		field := "retention." + k
		id, ok := resolve(strings.ToLower(k), purposes, nil)
		if !ok {
			sug := suggest(k, purposes)
			bad.AddValue(field, unknownValue("purpose", k, sug), k, sug)
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			bad.Add(field, "must be a string such as \"2 years after your last order\"")
			continue
		}
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			bad.Add(field, "must not be empty")
		case utf8.RuneCountInString(s) > MaxRetention:
			bad.Add(field, fmt.Sprintf("must be at most %d characters", MaxRetention))
		case strings.ContainsFunc(s, func(r rune) bool { return forbidden(r, false) }):
			bad.Add(field, "must not contain control or bidirectional formatting characters")
		default:
			if _, dup := out[id]; dup {
				bad.Add(field, "names a purpose given more than once")
				continue
			}
			out[id] = s
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// jurisdictionNames are a jurisdiction's aliases ("GB", "United Kingdom").
func jurisdictionNames(id string) []string {
	if j, ok := cat().Jurisdiction(id); ok {
		return j.Aliases
	}
	return nil
}

// businessTypeNames are a business type's name and aliases ("Health care", "clinic").
func businessTypeNames(id string) []string {
	if b, ok := cat().BusinessType(id); ok {
		return append([]string{b.Name}, b.Aliases...)
	}
	return nil
}

// serviceNames are the names a service is known by besides its id.
func serviceNames(id string) []string {
	if svc, ok := cat().Service(id); ok {
		return append([]string{svc.Name}, svc.Aliases...)
	}
	return nil
}

// normaliseURL accepts an absolute http or https URL with a host and returns
// it with scheme and host in lower case.
func normaliseURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("must be an absolute http or https URL such as https://example.com")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("must use the http or https scheme")
	}
	if u.User != nil {
		return "", fmt.Errorf("must not contain user information")
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("must name a host")
	}
	u.Host = strings.ToLower(u.Host)
	return u.String(), nil
}

// forbidden reports the characters no text field may hold: C0 and C1
// control characters and DEL (a line feed only where multiline), and the
// Unicode bidirectional overrides, embeddings and isolates, which can make a
// published document read differently from what was stored (the
// "Trojan Source" technique, CVE-2021-42574).
func forbidden(r rune, multiline bool) bool {
	switch {
	case r == '\n':
		return !multiline
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// bidiNames names the bidirectional formatting characters for error messages.
var bidiNames = map[rune]string{
	0x202a: "LEFT-TO-RIGHT EMBEDDING",
	0x202b: "RIGHT-TO-LEFT EMBEDDING",
	0x202c: "POP DIRECTIONAL FORMATTING",
	0x202d: "LEFT-TO-RIGHT OVERRIDE",
	0x202e: "RIGHT-TO-LEFT OVERRIDE",
	0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE",
	0x2068: "FIRST STRONG ISOLATE",
	0x2069: "POP DIRECTIONAL ISOLATE",
}

// describeRune names a forbidden character as "U+202E RIGHT-TO-LEFT
// OVERRIDE" or "the control character U+009B".
func describeRune(r rune) string {
	if name, ok := bidiNames[r]; ok {
		return fmt.Sprintf("U+%04X %s", r, name)
	}
	return fmt.Sprintf("the control character U+%04X", r)
}
