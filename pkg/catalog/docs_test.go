package catalog

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite the generated part of docs/SERVICES_SOURCES.md")

const (
	beginServices = "<!-- begin generated services -->\n"
	endServices   = "<!-- end generated services -->"
)

// servicesDoc is the generated part of docs/SERVICES_SOURCES.md: one row
// per service, then every recorded source.
func servicesDoc(c *Catalog) string {
	var b strings.Builder
	cell := func(s string) string {
		if s == "" {
			return "not confirmed"
		}
		return strings.ReplaceAll(s, "|", "\\\\|")
	}
	tri := func(v *bool) string {
		switch {
		case v == nil:
			return "not confirmed"
		case *v:
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(&b, "%d services. Columns: provider (country), category, DPF certification, CCPA role, joint controller, sets cookies, third-party-web entities.\n\n", len(c.Services))
	b.WriteString("| id | name | provider | category | DPF | ccpaRole | joint | cookies | third-party-web |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range c.Services {
		prov := cell(s.Provider)
		if s.ProviderCountry != "" {
			prov += " (" + s.ProviderCountry + ")"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", s.ID, cell(s.Name), prov, s.Category,
			tri(s.DataPrivacyFramework), cell(s.CCPARole), tri(s.JointController), tri(s.SetsCookies), cell(strings.Join(s.ThirdPartyWeb, ", ")))
	}
	for _, s := range c.Services {
		fmt.Fprintf(&b, "\n### %s (`%s`)\n\n", s.Name, s.ID)
		for _, src := range s.Sources {
			fmt.Fprintf(&b, "- %s: <%s> (%s)\n", cell(src.Fact), src.URL, src.Via)
		}
	}
	return b.String()
}

// TestServicesSourcesDoc keeps docs/SERVICES_SOURCES.md's generated part in
// step with services.json (-update rewrites it).
func TestServicesSourcesDoc(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	const path = "../../docs/SERVICES_SOURCES.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i, j := strings.Index(s, beginServices), strings.Index(s, endServices)
	if i < 0 || j < i {
		t.Fatal("docs/SERVICES_SOURCES.md lacks the generated markers")
	}
	want := s[:i+len(beginServices)] + servicesDoc(c) + s[j:]
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != s {
		t.Error("docs/SERVICES_SOURCES.md is out of date: run go test ./pkg/catalog -run TestServicesSourcesDoc -update")
	}
}
