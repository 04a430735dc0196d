package compliance

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestChangelog: every checklist item is recorded as added by exactly one
// template version, and the changelog names no item that does not exist;
// so a new item cannot ship without its entry in docs/LEGAL_CHANGELOG.md.
func TestChangelog(t *testing.T) {
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	changes, err := Changelog()
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, l := range laws {
		for _, r := range slices.Concat(l.Requirements, l.NotModelled) {
			exists[r.ID] = true
		}
	}
	added := map[string]string{}
	versions := map[string]bool{}
	for _, c := range changes {
		if c.TemplateVersion == "" || c.Summary == "" {
			t.Errorf("changelog entry %q: templateVersion and summary are required", c.TemplateVersion)
		}
		if versions[c.TemplateVersion] {
			t.Errorf("changelog: template version %s listed twice", c.TemplateVersion)
		}
		versions[c.TemplateVersion] = true
		for _, id := range c.Added {
			if prev, dup := added[id]; dup {
				t.Errorf("changelog: %s added by both %s and %s", id, prev, c.TemplateVersion)
			}
			added[id] = c.TemplateVersion
		}
		for _, id := range slices.Concat(c.Added, c.Changed) {
			if !exists[id] {
				t.Errorf("changelog %s: no checklist item %q", c.TemplateVersion, id)
			}
		}
	}
	for id := range exists {
		if added[id] == "" {
			t.Errorf("checklist item %s is not in pkg/compliance/data/changelog.json: add it to the template version that introduces it", id)
		}
	}
}

// legalChangelogDoc renders docs/LEGAL_CHANGELOG.md, newest version first.
func legalChangelogDoc(laws []Law, changes []Change) string {
	byID := map[string]Requirement{}
	for _, l := range laws {
		for _, r := range slices.Concat(l.Requirements, l.NotModelled) {
			byID[r.ID] = r
		}
	}
	var b strings.Builder
	b.WriteString("# Legal changelog\n\n")
	b.WriteString("<!-- Generated from pkg/compliance/data/changelog.json and the checklists by `go test ./pkg/compliance -run TestDocs -update`; do not edit. -->\n\n")
	b.WriteString("The template version (`templateVersion` on every policy) that introduced or changed\n")
	b.WriteString("each checklist item. A policy generated with an older template version lacks the\n")
	b.WriteString("items added after it: regenerate it to pick them up. Sources: docs/LEGAL_SOURCES.md.\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	table := func(title string, ids []string) {
		if len(ids) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s (%d):\n\n| item | law | citation | title |\n| --- | --- | --- | --- |\n", title, len(ids))
		for _, id := range ids {
			r := byID[id]
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", id, r.Law, cell(r.Citation), cell(r.Title))
		}
	}
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", c.TemplateVersion, c.Summary)
		table("Added", c.Added)
		table("Changed", c.Changed)
	}
	return b.String()
}

// checklistIndexDoc is the generated part of docs/LEGAL_SOURCES.md: every
// checklist item with its citation, document types and the sources its
// law was read from.
func checklistIndexDoc(laws []Law) string {
	var b strings.Builder
	cell := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }
	n := 0
	for _, l := range laws {
		n += len(l.Requirements) + len(l.NotModelled)
	}
	fmt.Fprintf(&b, "%d checklist items in %d checklists.\n", n, len(laws))
	for _, l := range laws {
		fmt.Fprintf(&b, "\n### %s: %s (`%s.json`)\n\n", l.ShortName, cell(l.Name), l.ID)
		fmt.Fprintf(&b, "Jurisdictions: %s. Document types: %s.\n\n", strings.Join(l.Jurisdictions, ", "), strings.Join(l.DocumentTypes(), ", "))
		b.WriteString("| item | citation | title | types | applies when |\n| --- | --- | --- | --- | --- |\n")
		row := func(r Requirement, suffix string) {
			when := strings.Join(r.AppliesWhen, ", ")
			if when == "" {
				when = "always"
			}
			fmt.Fprintf(&b, "| `%s`%s | %s | %s | %s | %s |\n", r.ID, suffix, cell(r.Citation), cell(r.Title), strings.Join(r.DocumentTypes(l), ", "), when)
		}
		for _, r := range l.Requirements {
			row(r, "")
		}
		for _, r := range l.NotModelled {
			row(r, " (not modelled: a flag)")
		}
		b.WriteString("\nRead from:\n\n")
		for _, s := range l.Sources {
			fmt.Fprintf(&b, "- %s, <%s>: %s\n", cell(s.Title), s.URL, cell(s.Note))
		}
	}
	return b.String()
}
