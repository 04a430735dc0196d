package policy

import "github.com/policygen/policygen/pkg/catalog"

// The allowed values of the enumerated request fields come from the
// embedded catalog (pkg/catalog), so that adding a service or a business
// type is a data change. The catalog is parsed on first use; if it cannot
// be parsed (a bug that the catalog's tests catch) every set is empty and
// every request is rejected rather than generated from bad data.

func cat() *catalog.Catalog {
	c, err := catalog.Default()
	if err != nil {
		return &catalog.Catalog{}
	}
	return c
}

// Types lists the document types that can be generated.
func Types() []string { return clone(cat().Types) }

// Languages lists the languages documents can be generated in.
func Languages() []string { return clone(cat().Languages) }

// Jurisdictions lists the legal regimes a document can target.
func Jurisdictions() []string { return cat().JurisdictionIDs() }

// BusinessTypes lists the kinds of business the generator knows.
func BusinessTypes() []string { return cat().BusinessTypeIDs() }

// PurposeIDs lists the processing purposes, in catalog order.
func PurposeIDs() []string {
	out := make([]string, len(cat().Purposes))
	for i, p := range cat().Purposes {
		out[i] = p.ID
	}
	return out
}

// ServiceIDs lists the third-party services the catalog describes, sorted.
func ServiceIDs() []string { return cat().ServiceIDs() }

func clone(s []string) []string { return append([]string(nil), s...) }
