package api

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/policy"
)

// catalogDoc is GET /v1/catalog: every value a generation request may use,
// with the names and aliases it also accepts.
type catalogDoc struct {
	TemplateVersion string                `json:"templateVersion"`
	Types           []string              `json:"types"`
	Languages       []string              `json:"languages"`
	Jurisdictions   []catalogJurisdiction `json:"jurisdictions"`
	BusinessTypes   []catalogBusinessType `json:"businessTypes"`
	Purposes        []string              `json:"purposes"`
	Services        []catalogService      `json:"services"`
}

type catalogJurisdiction struct {
	ID           string          `json:"id"`
	Aliases      []string        `json:"aliases"`
	Laws         []catalogLaw    `json:"laws"`
	MemberStates []catalogMember `json:"memberStates,omitempty"`
}

type catalogLaw struct {
	ID        string   `json:"id"`
	ShortName string   `json:"shortName"`
	Name      string   `json:"name"`
	Types     []string `json:"types"` // document types it has checklist items for
}

type catalogMember struct {
	Code      string            `json:"code"`
	Name      string            `json:"name"`
	Authority catalog.Authority `json:"authority"`
}

type catalogBusinessType struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Aliases    []string `json:"aliases"`
	SectorLaws []string `json:"sectorLaws"`
}

type catalogService struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Aliases  []string `json:"aliases"`
	Category string   `json:"category"`
	Provider string   `json:"provider,omitempty"`
	Country  string   `json:"country,omitempty"`
}

var (
	catalogOnce sync.Once
	catalogBody []byte
	catalogErr  error
)

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// buildCatalog renders the catalog once: it is embedded data.
func buildCatalog() {
	c, err := catalog.Default()
	if err != nil {
		catalogErr = err
		return
	}
	laws, err := compliance.Laws()
	if err != nil {
		catalogErr = err
		return
	}
	d := catalogDoc{
		TemplateVersion: policy.TemplateVersion,
		Types:           nonNil(c.Types),
		Languages:       nonNil(c.Languages),
		Purposes:        policy.PurposeIDs(),
	}
	for _, j := range c.Jurisdictions {
		cj := catalogJurisdiction{ID: j.ID, Aliases: nonNil(j.Aliases), Laws: []catalogLaw{}}
		for _, l := range compliance.ForJurisdiction(laws, j.ID) {
			cj.Laws = append(cj.Laws, catalogLaw{ID: l.ID, ShortName: l.ShortName, Name: l.Name, Types: nonNil(l.DocumentTypes())})
		}
		for _, code := range j.Countries {
			if a, ok := j.Authorities[code]; ok {
				cj.MemberStates = append(cj.MemberStates, catalogMember{Code: code, Name: policy.CountryName(code), Authority: a})
			}
		}
		slices.SortFunc(cj.MemberStates, func(a, b catalogMember) int { return strings.Compare(a.Code, b.Code) })
		d.Jurisdictions = append(d.Jurisdictions, cj)
	}
	for _, b := range c.BusinessTypes {
		d.BusinessTypes = append(d.BusinessTypes, catalogBusinessType{ID: b.ID, Name: b.Name, Aliases: nonNil(b.Aliases), SectorLaws: nonNil(b.SectorLaws)})
	}
	for _, s := range c.Services {
		d.Services = append(d.Services, catalogService{ID: s.ID, Name: s.Name, Aliases: nonNil(s.Aliases), Category: s.Category, Provider: s.Provider, Country: s.ProviderCountry})
	}
	catalogBody = wire.EncodeJSON(d)
}

// handleCatalog serves GET /v1/catalog to a key of any plan.
func (s *server) handleCatalog(w http.ResponseWriter, r *http.Request) error {
	if r.URL.RawQuery != "" {
		return errs.E(errs.Invalid, "invalid_query", "GET /v1/catalog takes no query parameters")
	}
	catalogOnce.Do(buildCatalog)
	if catalogErr != nil {
		return internal(catalogErr, "catalog")
	}
	wire.WriteBody(w, http.StatusOK, "application/json", catalogBody)
	return nil
}
