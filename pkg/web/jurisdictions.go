package web

import (
	"slices"
	"strings"
	"unicode"

	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/policy"
)

// The generate form lists every catalog jurisdiction as a check box, in
// groups by where it is, so that one document can be made for several
// (the API's comma-separated jurisdiction, docs/DECISIONS.md 20).

// jurisdictionGroup is one fieldset of the form's jurisdiction boxes.
type jurisdictionGroup struct {
	Name  string
	Items []jurisdictionChoice
}

// jurisdictionChoice is one box: the catalog id is the value submitted.
type jurisdictionChoice struct {
	ID, Name string
	Checked  bool
}

// areaUS is the group of the U.S. jurisdictions: the whole country and
// each state whose law the catalog has, too many to mix with the rest.
const areaUS = "United States"

// areas are the groups in the order the form shows them; a jurisdiction
// whose country is not in areaOf goes to the last.
var areas = []string{"Europe", areaUS, "Americas", "Asia and the Pacific", "Africa", "Other jurisdictions"}

// areaOf places a jurisdiction by a country (ISO 3166-1 alpha-2), or ""
// for a country of none of the areas. A U.S. jurisdiction is placed by its
// country "US" before this is read. (A switch, not a map, so that no
// package init builds it at a Lambda cold start.)
func areaOf(country string) string {
	switch country {
	case "AT", "GB", "CH": // AT places the EU, whose countries are the EEA
		return "Europe"
	case "CA", "BR":
		return "Americas"
	case "AU", "NZ", "SG", "JP", "KR", "CN", "IN", "TH":
		return "Asia and the Pacific"
	case "ZA":
		return "Africa"
	}
	return ""
}

func areaOfJurisdiction(j catalog.Jurisdiction) string {
	if slices.Contains(j.Countries, "US") {
		return areaUS
	}
	for _, c := range j.Countries {
		if a := areaOf(c); a != "" {
			return a
		}
	}
	return areas[len(areas)-1]
}

// jurisdictionName is how the form names a jurisdiction: its first alias
// that is a name rather than a code ("European Union", "United Kingdom",
// "California"), else its region in prose, else its id. The catalog keeps
// names among the aliases, which requests may use too.
func jurisdictionName(j catalog.Jurisdiction) string {
	for _, a := range j.Aliases {
		if strings.IndexFunc(a, unicode.IsLower) >= 0 {
			return a
		}
	}
	if j.Region != "" {
		return titleCase(strings.TrimPrefix(j.Region, "the "))
	}
	return j.ID
}

// chosenJurisdictions reads the form's jurisdiction values: one per ticked
// box, or comma-separated lists (a hand-made request, a bookmark). Each
// part that names a catalog jurisdiction by id or alias is chosen; a part
// that names an EU or EEA member state chooses the jurisdiction whose
// supervisory authorities it has and is returned as the member state, as
// the API reads it. Parts the catalog does not know are left for the
// request parser to refuse by name.
func chosenJurisdictions(c *catalog.Catalog, values []string) (ids []string, member string) {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			id := ""
			for _, j := range c.Jurisdictions {
				if strings.EqualFold(part, j.ID) || slices.ContainsFunc(j.Aliases, func(a string) bool { return strings.EqualFold(part, a) }) {
					id = j.ID
					break
				}
			}
			if id == "" {
				id, member = memberOf(c, part, member)
			}
			if id != "" && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids, member
}

// memberOf is the jurisdiction of the member state s names (by code or
// English name), and that state's code; member is returned unchanged when
// s names none.
func memberOf(c *catalog.Catalog, s, member string) (string, string) {
	for _, j := range c.Jurisdictions {
		for code := range j.Authorities {
			if strings.EqualFold(s, code) || strings.EqualFold(s, policy.CountryName(code)) {
				return j.ID, code
			}
		}
	}
	return "", member
}

// jurisdictionGroups are the form's boxes, the chosen ones ticked. Within
// a group a whole country comes before its states, then names in
// alphabetical order.
func jurisdictionGroups(c *catalog.Catalog, chosen []string) []jurisdictionGroup {
	byArea := map[string][]catalog.Jurisdiction{}
	for _, j := range c.Jurisdictions {
		a := areaOfJurisdiction(j)
		byArea[a] = append(byArea[a], j)
	}
	var out []jurisdictionGroup
	for _, a := range areas {
		js := byArea[a]
		if len(js) == 0 {
			continue
		}
		slices.SortStableFunc(js, func(x, y catalog.Jurisdiction) int {
			if xs, ys := strings.Contains(x.ID, "-"), strings.Contains(y.ID, "-"); xs != ys {
				if xs {
					return 1
				}
				return -1
			}
			return strings.Compare(jurisdictionName(x), jurisdictionName(y))
		})
		g := jurisdictionGroup{Name: a}
		for _, j := range js {
			g.Items = append(g.Items, jurisdictionChoice{ID: j.ID, Name: jurisdictionName(j), Checked: slices.Contains(chosen, j.ID)})
		}
		out = append(out, g)
	}
	return out
}

// jurisdictionView is one of a stored policy's jurisdictions as its pages
// show it; Member is the member state whose authority the document names.
type jurisdictionView struct{ ID, Name, Member string }

// jurisdictionViews names a stored request's jurisdictions ("EU,US-CA",
// in catalog order) for the policy list and page.
func jurisdictionViews(ids, memberState string) []jurisdictionView {
	c, err := catalog.Default()
	var out []jurisdictionView
	for _, id := range policy.JurisdictionIDs(ids) {
		v := jurisdictionView{ID: id, Name: id}
		if err == nil {
			if j, ok := c.Jurisdiction(id); ok {
				v.Name = jurisdictionName(j)
				if _, ok := j.Authorities[memberState]; ok {
					v.Member = policy.CountryName(memberState)
				}
			}
		}
		out = append(out, v)
	}
	return out
}
