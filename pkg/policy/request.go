package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
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
	// DirectedToChildren (issue 8, part j6): the website or online service
	// is directed to children under 13, or the business has actual
	// knowledge that it collects personal information from a child under
	// 13 (16 CFR 312.2, 312.3). U.S. documents then carry the COPPA notice
	// for parents (16 CFR 312.4(d)). nil: not stated (false, and a todo for
	// the business type childrens_services).
	DirectedToChildren *bool `json:"directedToChildren,omitempty"`
	// CCPAThresholdsMet: the business meets a threshold of Cal. Civ. Code
	// § 1798.140(d)(1); when false the CCPA does not apply to it.
	CCPAThresholdsMet *bool `json:"ccpaThresholdsMet,omitempty"`
	// Issue 8, part j1 (Canada). ServesQuebec: the business collects
	// personal information in Québec (serves people there), so Quebec's
	// private-sector Act (Law 25) applies besides PIPEDA; nil or false: the
	// document covers PIPEDA only (nil is a todo). PrivacyOfficer is the
	// title (and, optionally, name) and contact information of the person
	// accountable for personal information (PIPEDA Sch. 1 cl. 4.1, 4.8.2(a);
	// CQLR c. P-39.1 s. 3.1). Both apply only to the jurisdiction CA.
	ServesQuebec   *bool  `json:"servesQuebec,omitempty"`
	PrivacyOfficer string `json:"privacyOfficer,omitempty"`
	// SmallProcessingAgent (BR only): the business is a small-scale
	// processing agent (Resolução CD/ANPD nº 2/2022, Arts. 2-3) that has not
	// appointed an encarregado, as its Art. 11 allows; the policy then names
	// the channel for data subjects instead (Art. 11, § 1).
	SmallProcessingAgent *bool `json:"smallProcessingAgent,omitempty"`
	// HostingProvider is a catalog service id, or the name of a provider
	// the catalog does not know.
	HostingProvider string `json:"hostingProvider,omitempty"`
	// Retention maps purpose ids to how long data is kept for them.
	Retention map[string]string `json:"retention,omitempty"`
	// TransferSafeguards maps a service (catalog id) to the transfer
	// mechanisms the business's contract with it relies on, for the
	// document's jurisdiction (catalog.TransferMechanisms).
	TransferSafeguards map[string][]string `json:"transferSafeguards,omitempty"`

	// Contract documents (terms, eula, acceptable-use): see the block
	// "Contract fields" below for how each is read.
	//
	// GoverningLaw is the law (and courts) the contract chooses: an ISO
	// 3166-1 alpha-2 country, a U.S. state as US-XX, a legal system of
	// the United Kingdom (GB-EAW England and Wales, GB-SCT, GB-NIR), or a
	// Canadian province or territory as its ISO 3166-2 code (CA-ON).
	GoverningLaw string `json:"governingLaw,omitempty"`
	// Subscriptions says whether the business sells subscriptions and, if
	// so, how they renew and are cancelled; nil when not stated.
	Subscriptions *Subscriptions `json:"subscriptions,omitempty"`
	// MinimumAge is the age a person must have reached to use the service
	// or open an account (13-21); 0 when not stated.
	MinimumAge int `json:"minimumAge,omitempty"`

	// Disclaimer (issue 8, t2). AffiliateLinks: the website earns a
	// commission or other benefit from links or recommendations on it
	// (affiliate links, sponsored reviews); nil when not stated. It decides
	// the disclosure of material connections (16 CFR § 255.5).
	AffiliateLinks *bool `json:"affiliateLinks,omitempty"`

	// Shipping policy (issue 8, t4): see the block "Shipping fields" below.
	// ShippingRegions are where the business ships: ISO 3166-1 alpha-2
	// country codes, "EU" or "worldwide"; nil when not stated.
	ShippingRegions []string `json:"shippingRegions,omitempty"`
	// DispatchDays is how many business days pass from order to dispatch
	// (0-60); nil when not stated (0 is same-day dispatch).
	DispatchDays *int `json:"dispatchDays,omitempty"`
	// Returns and refunds policy (issue 8, t3). RefundWindowDays: days after
	// delivery the business accepts change-of-mind returns (0-365; 0 = none
	// beyond what the law gives); nil when not stated. ReturnShippingPaidBy:
	// who pays for sending a return back (ReturnShippingPayers); "" when not
	// stated. Neither limits a statutory right (EU/UK 14-day withdrawal).
	RefundWindowDays     *int   `json:"refundWindowDays,omitempty"`
	ReturnShippingPaidBy string `json:"returnShippingPaidBy,omitempty"`

	Format string `json:"format"`
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
		if err := unmarshalString(v, &s); err != nil {
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
		if err := unmarshalBool(v, &b); err != nil {
			bad.Add(name, "must be a boolean")
		}
		return b
	}
	enum := func(name, what string, required bool, def string, allowed func() []string, canon func(string) string, names func(string) []string) string {
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
		c, ok := resolveIn(name, canon(s), allowed, names)
		if !ok {
			sug := suggest(s, allowed())
			bad.AddValue(name, unknownValue(what, s, sug), s, sug)
			return def
		}
		return c
	}

	req.Type = enum("type", "document type", true, "", Types, strings.ToLower, nil)
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
	req.BusinessType = enum("businessType", "business type", true, "", BusinessTypes, strings.ToLower, businessTypeNames)
	req.Language = enum("language", "language", false, DefaultLanguage, Languages, strings.ToLower, nil)
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
		if err := unmarshalBool(v, &b); err != nil {
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
	req.DirectedToChildren = optBool("directedToChildren") // issue 8, part j6
	req.CCPAThresholdsMet = optBool("ccpaThresholdsMet")
	// Issue 8, part j1: Canada's Quebec switch and privacy officer.
	req.ServesQuebec = optBool("servesQuebec")
	if s, ok := text("privacyOfficer", false, MaxContact, true); ok {
		req.PrivacyOfficer = s
	}
	if req.Jurisdiction != "" && !slices.Contains(JurisdictionIDs(req.Jurisdiction), JurisdictionCanada) {
		for _, name := range []string{"servesQuebec", "privacyOfficer"} {
			if v, given := raw[name]; given && string(v) != "null" {
				bad.Add(name, "applies only to the jurisdiction "+JurisdictionCanada+" (Canada)")
			}
		}
		req.ServesQuebec, req.PrivacyOfficer = nil, ""
	}
	req.SmallProcessingAgent = optBool("smallProcessingAgent")
	if req.Jurisdiction != "" && !slices.Contains(JurisdictionIDs(req.Jurisdiction), JurisdictionBrazil) && req.SmallProcessingAgent != nil {
		bad.Add("smallProcessingAgent", "applies only to the jurisdiction "+JurisdictionBrazil+" (Brazil)")
		req.SmallProcessingAgent = nil
	}
	req.Retention = retention(raw["retention"], &bad)
	if req.Jurisdiction != "" {
		req.TransferSafeguards = safeguards(raw["transferSafeguards"], JurisdictionIDs(req.Jurisdiction), &bad)
	}
	contractFields(raw, str, &req, &bad)
	req.AffiliateLinks = optBool("affiliateLinks") // disclaimer (issue 8, t2)
	shippingFields(raw, &req, &bad)                // shipping policy (issue 8, t4)
	refundFields(raw, str, &req, &bad)             // refund policy (issue 8, t3)
	req.Format = enum("format", "format", false, DefaultFormat, func() []string { return Formats }, strings.ToLower, nil)
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
	// The common case, one object with distinct member names, in one
	// Unmarshal and a count of its names; anything else (an error to word,
	// a repeated name to report) goes through the token decoder.
	if utf8.Valid(body) {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(body, &raw); err == nil && raw != nil && countMembers(body) == len(raw) {
			return raw, nil, nil
		}
	}
	return decodeObjectTokens(body)
}

// countMembers counts the members of the JSON object body (valid JSON,
// whose top-level value is an object), repeated names included.
func countMembers(body []byte) int {
	n, depth := 0, 0
	expectName := false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '"':
			if depth == 1 && expectName {
				n++
				expectName = false
			}
			for i++; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' {
					i++ // the escaped byte cannot end the string
				}
			}
		case '{', '[':
			depth++
			expectName = c == '{' && depth == 1
		case '}', ']':
			depth--
		case ',':
			expectName = depth == 1
		}
	}
	return n
}

// decodeObjectTokens decodes body token by token, to tell a repeated member
// name (returned in dups) and each kind of malformed body apart.
func decodeObjectTokens(body []byte) (map[string]json.RawMessage, []string, error) {
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

// unmarshalString is json.Unmarshal into a string, without its reflection
// and second scan for the common case: a JSON string with no escape. v is
// a member of a body decodeObject accepted (valid JSON, valid UTF-8), so
// the bytes between its quotes are then the string itself.
func unmarshalString(v json.RawMessage, s *string) error {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
		*s = string(v[1 : len(v)-1])
		return nil
	}
	return json.Unmarshal(v, s)
}

// unmarshalBool is json.Unmarshal into a bool, the literals read directly.
func unmarshalBool(v json.RawMessage, b *bool) error {
	switch string(v) {
	case "true":
		*b = true
		return nil
	case "false":
		*b = false
		return nil
	}
	return json.Unmarshal(v, b)
}

// FieldNames are the members a generation request may have.
func FieldNames() []string { return slices.Clone(fieldNames) }

var fieldNames = []string{
	"type", "businessName", "websiteUrl", "businessType", "language", "jurisdiction",
	"collectsPayments", "collectsUserData", "usesAnalytics", "thirdPartyServices",
	"contactEmail", "postalAddress", "format", "effectiveDate",
	"memberState", "phone", "tollFreeNumber", "establishedIn", "dpoContact",
	"euRepresentative", "ukRepresentative", "onlineOnly", "consentBanner",
	"sellsMinorsData", "ccpaThresholdsMet", "hostingProvider", "retention", "transferSafeguards", "optOutLink",
	"governingLaw", "subscriptions", "minimumAge",
	"affiliateLinks",                           // disclaimer (issue 8, t2)
	"refundWindowDays", "returnShippingPaidBy", // refund policy (issue 8, t3)
	"servesQuebec", "privacyOfficer", "smallProcessingAgent", // issue 8, part j1
	"sellsSensitiveData", "sellsBiometricData",
	"directedToChildren",              // issue 8, part j6
	"shippingRegions", "dispatchDays", // shipping policy (issue 8, t4)
}

// JurisdictionCanada is the jurisdiction servesQuebec and privacyOfficer
// belong to (issue 8, part j1).
const JurisdictionCanada = "CA"

// JurisdictionBrazil is the jurisdiction smallProcessingAgent belongs to.
const JurisdictionBrazil = "BR"

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
		field := "thirdPartyServices[" + strconv.Itoa(i) + "]"
		var s string
		if err := unmarshalString(item, &s); err != nil {
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
		if !slices.ContainsFunc(out, func(o string) bool { return foldCompare(o, ref) == 0 }) {
			out = append(out, ref)
		}
	}
	slices.SortFunc(out, foldCompare)
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

// MaxJurisdictions is how many jurisdictions one document may cover.
const MaxJurisdictions = 20

// jurisdiction reads the jurisdiction, by id, alias ("GB", "EEA") or as an
// EU or EEA member state ("DE", "France": the EU, with that state's
// supervisory authority), and the optional memberState. A comma-separated
// list ("EU, US-CA, Brazil") asks for one document that satisfies every
// listed jurisdiction's laws; it is stored as the ids in catalog order
// ("BR,EU,US-CA"), so the same markets in any order give the same bytes.
func jurisdiction(raw map[string]json.RawMessage, str func(string, bool, int) (string, bool), bad *errs.Fields) (string, string) {
	s, ok := str("jurisdiction", true, 400)
	if !ok {
		return "", ""
	}
	var ids []string
	member := ""
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			if strings.Contains(s, ",") {
				bad.AddValue("jurisdiction", "has an empty entry; separate jurisdictions with single commas, such as \"EU, US-CA\"", s, nil)
				return "", ""
			}
			continue
		}
		j, ok := resolveIn("jurisdiction", strings.ToUpper(part), Jurisdictions, jurisdictionNames)
		if !ok {
			if c, found := resolveCountry(part); found && memberJurisdiction(c) != "" {
				if member != "" && member != c {
					bad.AddValue("jurisdiction", fmt.Sprintf("names two EU or EEA member states (%s and %s); name the one whose supervisory authority the document should give, or \"EU\"", member, c), s, nil)
					return "", ""
				}
				j, member, ok = memberJurisdiction(c), c, true
			}
		}
		if !ok {
			sug := suggest(part, Jurisdictions())
			bad.AddValue("jurisdiction", unknownValue("jurisdiction", part, sug), part, sug)
			return "", ""
		}
		if !slices.Contains(ids, j) {
			ids = append(ids, j)
		}
	}
	if len(ids) == 0 {
		bad.Add("jurisdiction", "is required")
		return "", ""
	}
	if len(ids) > MaxJurisdictions {
		bad.AddValue("jurisdiction", fmt.Sprintf("lists %d jurisdictions; one document covers at most %d", len(ids), MaxJurisdictions), s, nil)
		return "", ""
	}
	// Jurisdictions in catalog order: the canonical form.
	order := Jurisdictions()
	slices.SortFunc(ids, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	j := strings.Join(ids, ",")
	if m, given := str("memberState", false, 64); given && m != "" {
		c, found := resolveCountry(m)
		switch {
		case !found || memberJurisdiction(c) == "":
			bad.AddValue("memberState", fmt.Sprintf("%q is not an EU or EEA member state; use its ISO 3166-1 alpha-2 code or English name, such as DE or France.", m), m, nil)
		case !slices.Contains(ids, memberJurisdiction(c)):
			bad.Add("memberState", "applies only to the jurisdiction "+memberJurisdiction(c))
		case member != "" && member != c:
			bad.Add("memberState", fmt.Sprintf("names %s but jurisdiction names %s; give one of them", c, member))
		default:
			member = c
		}
	}
	return j, member
}

// JurisdictionIDs splits a request's canonical jurisdiction ("EU,US-CA").
func JurisdictionIDs(j string) []string { return strings.Split(j, ",") }

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
func safeguards(v json.RawMessage, jurisdictions []string, bad *errs.Fields) map[string][]string {
	if v == nil || string(v) == "null" {
		return nil
	}
	var m map[string][]string
	if err := json.Unmarshal(v, &m); err != nil {
		bad.Add("transferSafeguards", `must be an object mapping services to arrays of mechanisms, such as {"hubspot": ["eu_sccs"]}`)
		return nil
	}
	// The mechanisms the listed jurisdictions' laws know, each counted for
	// the jurisdiction that knows it (facts.go).
	var allowed, regimes []string
	for _, id := range jurisdictions {
		if m := jurisdictionMechanisms(id); len(m) > 0 {
			regimes = append(regimes, id)
			for _, x := range m {
				if !slices.Contains(allowed, x) {
					allowed = append(allowed, x)
				}
			}
		}
	}
	jurisdiction := strings.Join(regimes, " and ")
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
			var with []string
			for _, j := range cat().Jurisdictions {
				if len(j.TransferMechanisms) > 0 {
					with = append(with, j.ID)
				}
			}
			bad.Add(field, "applies only to the jurisdictions whose law has transfer mechanisms: "+strings.Join(with, ", "))
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
		id, ok := resolveIn("retention", strings.ToLower(k), PurposeIDs, nil)
		if !ok {
			sug := suggest(k, purposes)
			bad.AddValue(field, unknownValue("purpose", k, sug), k, sug)
			continue
		}
		var s string
		if err := unmarshalString(raw, &s); err != nil {
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

// bidiName names a bidirectional formatting character for error messages
// ("" for any other rune). A switch, not a map, so that no package init
// builds it at a Lambda cold start.
func bidiName(r rune) string {
	switch r {
	case 0x202a:
		return "LEFT-TO-RIGHT EMBEDDING"
	case 0x202b:
		return "RIGHT-TO-LEFT EMBEDDING"
	case 0x202c:
		return "POP DIRECTIONAL FORMATTING"
	case 0x202d:
		return "LEFT-TO-RIGHT OVERRIDE"
	case 0x202e:
		return "RIGHT-TO-LEFT OVERRIDE"
	case 0x2066:
		return "LEFT-TO-RIGHT ISOLATE"
	case 0x2067:
		return "RIGHT-TO-LEFT ISOLATE"
	case 0x2068:
		return "FIRST STRONG ISOLATE"
	case 0x2069:
		return "POP DIRECTIONAL ISOLATE"
	}
	return ""
}

// describeRune names a forbidden character as "U+202E RIGHT-TO-LEFT
// OVERRIDE" or "the control character U+009B".
func describeRune(r rune) string {
	if name := bidiName(r); name != "" {
		return fmt.Sprintf("U+%04X %s", r, name)
	}
	return fmt.Sprintf("the control character U+%04X", r)
}

// ---- Contract fields (terms, eula, acceptable-use) -------------------------
//
// governingLaw, subscriptions and minimumAge are optional; a checklist item
// that needs one of them (compliance "needs") gives a todo when it is
// absent, and the document shows a placeholder where it would be named.

// Subscriptions describes the business's subscriptions. The request gives
// false (none), true (some, details not stated) or an object with the
// details, which implies subscriptions are offered.
type Subscriptions struct {
	Offered bool `json:"offered"`
	// AutoRenews: a subscription renews automatically until cancelled;
	// nil when not stated.
	AutoRenews *bool `json:"autoRenews,omitempty"`
	// BillingPeriod is how often a subscription is charged (BillingPeriods).
	BillingPeriod string `json:"billingPeriod,omitempty"`
	// Cancellation is how a subscriber cancels (CancellationMethods):
	// "online" in the account on the website, "email" by email to the
	// contact address.
	Cancellation string `json:"cancellation,omitempty"`
}

// BillingPeriods and CancellationMethods are the values of Subscriptions.
var (
	BillingPeriods      = []string{"week", "month", "quarter", "year"}
	CancellationMethods = []string{"online", "email"}
)

// Complete reports whether s says everything the documents describe: none
// offered, or offered with the renewal stated and, for renewing ones, the
// billing period and how to cancel.
func (s *Subscriptions) Complete() bool {
	switch {
	case s == nil:
		return false
	case !s.Offered:
		return true
	case s.AutoRenews == nil:
		return false
	case *s.AutoRenews:
		return s.BillingPeriod != "" && s.Cancellation != ""
	}
	return true
}

// AutoRenewing reports whether subscriptions that renew automatically are
// offered.
func (s *Subscriptions) AutoRenewing() bool {
	return s != nil && s.Offered && s.AutoRenews != nil && *s.AutoRenews
}

// Minimum age bounds: below 13 the service is directed at children (COPPA,
// GDPR Art. 8 parental consent), which these documents do not model.
const (
	MinMinimumAge = 13
	MaxMinimumAge = 21
)

// contractFields reads governingLaw, subscriptions and minimumAge.
func contractFields(raw map[string]json.RawMessage, str func(string, bool, int) (string, bool), req *Request, bad *errs.Fields) {
	if s, ok := str("governingLaw", false, 64); ok && s != "" {
		if code, problem, sug := resolveGoverningLaw(s); problem != "" {
			bad.AddValue("governingLaw", problem, s, sug)
		} else {
			req.GoverningLaw = code
		}
	}
	req.Subscriptions = subscriptions(raw["subscriptions"], bad)
	if v, ok := raw["minimumAge"]; ok && string(v) != "null" {
		var n int
		if err := json.Unmarshal(v, &n); err != nil || n < MinMinimumAge || n > MaxMinimumAge {
			bad.Add("minimumAge", fmt.Sprintf("must be a whole number of years from %d to %d", MinMinimumAge, MaxMinimumAge))
		} else {
			req.MinimumAge = n
		}
	}
}

// ---- Shipping fields (shipping policy, issue 8, t4) -----------------------
//
// shippingRegions and dispatchDays are optional. Only the shipping policy's
// checklist items need them (a business that ships no goods does not ask
// for a shipping policy, so nothing else asks for them); when absent, the
// document shows a placeholder and the response a needs_input todo.

// Shipping region words besides countries: ShipWorldwide (every country;
// it stands alone) and ShipEU (the member states of the European Union).
const (
	ShipWorldwide      = "worldwide"
	ShipEU             = "EU"
	MaxShippingRegion  = 100
	MaxShippingRegions = 60
	MaxDispatchDays    = 60
)

// shippingFields reads shippingRegions (an array of countries, by ISO code
// or English name, "EU" or "worldwide"; stored as codes, in the order
// given, without repeats) and dispatchDays (a whole number 0-60).
func shippingFields(raw map[string]json.RawMessage, req *Request, bad *errs.Fields) {
	if v, ok := raw["shippingRegions"]; ok && string(v) != "null" {
		var in []string
		if err := json.Unmarshal(v, &in); err != nil || len(in) == 0 || len(in) > MaxShippingRegions {
			bad.Add("shippingRegions", fmt.Sprintf(`must be an array of 1 to %d countries (ISO code or English name), "EU" or "worldwide"`, MaxShippingRegions))
		} else {
			var out []string
			for i, s := range in {
				field := fmt.Sprintf("shippingRegions[%d]", i)
				code, problem := resolveShippingRegion(s)
				if problem != "" {
					bad.AddValue(field, problem, s, nil)
					continue
				}
				if !slices.Contains(out, code) {
					out = append(out, code)
				}
			}
			if slices.Contains(out, ShipWorldwide) && len(out) > 1 {
				bad.Add("shippingRegions", `"worldwide" already covers every country; send it alone`)
			} else if len(out) > 0 {
				req.ShippingRegions = out
			}
		}
	}
	if v, ok := raw["dispatchDays"]; ok && string(v) != "null" {
		var n int
		if err := json.Unmarshal(v, &n); err != nil || n < 0 || n > MaxDispatchDays {
			bad.Add("dispatchDays", fmt.Sprintf("must be a whole number of business days from 0 (same day) to %d", MaxDispatchDays))
		} else {
			req.DispatchDays = &n
		}
	}
}

// resolveShippingRegion reads one shipping region: a country (ISO 3166-1
// alpha-2 code or English name), the EU or worldwide.
func resolveShippingRegion(s string) (string, string) {
	if len(s) > MaxShippingRegion {
		return "", fmt.Sprintf("must be at most %d characters", MaxShippingRegion)
	}
	switch fold(s) {
	case "worldwide", "world", "international", "everywhere":
		return ShipWorldwide, ""
	case "eu", "europeanunion":
		return ShipEU, ""
	}
	if code, ok := resolveCountry(s); ok {
		return code, ""
	}
	return "", fmt.Sprintf(`%q is not a country (ISO 3166-1 alpha-2 code or English name), "EU" or "worldwide".`, s)
}

// subscriptions reads false, true or {"autoRenews", "billingPeriod",
// "cancellation"}.
func subscriptions(v json.RawMessage, bad *errs.Fields) *Subscriptions {
	if v == nil || string(v) == "null" {
		return nil
	}
	var b bool
	if err := unmarshalBool(v, &b); err == nil {
		return &Subscriptions{Offered: b}
	}
	var in struct {
		AutoRenews    *bool   `json:"autoRenews"`
		BillingPeriod *string `json:"billingPeriod"`
		Cancellation  *string `json:"cancellation"`
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		bad.Add("subscriptions", `must be false, true or an object such as {"autoRenews": true, "billingPeriod": "month", "cancellation": "online"}`)
		return nil
	}
	out := &Subscriptions{Offered: true, AutoRenews: in.AutoRenews}
	pick := func(field string, p *string, allowed []string) string {
		if p == nil {
			return ""
		}
		s := strings.ToLower(strings.TrimSpace(*p))
		if !slices.Contains(allowed, s) {
			sug := suggest(*p, allowed)
			bad.AddValue("subscriptions."+field, unknownValue(field+" ("+strings.Join(allowed, ", ")+")", *p, sug), *p, sug)
			return ""
		}
		return s
	}
	out.BillingPeriod = pick("billingPeriod", in.BillingPeriod, BillingPeriods)
	out.Cancellation = pick("cancellation", in.Cancellation, CancellationMethods)
	if (out.BillingPeriod != "" || out.Cancellation != "") && out.AutoRenews != nil && !*out.AutoRenews {
		// A billing period and a cancellation method describe renewing
		// subscriptions; with autoRenews false they would be read as a
		// renewal the business says it does not make.
		bad.Add("subscriptions", "billingPeriod and cancellation describe subscriptions that renew; leave them out when autoRenews is false")
	}
	return out
}

// usStates are the U.S. states and the District of Columbia by ISO 3166-2
// code (without "US-"), sorted by code: a contract's governing law is a
// state's, not the United States'. This and the UK's legal systems below
// are static data and switches rather than maps, so that no package init
// builds them at a Lambda cold start.
var usStates = []struct{ code, name string }{
	{"AK", "Alaska"}, {"AL", "Alabama"}, {"AR", "Arkansas"}, {"AZ", "Arizona"}, {"CA", "California"},
	{"CO", "Colorado"}, {"CT", "Connecticut"}, {"DC", "the District of Columbia"}, {"DE", "Delaware"},
	{"FL", "Florida"}, {"GA", "Georgia"}, {"HI", "Hawaii"}, {"IA", "Iowa"}, {"ID", "Idaho"}, {"IL", "Illinois"},
	{"IN", "Indiana"}, {"KS", "Kansas"}, {"KY", "Kentucky"}, {"LA", "Louisiana"}, {"MA", "Massachusetts"},
	{"MD", "Maryland"}, {"ME", "Maine"}, {"MI", "Michigan"}, {"MN", "Minnesota"}, {"MO", "Missouri"},
	{"MS", "Mississippi"}, {"MT", "Montana"}, {"NC", "North Carolina"}, {"ND", "North Dakota"},
	{"NE", "Nebraska"}, {"NH", "New Hampshire"}, {"NJ", "New Jersey"}, {"NM", "New Mexico"}, {"NV", "Nevada"},
	{"NY", "New York"}, {"OH", "Ohio"}, {"OK", "Oklahoma"}, {"OR", "Oregon"}, {"PA", "Pennsylvania"},
	{"RI", "Rhode Island"}, {"SC", "South Carolina"}, {"SD", "South Dakota"}, {"TN", "Tennessee"},
	{"TX", "Texas"}, {"UT", "Utah"}, {"VA", "Virginia"}, {"VT", "Vermont"}, {"WA", "Washington"},
	{"WI", "Wisconsin"}, {"WV", "West Virginia"}, {"WY", "Wyoming"},
}

// usStateName is the name of the U.S. state (or D.C.) with code st (without
// "US-"), and whether there is one.
func usStateName(st string) (string, bool) {
	i, ok := slices.BinarySearchFunc(usStates, st, func(s struct{ code, name string }, st string) int { return strings.Compare(s.code, st) })
	if !ok {
		return "", false
	}
	return usStates[i].name, true
}

// ukLegalSystem is the name of the UK legal system with ISO 3166-2 code
// (GB-EAW, GB-SCT, GB-NIR), or "".
func ukLegalSystem(code string) string {
	switch code {
	case "GB-EAW":
		return "England and Wales"
	case "GB-SCT":
		return "Scotland"
	case "GB-NIR":
		return "Northern Ireland"
	}
	return ""
}

// ukLegalSystemNamed is the code of the UK legal system whose folded name
// or code (as people give them) is f, or "".
func ukLegalSystemNamed(f string) string {
	switch f {
	case "gbeaw", "englandandwales", "england&wales", "england", "wales", "gbeng", "gbwls":
		return "GB-EAW"
	case "gbsct", "scotland":
		return "GB-SCT"
	case "gbnir", "northernireland":
		return "GB-NIR"
	}
	return ""
}

// caSubdivision is a Canadian province or territory as ISO 3166-2:CA
// lists it: code, English and French subdivision names (docs/legal/t1.md
// records the source), and the English name as a sentence uses it.
type caSubdivision struct{ code, en, fr, name string }

var caSubdivisions = []caSubdivision{
	{"CA-AB", "Alberta", "Alberta", "Alberta"},
	{"CA-BC", "British Columbia", "Colombie-Britannique", "British Columbia"},
	{"CA-MB", "Manitoba", "Manitoba", "Manitoba"},
	{"CA-NB", "New Brunswick", "Nouveau-Brunswick", "New Brunswick"},
	{"CA-NL", "Newfoundland and Labrador", "Terre-Neuve-et-Labrador", "Newfoundland and Labrador"},
	{"CA-NS", "Nova Scotia", "Nouvelle-Écosse", "Nova Scotia"},
	{"CA-ON", "Ontario", "Ontario", "Ontario"},
	{"CA-PE", "Prince Edward Island", "Île-du-Prince-Édouard", "Prince Edward Island"},
	{"CA-QC", "Quebec", "Québec", "Quebec"},
	{"CA-SK", "Saskatchewan", "Saskatchewan", "Saskatchewan"},
	{"CA-NT", "Northwest Territories", "Territoires du Nord-Ouest", "the Northwest Territories"},
	{"CA-NU", "Nunavut", "Nunavut", "Nunavut"},
	{"CA-YT", "Yukon", "Yukon", "Yukon"},
}

// caSubdivisionSuggestions are the codes a refusal of "Canada" suggests.
var caSubdivisionSuggestions = []string{"CA-ON", "CA-QC", "CA-BC"}

// caSubdivisionByName maps each code and name, folded without accents,
// to the code. No two share a folded form, and none is a country's name.
var caSubdivisionByName = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, 3*len(caSubdivisions))
	for _, p := range caSubdivisions {
		for _, n := range []string{p.code, p.en, p.fr} {
			m[foldAccents(n)] = p.code
		}
	}
	return m
})

// accents maps the accented letters of French place names to plain ones,
// so that "Quebec" and "Québec" are one name.
var accents = strings.NewReplacer("à", "a", "â", "a", "ç", "c", "é", "e", "è", "e", "ê", "e", "ë", "e",
	"î", "i", "ï", "i", "ô", "o", "ù", "u", "û", "u", "ü", "u", "ÿ", "y")

// foldAccents is fold without the accents of French letters.
func foldAccents(s string) string { return accents.Replace(fold(s)) }

// resolveGoverningLaw reads a governing law: a country, a U.S. state, a
// UK legal system or a Canadian province or territory. It returns the
// code, or why s names none and up to three codes to suggest.
func resolveGoverningLaw(s string) (code, problem string, suggestions []string) {
	f := fold(s)
	if code := ukLegalSystemNamed(f); code != "" {
		return code, "", nil
	}
	if code, ok := caSubdivisionByName()[foldAccents(s)]; ok {
		return code, "", nil
	}
	if st, ok := strings.CutPrefix(strings.ToUpper(s), "US-"); ok {
		if _, known := usStateName(st); known {
			return "US-" + st, "", nil
		}
	}
	country, isCountry := resolveCountry(s)
	name := strings.TrimPrefix(f, "stateof")
	for _, st := range usStates {
		code := st.code
		if name != fold(strings.TrimPrefix(st.name, "the ")) {
			continue
		}
		if isCountry { // Georgia
			return "", fmt.Sprintf("%q names a country and a U.S. state; give US-%s for the state or %s for the country.", s, code, country), nil
		}
		return "US-" + code, "", nil
	}
	switch {
	case isCountry && country == "US":
		return "", fmt.Sprintf("%q: contract law in the United States is a state's; name the state, such as US-DE or Delaware.", s), nil
	case isCountry && country == "CA":
		return "", fmt.Sprintf("%q: contract law in Canada is a province's or territory's; name one, such as CA-ON (Ontario), CA-QC (Quebec) or CA-BC (British Columbia).", s), slices.Clone(caSubdivisionSuggestions)
	case isCountry && country == "GB":
		return "", fmt.Sprintf("%q: the United Kingdom has three legal systems; name one: England and Wales, Scotland or Northern Ireland.", s), nil
	case isCountry:
		return country, "", nil
	case f == "eu" || f == "eea" || f == "europeanunion":
		return "", fmt.Sprintf("%q has no single contract law; name a country, such as IE or Germany.", s), nil
	}
	return "", fmt.Sprintf("%q is not a country (ISO 3166-1 alpha-2 code or English name), a U.S. state (US-DE or Delaware), England and Wales, Scotland or Northern Ireland, or a Canadian province or territory (CA-ON or Ontario).", s), nil
}

// governingLawName is the English name of a governing law code.
func governingLawName(code string) string {
	if n := ukLegalSystem(code); n != "" {
		return n
	}
	if i := slices.IndexFunc(caSubdivisions, func(p caSubdivision) bool { return p.code == code }); i >= 0 {
		return caSubdivisions[i].name
	}
	if st, ok := strings.CutPrefix(code, "US-"); ok {
		n, _ := usStateName(st)
		return n
	}
	return CountryName(code)
}

// ---- Refund policy fields (issue 8, t3) ------------------------------------

// MaxRefundWindowDays bounds refundWindowDays; ReturnShippingPayers are the
// values of returnShippingPaidBy.
const MaxRefundWindowDays = 365

var ReturnShippingPayers = []string{"customer", "business"}

// refundFields reads refundWindowDays and returnShippingPaidBy.
func refundFields(raw map[string]json.RawMessage, str func(string, bool, int) (string, bool), req *Request, bad *errs.Fields) {
	if v, ok := raw["refundWindowDays"]; ok && string(v) != "null" {
		var n int
		if err := json.Unmarshal(v, &n); err != nil || n < 0 || n > MaxRefundWindowDays {
			bad.Add("refundWindowDays", fmt.Sprintf("must be a whole number of days from 0 to %d (0: no returns beyond those the law gives)", MaxRefundWindowDays))
		} else {
			req.RefundWindowDays = &n
		}
	}
	if s, ok := str("returnShippingPaidBy", false, 16); ok && s != "" {
		if s = strings.ToLower(s); slices.Contains(ReturnShippingPayers, s) {
			req.ReturnShippingPaidBy = s
		} else {
			bad.AddValue("returnShippingPaidBy", "must be customer or business", s, ReturnShippingPayers)
		}
	}
}
