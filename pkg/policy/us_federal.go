package policy

import (
	"slices"

	"github.com/policygen/policygen/pkg/compliance"
)

// Issue 8, part j6: the U.S. federal baseline. The COPPA Rule's online
// notice (16 CFR 312.4(d), 312.10) applies in every U.S. jurisdiction
// (law us-coppa, "country:US") to a website directed to children under 13
// or whose operator knows it collects their personal information
// (request field directedToChildren).

// lawCOPPA is the COPPA Rule's checklist.
const lawCOPPA = "us-coppa"

// businessTypeChildren is the business type whose websites are likely to
// be directed to children: for it, directedToChildren left out is a todo.
const businessTypeChildren = "childrens_services"

// todosUSFederal appends to out the inputs the COPPA notice needs that no
// todo in out names yet.
func todosUSFederal(f *Facts, out []compliance.Todo) []compliance.Todo {
	if !f.HasLaw(lawCOPPA) {
		return out
	}
	req := &f.Request
	add := func(field, why, cite string) {
		if !slices.ContainsFunc(out, func(t compliance.Todo) bool { return t.Field == field }) {
			out = append(out, compliance.Todo{Field: field, Why: why, Citation: cite})
		}
	}
	if req.DirectedToChildren == nil && req.BusinessType == businessTypeChildren {
		add("directedToChildren", "A children's service must say whether its website is directed to children under 13 or it knows it collects personal information from them (true or false): the policy then needs a notice for parents. Until you say, the policy has none.", "16 CFR 312.2, 312.4(d)")
	}
	if !f.Set[compliance.FactDirectedToChildren] {
		return out
	}
	// The notice gives parents the operator's address and telephone number
	// (the email address is a todo of every document).
	if req.PostalAddress == "" {
		add("postalAddress", "The notice for parents must give the postal address of the business that collects personal information from children; the policy shows a placeholder.", "16 CFR 312.4(d)(1)")
	}
	if req.Phone == "" {
		add("phone", "The notice for parents must give a telephone number of the business that collects personal information from children; the policy shows a placeholder.", "16 CFR 312.4(d)(1)")
	}
	return out
}
