package compliance

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Severity of a compliance flag.
type Severity string

const (
	SeverityError   Severity = "error"   // a practice that breaks a legal requirement as described
	SeverityWarning Severity = "warning" // a likely gap or an obligation beyond the policy the business should act on
	SeverityInfo    Severity = "info"    // something the business should know or confirm; no action strictly required
)

// Flag is one finding about a generated document, citing the exact law.
// Code, Severity, Message and Fix come from the flag catalog (Catalog);
// Subject names what the finding is about when a code can occur more than
// once (a service, a field).
type Flag struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Law      string   `json:"law"`
	Citation string   `json:"citation"`
	Subject  string   `json:"subject,omitempty"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}

// Todo is an input the document still needs before it can be published as
// it stands: the field to send, why, and the provision that requires it.
type Todo struct {
	Field    string `json:"field"`
	Why      string `json:"why"`
	Citation string `json:"citation"`
}

// Definition is one entry of the flag catalog. Message and Fix may hold
// one %s, replaced by the flag's Subject.
type Definition struct {
	Code     string
	Severity Severity
	// Citations are the laws the flag can cite, by short name, each with
	// its citation and each once (Citation looks one up). A list, not a
	// map: the catalog is then data the linker lays out, and the package
	// runs no code at init to build it, which every Lambda cold start
	// would pay for.
	Citations []Citation
	Message   string
	Fix       string
	// Types are the document types whose readers the flag concerns: it is
	// raised only on documents of these types. Empty means
	// [DefaultType] (privacy), as for a law (docs/SCORING.md, "Per
	// document type").
	Types []string
}

// Citation is what a flag cites under one law: the law's short name
// (Law.ShortName) and the provision.
type Citation struct{ Law, Cite string }

// Citation is d's citation under the law with short name law (ok false:
// d does not cite it).
func (d *Definition) Citation(law string) (cite string, ok bool) {
	for i := range d.Citations {
		if d.Citations[i].Law == law {
			return d.Citations[i].Cite, true
		}
	}
	return "", false
}

// DocumentTypes are the document types d concerns.
func (d Definition) DocumentTypes() []string { return typesOrDefault(d.Types) }

// typesOrDefault is types, or [DefaultType] when empty.
func typesOrDefault(types []string) []string {
	if len(types) == 0 {
		return []string{DefaultType}
	}
	return types
}

// concerns reports whether a flag or factor of types concerns a document
// of type typ ("" is DefaultType).
func concerns(types []string, typ string) bool {
	if typ == "" {
		typ = DefaultType
	}
	if len(types) == 0 {
		return typ == DefaultType
	}
	return slices.Contains(types, typ)
}

// Flag makes a flag of d under law, which it cites at citation (its
// Citation, which the caller has looked up), about subject ("" for
// none).
func (d *Definition) flag(law, citation, subject string) Flag {
	f := Flag{Code: d.Code, Severity: d.Severity, Law: law, Citation: citation, Subject: subject, Message: d.Message, Fix: d.Fix}
	if subject != "" {
		f.Message = sprintS(d.Message, subject)
		if containsVerb(d.Fix) {
			f.Fix = sprintS(d.Fix, subject)
		}
	}
	return f
}

// sprintS is fmt.Sprintf(format, s), without fmt when format's only verb
// is one %s (every catalog message's): the text around it and s.
func sprintS(format, s string) string {
	if i := strings.IndexByte(format, '%'); i >= 0 && strings.HasPrefix(format[i:], "%s") && !strings.Contains(format[i+2:], "%") {
		return format[:i] + s + format[i+2:]
	}
	return fmt.Sprintf(format, s)
}

// containsVerb reports whether s holds a %s.
func containsVerb(s string) bool { return strings.Contains(s, "%s") }

// Lookup returns the catalog definition of code.
func Lookup(code string) (Definition, bool) {
	i, ok := catalogIndex()[code]
	if !ok {
		return Definition{}, false
	}
	return Catalog[i], true
}

// catalogIndex is the position in Catalog of each code (its first, were
// one listed twice), made when first asked for: a document's flags look
// up dozens of codes, and a scan of the catalog compared each with every
// code before it.
var catalogIndex = sync.OnceValue(func() map[string]int {
	m := make(map[string]int, len(Catalog))
	for i, d := range Catalog {
		if _, ok := m[d.Code]; !ok {
			m[d.Code] = i
		}
	}
	return m
})

// flagEntry is a catalog definition as Flags raises it: with the rank of
// its code (codeRanks).
type flagEntry struct {
	def  *Definition
	rank int
}

// flagEntries are the catalog's flagEntry, by position in Catalog, made
// when first asked for.
var flagEntries = sync.OnceValue(func() []flagEntry {
	ranks := codeRanks()
	out := make([]flagEntry, len(Catalog))
	for i := range Catalog {
		out[i] = flagEntry{def: &Catalog[i], rank: ranks[i]}
	}
	return out
})

// mustLookup is the flagEntry of code.
func mustLookup(code string) *flagEntry {
	i, ok := catalogIndex()[code]
	if !ok {
		panic("compliance: flag " + code + " is not in the catalog")
	}
	return &flagEntries()[i]
}

// namedFlags are the entries of the codes Flags raises by name, each
// looked up once rather than by its code in every document.
type namedFlags struct {
	cookieConsentNotCollected, cookieConsentRequired, emailTrackingConsent     *flagEntry
	jointController, transferSafeguardUnknown, dpoNotStated, automatedDecision *flagEntry
	unknownService, noThirdPartyServices, specialCategoryData                  *flagEntry
	ccpaOptOutNotOffered, ccpaOptOutLink, ccpaMinorsOptIn, ccpaWebRequest      *flagEntry
	ccpaSensitiveLimitedUse, ccpaNotApplicable, caloppaDoNotTrack              *flagEntry
	usMDSensitiveDataSale, caARLPractices, coppaPractices                      *flagEntry
}

// flagsByName are the catalog's namedFlags, found when first asked for.
var flagsByName = sync.OnceValue(func() *namedFlags {
	return &namedFlags{
		cookieConsentNotCollected: mustLookup("cookie_consent_not_collected"),
		cookieConsentRequired:     mustLookup("cookie_consent_required"),
		emailTrackingConsent:      mustLookup("email_tracking_consent"),
		jointController:           mustLookup("joint_controller_arrangement"),
		transferSafeguardUnknown:  mustLookup("transfer_safeguard_unknown"),
		dpoNotStated:              mustLookup("dpo_not_stated"),
		automatedDecision:         mustLookup("automated_decisions_assumed"),
		unknownService:            mustLookup("unknown_service"),
		noThirdPartyServices:      mustLookup("no_third_party_services"),
		specialCategoryData:       mustLookup("special_category_data"),
		ccpaOptOutNotOffered:      mustLookup("ccpa_opt_out_not_offered"),
		ccpaOptOutLink:            mustLookup("ccpa_opt_out_link"),
		ccpaMinorsOptIn:           mustLookup("ccpa_minors_opt_in"),
		ccpaWebRequest:            mustLookup("ccpa_web_request_method"),
		ccpaSensitiveLimitedUse:   mustLookup("ccpa_sensitive_limited_use"),
		ccpaNotApplicable:         mustLookup("ccpa_not_applicable"),
		caloppaDoNotTrack:         mustLookup("caloppa_do_not_track"),
		usMDSensitiveDataSale:     mustLookup("us_md_sensitive_data_sale"),
		caARLPractices:            mustLookup("ca_arl_practices"),
		coppaPractices:            mustLookup("coppa_practices"),
	}
})

// codeRanks are, by position in Catalog, the rank of each code among the
// catalog's codes in byte order (equal codes, equal ranks), made when
// first asked for: Flags sorts a document's flags by code, which compared
// the codes' bytes at each comparison.
var codeRanks = sync.OnceValue(func() []int {
	codes := make([]string, len(Catalog))
	for i := range Catalog {
		codes[i] = Catalog[i].Code
	}
	slices.Sort(codes)
	codes = slices.Compact(codes)
	ranks := make([]int, len(Catalog))
	for i := range Catalog {
		ranks[i], _ = slices.BinarySearch(codes, Catalog[i].Code)
	}
	return ranks
})
