package catalog

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// MinCoverage is the share of third-party-web's occurrences (how often
// HTTP Archive finds each entity on a page) the catalog must cover.
const MinCoverage = 0.97

type tpwEntity struct {
	Name             string   `json:"name"`
	Category         string   `json:"category"`
	Domains          []string `json:"domains"`
	TotalOccurrences int      `json:"totalOccurrences"`
}

// TestThirdPartyWebCoverage computes, from the third-party-web 0.30.0
// data, the share of third-party occurrences on websites that the
// catalog's services stand for, prints it, and holds it to MinCoverage.
// Every entity a service names exists in the package, stands for one
// service only, and each domain the service records is one of its
// entities' domains.
func TestThirdPartyWebCoverage(t *testing.T) {
	raw, err := os.ReadFile("testdata/third-party-web/entities.json")
	if err != nil {
		t.Fatal(err)
	}
	var entities []tpwEntity
	if err := json.Unmarshal(raw, &entities); err != nil {
		t.Fatal(err)
	}
	byName := map[string]tpwEntity{}
	total, seen := 0, 0
	for _, e := range entities {
		byName[e.Name] = e
		total += e.TotalOccurrences
		if e.TotalOccurrences > 0 {
			seen++
		}
	}
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]string{}
	covered, entries := 0, 0
	for _, s := range c.Services {
		if len(s.ThirdPartyWeb) > 0 {
			entries++
		}
		var domains []string
		for _, name := range s.ThirdPartyWeb {
			e, ok := byName[name]
			if !ok {
				t.Errorf("%s: third-party-web has no entity %q", s.ID, name)
				continue
			}
			if o, dup := owner[name]; dup {
				t.Errorf("entity %q stands for both %s and %s", name, o, s.ID)
				continue
			}
			owner[name] = s.ID
			covered += e.TotalOccurrences
			domains = append(domains, e.Domains...)
		}
		for _, d := range s.Domains {
			if !slices.Contains(domains, d) {
				t.Errorf("%s: domain %q is not one of its entities' domains", s.ID, d)
			}
		}
		if len(s.ThirdPartyWeb) > 0 && len(s.Domains) == 0 {
			t.Errorf("%s: no domains recorded", s.ID)
		}
	}
	share := float64(covered) / float64(total)
	t.Logf("catalog: %d services, %d of them matched to %d third-party-web entities (of the %d HTTP Archive finds); weighted coverage %.2f%% of %d occurrences",
		len(c.Services), entries, len(owner), seen, 100*share, total)
	if share < MinCoverage {
		var missing []string
		for _, e := range entities {
			if _, ok := owner[e.Name]; !ok && e.TotalOccurrences > total/1000 {
				missing = append(missing, e.Name)
			}
		}
		t.Errorf("coverage %.2f%% is below %.0f%%; the largest uncovered entities: %s", 100*share, 100*MinCoverage, strings.Join(missing, ", "))
	}
}
