package compliance

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/FLAGS.md and the generated part of docs/SCORING.md")

// flagsDoc is docs/FLAGS.md: the flag catalog, as code defines it.
func flagsDoc() string {
	var b strings.Builder
	b.WriteString("# Compliance flags\n\n")
	b.WriteString("<!-- Generated from pkg/compliance/catalog.go by `go test ./pkg/compliance -run TestDocs -update`; do not edit. -->\n\n")
	b.WriteString("Every flag a policy can carry in `complianceFlags`, by its stable code. A flag is\n")
	b.WriteString("`{code, severity, law, citation, subject?, message, fix}`: `law` is one of the\n")
	b.WriteString("laws below, `citation` the provision for that law, `subject` what the flag is\n")
	b.WriteString("about when a code can occur more than once (`%s` in a message). Flags describe\n")
	b.WriteString("the business's obligations and practices; inputs the request left out are\n")
	b.WriteString("`todos` instead (docs/API.md). Flags never change `riskScore` (docs/SCORING.md).\n\n")
	b.WriteString("Severity: `error` a practice that breaks a legal requirement as described;\n")
	b.WriteString("`warning` a likely gap or an obligation beyond the policy to act on; `info`\n")
	b.WriteString("something to know or confirm.\n\n")
	b.WriteString("Types: the document types a flag is raised on, those whose reader can act on\n")
	b.WriteString("it (docs/SCORING.md, \"Per document type\").\n\n")
	fmt.Fprintf(&b, "%d codes.\n\n", len(Catalog))
	b.WriteString("| code | severity | types | law: citation | message | fix |\n| --- | --- | --- | --- | --- | --- |\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, d := range Catalog {
		var cites []string
		for _, c := range slices.SortedFunc(slices.Values(d.Citations), func(a, b Citation) int { return strings.Compare(a.Law, b.Law) }) {
			cites = append(cites, c.Law+": "+c.Cite)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", d.Code, d.Severity, strings.Join(d.DocumentTypes(), ", "), cell(strings.Join(cites, "<br>")), cell(d.Message), cell(d.Fix))
	}
	return b.String()
}

// riskModelDoc is the factor table of docs/SCORING.md.
func riskModelDoc() string {
	var b strings.Builder
	b.WriteString("| factor | types | points | why |\n| --- | --- | --- | --- |\n")
	for _, m := range RiskModel {
		pts := fmt.Sprint(m.Points)
		if m.Max > 0 {
			pts = fmt.Sprintf("%d each, at most %d", m.Points, m.Max)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.ID, strings.Join(m.DocumentTypes(), ", "), pts, factorWhyDoc(m))
	}
	return b.String()
}

// factorWhyDoc is a factor's why for the table: with per-law citations,
// the sentence with "…" where each law's words go, then the words of every
// law, and the reason where no law of the document has any.
func factorWhyDoc(m FactorModel) string {
	if len(m.Citations) == 0 {
		return m.Why
	}
	lines := []string{strings.Replace(m.Why, "%s", "…", 1)}
	for _, c := range slices.SortedFunc(slices.Values(m.Citations), func(a, b LawCitation) int { return strings.Compare(a.Law, b.Law) }) {
		if c.Says == "" {
			lines = append(lines, fmt.Sprintf("`%s`: %s", c.Law, c.Cite))
			continue
		}
		lines = append(lines, fmt.Sprintf("`%s`: %s (%s)", c.Law, c.Says, c.Cite))
	}
	if m.Uncited != "" {
		lines = append(lines, "where none of these laws applies: "+m.Uncited)
	} else {
		lines = append(lines, "(applies only where one of these laws does)")
	}
	return strings.Join(lines, "<br>")
}

const (
	beginModel = "<!-- begin generated risk model -->\n"
	endModel   = "<!-- end generated risk model -->"
)

// TestDocs keeps docs/FLAGS.md and the risk model table of docs/SCORING.md
// in step with the code (-update rewrites them).
func TestDocs(t *testing.T) {
	check := func(path, want string) {
		got, err := os.ReadFile(path)
		if *updateDocs {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err != nil || string(got) != want {
			t.Errorf("%s is out of date: run go test ./pkg/compliance -run TestDocs -update", path)
		}
	}
	check("../../docs/FLAGS.md", flagsDoc())
	scoring, err := os.ReadFile("../../docs/SCORING.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(scoring)
	i, j := strings.Index(s, beginModel), strings.Index(s, endModel)
	if i < 0 || j < i {
		t.Fatalf("docs/SCORING.md lacks the generated risk model markers")
	}
	check("../../docs/SCORING.md", s[:i+len(beginModel)]+riskModelDoc()+s[j:])

	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	changes, err := Changelog()
	if err != nil {
		t.Fatal(err)
	}
	check("../../docs/LEGAL_CHANGELOG.md", legalChangelogDoc(laws, changes))
	sources, err := os.ReadFile("../../docs/LEGAL_SOURCES.md")
	if err != nil {
		t.Fatal(err)
	}
	s = string(sources)
	i, j = strings.Index(s, beginIndex), strings.Index(s, endIndex)
	if i < 0 || j < i {
		t.Fatalf("docs/LEGAL_SOURCES.md lacks the generated checklist index markers")
	}
	check("../../docs/LEGAL_SOURCES.md", s[:i+len(beginIndex)]+checklistIndexDoc(laws)+s[j:])
}

const (
	beginIndex = "<!-- begin generated checklist index -->\n"
	endIndex   = "<!-- end generated checklist index -->"
)
