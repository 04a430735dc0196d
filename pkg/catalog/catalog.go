// Package catalog is the embedded reference data the generator draws on:
// the third-party services it can disclose (data/services.json), the
// jurisdictions (data/jurisdictions/<ID>.json, one file each), and the
// vocabularies of document types, languages, business types, data
// categories, purposes and service categories (data/catalog.json).
//
// The data is parsed lazily, on first use, so that a Lambda cold start does
// no work for it; loading is strict (unknown fields, unknown vocabulary and
// duplicate ids are errors) and a test loads it, so a bad edit fails CI
// rather than a request.
package catalog

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/policygen/policygen/pkg/internal/strictjson"
)

//go:embed data/*.json data/jurisdictions/*.json
var embedded embed.FS

// Catalog is the whole reference data set.
type Catalog struct {
	Types             []string          `json:"types"`
	Languages         []string          `json:"languages"`
	Jurisdictions     []Jurisdiction    `json:"-"` // from data/jurisdictions/*.json
	DataCategories    []DataCategory    `json:"dataCategories"`
	Purposes          []Purpose         `json:"purposes"`
	ServiceCategories []ServiceCategory `json:"serviceCategories"`
	// Website is what every website processes to serve pages (server logs);
	// Payments and Analytics are what the request flags of the same name add.
	Website       Practice       `json:"website"`
	Payments      Practice       `json:"payments"`
	Analytics     Practice       `json:"analytics"`
	BusinessTypes []BusinessType `json:"businessTypes"`
	Services      []Service      `json:"-"` // from data/services.json

	// id -> position, built by Load: generation looks entries up by id
	// many times per document.
	serviceIndex, jurisdictionIndex, businessTypeIndex, purposeIndex,
	dataCategoryIndex, serviceCategoryIndex map[string]int
	// The catalog's own strings that spell a purpose's or a data
	// category's id, by address (ptrIndex), and the services' ids, which
	// a parsed request names its services by.
	purposePtrs, dataCategoryPtrs, servicePtrs ptrIndex
}

// Jurisdiction is a legal regime a document can target.
type Jurisdiction struct {
	ID string `json:"id"`
	// Aliases are other names people use for it (ISO 3166 codes, names);
	// requests may use them, documents and stored requests use ID.
	Aliases []string `json:"aliases,omitempty"`
	// Countries are ISO 3166-1 alpha-2 codes of the region: a service
	// provider established outside them means an international transfer.
	Countries []string `json:"countries"`
	// Adequate lists the countries outside the region that an adequacy
	// decision (EU: Art. 45 GDPR; UK: regulations under Art. 45A UK GDPR)
	// covers. A US provider is covered only while certified under the Data
	// Privacy Framework (and, for the UK, its UK Extension).
	Adequate  []string   `json:"adequate,omitempty"`
	Authority *Authority `json:"authority,omitempty"`
	// Authorities are the supervisory authorities of the member states
	// (ISO 3166-1 alpha-2), named for complaints when a request gives one.
	Authorities map[string]Authority `json:"authorities,omitempty"`
	// Region is the region's short name in prose ("EEA", "UK").
	Region string `json:"region"`
	// TransferMechanisms are the Chapter V tools this jurisdiction's law
	// knows (a subset of TransferMechanisms), the values a request's
	// transferSafeguards may use; none for a jurisdiction without transfer
	// rules.
	TransferMechanisms []string `json:"transferMechanisms,omitempty"`
	// Certification is the mechanism that rests on a U.S. provider's
	// Data Privacy Framework certification (an adequacy decision for
	// certified organisations); CertificationImplied is true when a
	// certified provider is covered without stating it (the EU-U.S. DPF),
	// false when the provider must opt in (the UK Extension).
	Certification        string `json:"certification,omitempty"`
	CertificationImplied bool   `json:"certificationImplied,omitempty"`
	// RepresentativeField names the request field of the Art. 27
	// representative in the region ("euRepresentative").
	RepresentativeField string `json:"representativeField,omitempty"`
	// EUEntity: documents name a provider's EEA contracting entity.
	EUEntity bool `json:"euEntity,omitempty"`
	// USSectorLaws: business types raise flags naming U.S. sector laws.
	USSectorLaws bool `json:"usSectorLaws,omitempty"`
}

// foldName is a name as compared with what people type: lower case,
// without spaces, hyphens, underscores or dots (as pkg/policy reads input).
func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '.':
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// Authority is the supervisory authority a data subject may complain to.
type Authority struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// DataCategory is a kind of personal data.
type DataCategory struct {
	ID string `json:"id"`
	// CCPA lists the letters of the categories of Cal. Civ. Code
	// § 1798.140(v)(1) this category falls in ("L" stands for sensitive
	// personal information, § 1798.140(ae)).
	CCPA      []string `json:"ccpa"`
	Sensitive bool     `json:"sensitive,omitempty"`
	// Purposes, when set, are the only purposes the category is used for,
	// whatever else the business type or service does (log-in credentials
	// serve the account and its security, not marketing).
	Purposes []string `json:"purposes,omitempty"`
}

// Purpose is a reason personal data is processed.
type Purpose struct {
	ID string `json:"id"`
	// GDPRBasis is the Art. 6(1) lawful basis: consent, contract,
	// legal_obligation or legitimate_interests.
	GDPRBasis string `json:"gdprBasis"`
	// CrossContextAdvertising marks purposes that are "sharing" under
	// Cal. Civ. Code § 1798.140(ah).
	CrossContextAdvertising bool `json:"crossContextAdvertising,omitempty"`
}

// ServiceCategory maps a kind of third-party service to the purposes it serves.
type ServiceCategory struct {
	ID       string   `json:"id"`
	Purposes []string `json:"purposes"`
	// CategoryPurposes narrows the purposes a data category serves for
	// such a service: a payment provider's device data is for fraud
	// screening (security, GDPR Art. 6(1)(f)), not for the payment.
	CategoryPurposes map[string][]string `json:"categoryPurposes,omitempty"`
}

// Practice is a set of data categories processed for a set of purposes.
type Practice struct {
	DataCategories []string `json:"dataCategories"`
	Purposes       []string `json:"purposes"`
}

// BusinessType is a kind of business and what it collects from its users
// when the request says it collects user data.
type BusinessType struct {
	ID string `json:"id"`
	// Name is how people call it ("Health care"); Aliases are other names.
	Name           string   `json:"name"`
	Aliases        []string `json:"aliases,omitempty"`
	DataCategories []string `json:"dataCategories"`
	Purposes       []string `json:"purposes"`
	// SectorLaws are the U.S. sector laws that may govern such a business
	// besides the document's law (HIPAA, FERPA, COPPA, GLBA): each raises a flag.
	SectorLaws []string `json:"sectorLaws,omitempty"`
	// SpecialCategory marks businesses likely to handle special categories
	// of personal data (GDPR Art. 9: health, religious beliefs).
	SpecialCategory bool `json:"specialCategory,omitempty"`
}

// SectorLaws a business type may name.
var SectorLaws = []string{"HIPAA", "FERPA", "COPPA", "GLBA"}

// Service is a third-party service a business may use. Facts no source
// confirmed are empty (or nil): the document then says less, never guesses.
type Service struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Aliases are other names people use for the service ("GA4",
	// "Facebook Pixel"); requests may use them, documents use Name.
	Aliases []string `json:"aliases,omitempty"`
	// ThirdPartyWeb names the entities of the npm package third-party-web
	// (0.30.0) this entry stands for; Domains are the hosts that identify
	// the service on a web page (from that package).
	ThirdPartyWeb   []string `json:"thirdPartyWeb,omitempty"`
	Domains         []string `json:"domains,omitempty"`
	Category        string   `json:"category"`
	Provider        string   `json:"provider"`        // legal entity; "" if not confirmed
	ProviderCountry string   `json:"providerCountry"` // ISO 3166-1 alpha-2; "" if not confirmed
	EUEntity        string   `json:"euEntity"`        // contracting entity in the EEA, if any
	Purpose         string   `json:"purpose"`
	DataCategories  []string `json:"dataCategories"`
	// Roles is the provider's GDPR role for each purpose of its category:
	// processor, controller (independent) or joint_controller. A purpose
	// without a role is not characterised in the document.
	Roles map[string]string `json:"roles,omitempty"`
	// JointController is true when the provider's terms make it a joint
	// controller with the website (Art. 26 GDPR); nil when not known.
	JointController *bool `json:"jointController"`
	// SetsCookies is nil when no source confirmed whether the service
	// stores or reads information on the visitor's device. Callers must
	// not read nil as false: see CookiesUnknown.
	SetsCookies          *bool    `json:"setsCookies"`
	Cookies              []Cookie `json:"cookies"`
	PrivacyPolicyURL     string   `json:"privacyPolicyUrl"`
	OptOutURL            string   `json:"optOutUrl,omitempty"`
	DPAURL               string   `json:"dpaUrl,omitempty"`
	DataPrivacyFramework *bool    `json:"dataPrivacyFramework"` // nil: not known
	// Transfers lists, per jurisdiction id (EU, UK), the transfer
	// mechanisms (TransferMechanisms) the provider states it relies on.
	Transfers map[string][]string `json:"transfers,omitempty"`
	// AccessCountries are further countries from which the provider states
	// personal data may be accessed (ISO 3166-1 alpha-2).
	AccessCountries []string `json:"accessCountries,omitempty"`
	// Retention is what the provider states about how long it keeps the
	// data, as a verb phrase ("keeps recordings for 365 days"); "" if not
	// known.
	Retention string          `json:"retention,omitempty"`
	CCPARole  string          `json:"ccpaRole"` // "" if not known
	Essential bool            `json:"essential"`
	Sources   []ServiceSource `json:"sources"`
}

// GDPR roles of a service provider.
const (
	RoleProcessor       = "processor"
	RoleController      = "controller"
	RoleJointController = "joint_controller"
)

// TransferMechanisms are the Chapter V transfer tools a provider may rely
// on, by id: the EU-U.S. Data Privacy Framework (Commission Implementing
// Decision (EU) 2023/1795), the EU standard contractual clauses (Decision
// (EU) 2021/914), binding corporate rules (Art. 47), the UK Extension to
// the DPF (the UK-US data bridge, Data Protection (Adequacy) (United States
// of America) Regulations 2023), the UK International Data Transfer
// Agreement and the UK Addendum to the EU clauses (s. 119A DPA 2018).
var TransferMechanisms = []string{"eu_us_dpf", "eu_sccs", "bcr", "uk_extension", "uk_idta", "uk_addendum",
	// Issue 8, part j1: Switzerland (FADP Art. 16): the Swiss-U.S. Data
	// Privacy Framework (Annex 1 DPO, from 15 September 2024, certified
	// organisations only), standard data protection clauses the FDPIC has
	// approved, issued or recognised (Art. 16(2)(d)), binding corporate rules
	// (Art. 16(2)(e)).
	"ch_dpf", "ch_sccs", "ch_bcr",
}

// ServiceSource records where a fact about a service was read.
type ServiceSource struct {
	Fact string `json:"fact"`
	URL  string `json:"url"`
	Via  string `json:"via"`
}

// Cookie is a cookie a service sets.
type Cookie struct {
	Name     string `json:"name"`
	Purpose  string `json:"purpose"`
	Duration string `json:"duration"`
}

// CCPA roles of a service (Cal. Civ. Code § 1798.140(ag), (ai)).
const (
	RoleServiceProvider = "service_provider"
	RoleThirdParty      = "third_party"
)

// GDPR lawful bases (Art. 6(1)).
var Bases = []string{"consent", "contract", "legal_obligation", "legitimate_interests"}

var (
	once    sync.Once
	loaded  *Catalog
	loadErr error
)

// Default returns the embedded catalog, parsing it on first use.
func Default() (*Catalog, error) {
	once.Do(func() { loaded, loadErr = Load(embedded) })
	return loaded, loadErr
}

// Load parses and validates a catalog from fsys, which must hold
// data/catalog.json and data/services.json.
func Load(fsys fs.FS) (*Catalog, error) {
	var c Catalog
	if err := decodeFile(fsys, "data/catalog.json", &c); err != nil {
		return nil, err
	}
	if err := decodeFile(fsys, "data/services.json", &c.Services); err != nil {
		return nil, err
	}
	// One file per jurisdiction (data/jurisdictions/<ID>.json), in id
	// order: adding a jurisdiction adds a file.
	files, err := fs.Glob(fsys, "data/jurisdictions/*.json")
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	slices.Sort(files)
	for _, name := range files {
		var j Jurisdiction
		if err := decodeFile(fsys, name, &j); err != nil {
			return nil, err
		}
		if path.Base(name) != j.ID+".json" {
			return nil, fmt.Errorf("catalog: %s: id %q does not match the file name", name, j.ID)
		}
		c.Jurisdictions = append(c.Jurisdictions, j)
	}
	slices.SortFunc(c.Services, func(a, b Service) int { return cmpString(a.ID, b.ID) })
	c.serviceIndex = indexByID(c.Services, func(s *Service) string { return s.ID })
	c.jurisdictionIndex = indexByID(c.Jurisdictions, func(j *Jurisdiction) string { return j.ID })
	c.businessTypeIndex = indexByID(c.BusinessTypes, func(b *BusinessType) string { return b.ID })
	c.purposeIndex = indexByID(c.Purposes, func(p *Purpose) string { return p.ID })
	c.dataCategoryIndex = indexByID(c.DataCategories, func(d *DataCategory) string { return d.ID })
	c.serviceCategoryIndex = indexByID(c.ServiceCategories, func(s *ServiceCategory) string { return s.ID })
	if err := c.validate(); err != nil {
		return nil, err
	}
	strs := catalogStrings(&c)
	c.purposePtrs = newPtrIndex(strs, c.purposeIndex)
	c.dataCategoryPtrs = newPtrIndex(strs, c.dataCategoryIndex)
	c.servicePtrs = newPtrIndex(c.ServiceIDs(), c.serviceIndex)
	return &c, nil
}

// indexByID maps each entry's id to its position (the first, where ids
// repeat: validate then refuses the catalog).
func indexByID[T any](entries []T, id func(*T) string) map[string]int {
	m := make(map[string]int, len(entries))
	for i := range entries {
		if _, dup := m[id(&entries[i])]; !dup {
			m[id(&entries[i])] = i
		}
	}
	return m
}

// lookup is entries[index[id]], or the zero value when id is unknown.
func lookup[T any](entries []T, index map[string]int, id string) (T, bool) {
	i, ok := index[id]
	if !ok {
		var zero T
		return zero, false
	}
	return entries[i], true
}

// ServiceIndex is the position of service id in Services, or -1: found by
// the address of its bytes when id is the catalog's own string (as
// ParseRequest gives a catalog service), else by its text.
func (c *Catalog) ServiceIndex(id string) int {
	return position(&c.servicePtrs, c.serviceIndex, id)
}

// PurposeIndex is the position of purpose id in Purposes, or -1.
func (c *Catalog) PurposeIndex(id string) int {
	return position(&c.purposePtrs, c.purposeIndex, id)
}

// DataCategoryIndex is the position of data category id in
// DataCategories, or -1.
func (c *Catalog) DataCategoryIndex(id string) int {
	return position(&c.dataCategoryPtrs, c.dataCategoryIndex, id)
}

// position is id's entry position: by address among the catalog's own
// strings, else by text, else -1.
func position(ptrs *ptrIndex, index map[string]int, id string) int {
	if i, ok := ptrs.get(id); ok {
		return i
	}
	if i, ok := index[id]; ok {
		return i
	}
	return -1
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func decodeFile(fsys fs.FS, name string, v any) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if err := strictjson.Decode(b, v); err != nil {
		return fmt.Errorf("catalog: %s: %w", name, err)
	}
	return nil
}

// Vocabulary of service data categories shared with data/services.json.
func (c *Catalog) dataCategoryIDs() []string {
	ids := make([]string, len(c.DataCategories))
	for i, d := range c.DataCategories {
		ids[i] = d.ID
	}
	return ids
}

func (c *Catalog) validate() error {
	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	unique := func(kind string, ids []string) {
		seen := map[string]bool{}
		for _, id := range ids {
			if id == "" {
				bad("%s: empty id", kind)
			}
			if seen[id] {
				bad("%s: duplicate id %q", kind, id)
			}
			seen[id] = true
		}
	}
	ids := func(n int, f func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	cats := c.dataCategoryIDs()
	purposes := ids(len(c.Purposes), func(i int) string { return c.Purposes[i].ID })
	scats := ids(len(c.ServiceCategories), func(i int) string { return c.ServiceCategories[i].ID })
	unique("types", c.Types)
	unique("languages", c.Languages)
	unique("jurisdictions", ids(len(c.Jurisdictions), func(i int) string { return c.Jurisdictions[i].ID }))
	// A name people type must mean one jurisdiction: ids and aliases,
	// compared without case, spaces or punctuation, are all distinct.
	var names []string
	for _, j := range c.Jurisdictions {
		for _, n := range append([]string{j.ID}, j.Aliases...) {
			names = append(names, foldName(n))
		}
	}
	unique("jurisdiction ids and aliases", names)
	unique("dataCategories", cats)
	unique("purposes", purposes)
	unique("serviceCategories", scats)
	unique("businessTypes", ids(len(c.BusinessTypes), func(i int) string { return c.BusinessTypes[i].ID }))
	names = names[:0]
	for _, b := range c.BusinessTypes {
		own := map[string]bool{}
		for _, n := range append([]string{b.ID, b.Name}, b.Aliases...) {
			if f := foldName(n); !own[f] {
				own[f] = true
				names = append(names, f)
			}
		}
	}
	unique("business type ids, names and aliases", names)
	unique("services", ids(len(c.Services), func(i int) string { return c.Services[i].ID }))
	// Likewise a service's id, name and aliases name it alone.
	names = names[:0]
	for _, s := range c.Services {
		own := map[string]bool{}
		for _, n := range append([]string{s.ID, s.Name}, s.Aliases...) {
			if f := foldName(n); !own[f] {
				own[f] = true
				names = append(names, f)
			}
		}
	}
	unique("service ids, names and aliases", names)

	in := func(where string, vocab []string, vals ...string) {
		for _, v := range vals {
			if !slices.Contains(vocab, v) {
				bad("%s: unknown value %q", where, v)
			}
		}
	}
	for _, j := range c.Jurisdictions {
		if len(j.Countries) == 0 {
			bad("jurisdiction %s: no countries", j.ID)
		}
		if j.Authority != nil && (j.Authority.Name == "" || !isHTTPS(j.Authority.URL)) {
			bad("jurisdiction %s: authority needs a name and an https url", j.ID)
		}
		if j.Region == "" {
			bad("jurisdiction %s: no region name", j.ID)
		}
		in("jurisdiction "+j.ID+" transferMechanisms", TransferMechanisms, j.TransferMechanisms...)
		if j.Certification != "" && !slices.Contains(j.TransferMechanisms, j.Certification) {
			bad("jurisdiction %s: certification %q is not one of its transferMechanisms", j.ID, j.Certification)
		}
		in("jurisdiction "+j.ID+" representativeField", []string{"", "euRepresentative", "ukRepresentative"}, j.RepresentativeField)
	}
	for _, d := range c.DataCategories {
		if len(d.CCPA) == 0 {
			bad("dataCategory %s: no CCPA category", d.ID)
		}
		// "other": personal information that fits no category of
		// § 1798.140(v)(1)(A)-(K), a list that is not exhaustive.
		in("dataCategory "+d.ID+" ccpa", []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "other"}, d.CCPA...)
	}
	for _, d := range c.DataCategories {
		in("dataCategory "+d.ID+" purposes", purposes, d.Purposes...)
	}
	for _, p := range c.Purposes {
		in("purpose "+p.ID+" gdprBasis", Bases, p.GDPRBasis)
	}
	for _, s := range c.ServiceCategories {
		in("serviceCategory "+s.ID, purposes, s.Purposes...)
		for cat, ps := range s.CategoryPurposes {
			in("serviceCategory "+s.ID+" categoryPurposes", cats, cat)
			in("serviceCategory "+s.ID+" categoryPurposes "+cat, s.Purposes, ps...)
		}
	}
	for name, p := range map[string]Practice{"website": c.Website, "payments": c.Payments, "analytics": c.Analytics} {
		in(name+" dataCategories", cats, p.DataCategories...)
		in(name+" purposes", purposes, p.Purposes...)
	}
	for _, b := range c.BusinessTypes {
		in("businessType "+b.ID+" sectorLaws", SectorLaws, b.SectorLaws...)
		if b.Name == "" {
			bad("businessType %s: no name", b.ID)
		}
		in("businessType "+b.ID+" dataCategories", cats, b.DataCategories...)
		in("businessType "+b.ID+" purposes", purposes, b.Purposes...)
	}
	for _, s := range c.Services {
		where := "service " + s.ID
		if s.Name == "" || s.Purpose == "" {
			bad("%s: name and purpose are required", where)
		}
		if s.ProviderCountry != "" && len(s.ProviderCountry) != 2 {
			bad("%s: providerCountry must be an ISO 3166-1 alpha-2 code", where)
		}
		sc, _ := c.ServiceCategory(s.Category)
		for p, r := range s.Roles {
			if !slices.Contains(sc.Purposes, p) {
				bad("%s: role for %q, which is not a purpose of category %s", where, p, s.Category)
			}
			in(where+" roles", []string{RoleProcessor, RoleController, RoleJointController}, r)
		}
		for j, ms := range s.Transfers {
			if _, ok := c.Jurisdiction(j); !ok {
				bad("%s: transfers for unknown jurisdiction %q", where, j)
			}
			in(where+" transfers", TransferMechanisms, ms...)
		}
		for _, a := range s.AccessCountries {
			if len(a) != 2 {
				bad("%s: accessCountries must be ISO 3166-1 alpha-2 codes", where)
			}
		}
		in(where+" category", scats, s.Category)
		in(where+" dataCategories", cats, s.DataCategories...)
		if len(s.Sources) == 0 {
			bad("%s: no sources", where)
		}
		if len(s.DataCategories) == 0 {
			bad("%s: no dataCategories", where)
		}
		if s.CCPARole != "" {
			in(where+" ccpaRole", []string{RoleServiceProvider, RoleThirdParty}, s.CCPARole)
		}
		if s.PrivacyPolicyURL != "" && !isHTTPS(s.PrivacyPolicyURL) {
			bad("%s: privacyPolicyUrl must be an https URL", where)
		}
		if s.DPAURL != "" && !isHTTPS(s.DPAURL) {
			bad("%s: dpaUrl must be an https URL", where)
		}
		if s.OptOutURL != "" && !isHTTPS(s.OptOutURL) {
			bad("%s: optOutUrl must be an https URL", where)
		}
		if (s.SetsCookies == nil || !*s.SetsCookies) && len(s.Cookies) > 0 {
			bad("%s: lists cookies but setsCookies is not true", where)
		}
		// A payment provider completes a transaction the consumer asked
		// for; it is never a recipient of a sale or sharing.
		if s.Category == "payments" && s.CCPARole == RoleThirdParty {
			bad("%s: a payment provider must have ccpaRole service_provider", where)
		}
		for _, k := range s.Cookies {
			// An unconfirmed duration is empty, never a pointer elsewhere.
			if k.Name == "" || k.Purpose == "" || strings.Contains(k.Duration, "see the provider") {
				bad("%s: cookie needs a name, a purpose and a duration (empty if not confirmed)", where)
			}
		}
	}
	return errors.Join(problems...)
}

func isHTTPS(u string) bool {
	return len(u) > len("https://") && u[:len("https://")] == "https://"
}

// SetsCookiesKnown reports whether the service is known to store or read
// information on the visitor's device. It and CookiesUnknown take a
// pointer: a Service is large, and a value receiver copied all of it at
// every call (generation asks for each service of each document).
func (s *Service) SetsCookiesKnown() bool { return s.SetsCookies != nil && *s.SetsCookies }

// CookiesUnknown reports whether it is not known if the service stores or
// reads information on the visitor's device.
func (s *Service) CookiesUnknown() bool { return s.SetsCookies == nil }

// Service returns the service with id.
func (c *Catalog) Service(id string) (Service, bool) {
	i, ok := c.serviceIndex[id]
	if !ok {
		return Service{}, false
	}
	return c.Services[i], true
}

// ServiceEntry returns the catalog's own entry for the service with id,
// without copying it: callers must not change it.
func (c *Catalog) ServiceEntry(id string) (*Service, bool) {
	i, ok := c.serviceIndex[id]
	if !ok {
		return nil, false
	}
	return &c.Services[i], true
}

// Jurisdiction returns the jurisdiction with id.
func (c *Catalog) Jurisdiction(id string) (Jurisdiction, bool) {
	return lookup(c.Jurisdictions, c.jurisdictionIndex, id)
}

// BusinessType returns the business type with id.
func (c *Catalog) BusinessType(id string) (BusinessType, bool) {
	return lookup(c.BusinessTypes, c.businessTypeIndex, id)
}

// Purpose returns the purpose with id.
func (c *Catalog) Purpose(id string) (Purpose, bool) {
	return lookup(c.Purposes, c.purposeIndex, id)
}

// DataCategory returns the data category with id.
func (c *Catalog) DataCategory(id string) (DataCategory, bool) {
	return lookup(c.DataCategories, c.dataCategoryIndex, id)
}

// ServiceCategory returns the service category with id.
func (c *Catalog) ServiceCategory(id string) (ServiceCategory, bool) {
	return lookup(c.ServiceCategories, c.serviceCategoryIndex, id)
}

// ServiceIDs lists every service id, sorted.
func (c *Catalog) ServiceIDs() []string {
	out := make([]string, len(c.Services))
	for i, s := range c.Services {
		out[i] = s.ID
	}
	return out
}

// JurisdictionIDs lists the jurisdiction ids in catalog order.
func (c *Catalog) JurisdictionIDs() []string {
	out := make([]string, len(c.Jurisdictions))
	for i, j := range c.Jurisdictions {
		out[i] = j.ID
	}
	return out
}

// BusinessTypeIDs lists the business type ids in catalog order.
func (c *Catalog) BusinessTypeIDs() []string {
	out := make([]string, len(c.BusinessTypes))
	for i, b := range c.BusinessTypes {
		out[i] = b.ID
	}
	return out
}
