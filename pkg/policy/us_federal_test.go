package policy

import (
	"slices"
	"strings"
	"testing"
)

// TestDirectedToChildren: the COPPA notice for parents (issue 8, part j6)
// is in every U.S. document whose request says directedToChildren, never
// elsewhere; a children's service that leaves the field out gets a todo in
// a U.S. jurisdiction; the notice's missing address and phone are
// placeholders with todos; the sector flag gives way to coppa_practices.
func TestDirectedToChildren(t *testing.T) {
	yes, no := true, false
	base := func(j string, dtc *bool) Request {
		return Request{Type: "privacy", BusinessName: "Kids Co", WebsiteURL: "https://kids.example", BusinessType: "childrens_services",
			Language: "en", Jurisdiction: j, CollectsUserData: true, ThirdPartyServices: []string{}, Format: "markdown",
			ContactEmail: "hi@kids.example", HostingProvider: "aws", DirectedToChildren: dtc}
	}
	fields := func(r Result) []string {
		var out []string
		for _, td := range r.Todos {
			out = append(out, td.Field)
		}
		return out
	}
	codes := func(r Result) []string {
		var out []string
		for _, f := range r.Flags {
			out = append(out, f.Code)
		}
		return out
	}
	const heading = "## Children under 13"
	for _, j := range []string{"US", "US-CA", "US-TX"} {
		unstated, err := Generate(base(j, nil))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(fields(unstated), "directedToChildren") || unstated.Status != StatusNeedsInput {
			t.Errorf("%s: unstated: todos %v, status %s", j, fields(unstated), unstated.Status)
		}
		if strings.Contains(unstated.Content, heading) || !slices.Contains(codes(unstated), "sector_coppa") {
			t.Errorf("%s: unstated: children's section shown or sector_coppa missing (%v)", j, codes(unstated))
		}
		notDirected, _ := Generate(base(j, &no))
		if slices.Contains(fields(notDirected), "directedToChildren") || strings.Contains(notDirected.Content, heading) {
			t.Errorf("%s: false: todo or section", j)
		}
		directed, _ := Generate(base(j, &yes))
		if !strings.Contains(directed.Content, heading) {
			t.Errorf("%s: true: no children's section", j)
		}
		for _, f := range []string{"postalAddress", "phone"} {
			if !slices.Contains(fields(directed), f) {
				t.Errorf("%s: true: no todo for %s (%v)", j, f, fields(directed))
			}
		}
		if !strings.Contains(directed.Content, `[phone number: send phone\]`) {
			t.Errorf("%s: true: no phone placeholder", j)
		}
		if c := codes(directed); !slices.Contains(c, "coppa_practices") || slices.Contains(c, "sector_coppa") {
			t.Errorf("%s: true: flags %v", j, c)
		}
		// Any business type: the notice follows the fact, not the type.
		blog := base(j, &yes)
		blog.BusinessType = "blog"
		r, _ := Generate(blog)
		if !strings.Contains(r.Content, heading) || !slices.Contains(codes(r), "coppa_practices") {
			t.Errorf("%s: blog directed to children: section or flag missing", j)
		}
	}
	// Outside the United States the field changes nothing.
	for _, j := range []string{"EU", "UK"} {
		r, err := Generate(base(j, nil))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := Generate(base(j, &yes))
		if slices.Contains(fields(r), "directedToChildren") || strings.Contains(d.Content, heading) {
			t.Errorf("%s: COPPA todo or section outside the U.S.", j)
		}
	}
}
