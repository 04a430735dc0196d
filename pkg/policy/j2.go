package policy

import (
	"strings"

	"github.com/policygen/policygen/pkg/compliance"
)

// Issue 8, part j2: Australia (Privacy Act 1988, APPs), New Zealand
// (Privacy Act 2020, IPPs), Singapore (PDPA 2012) and South Africa
// (POPIA). Their clauses and checklists are data; this file holds only the
// inputs they need that the shared code does not provide.
const (
	lawAU = "au-privacy-act"
	lawNZ = "nz-privacy-act"
	lawSG = "pdpa-sg"
	lawZA = "popia"
)

// varsJ2 adds the placeholders of the j2 laws: the business's address,
// which New Zealand (IPP 3(1)(d)) and South Africa (POPIA s 18(1)(b))
// require in the notice, and Singapore's data protection officer (PDPA
// s 11(5)). Missing, each is a visible marker matched by a todo.
func (b *builder) varsJ2(v *vars) {
	req := &b.f.Request
	v[phRequiredAddress] = value{ins: b.missing("requiredAddress"), ok: true}
	if req.PostalAddress != "" {
		v[phRequiredAddress] = v[phPostalAddress] // the address's run (setVars)
	}
	v[phDataProtectionOfficer] = value{ins: b.missing("dataProtectionOfficer"), ok: true}
	if req.DPOContact != "" {
		v[phDataProtectionOfficer] = v[phDPOContact] // its run (setVars)
	}
}

// todosJ2 adds the inputs the j2 laws need and, in a document under one of
// them alone, cites its own provision for the shared todos (which cite the
// GDPR, the CCPA or CalOPPA otherwise).
func todosJ2(f *Facts, out []compliance.Todo) []compliance.Todo {
	req := &f.Request
	law := ""
	for _, id := range []string{lawAU, lawNZ, lawSG, lawZA} {
		if f.HasLaw(id) {
			law = id
		}
	}
	if law == "" {
		return out
	}
	if len(f.Laws) == 1 {
		cites := map[string]map[string]string{
			"contactEmail": {
				lawAU: "Privacy Act 1988 (Cth), Sch. 1, APP 5.2(a)",
				lawNZ: "Privacy Act 2020 (NZ), s 22, IPP 3(1)(d)",
				lawSG: "PDPA 2012 (Singapore), s 11(5)",
				lawZA: "POPIA s 18(1)(b)",
			},
			"hostingProvider": {
				lawAU: "Privacy Act 1988 (Cth), Sch. 1, APP 5.2(f), APP 1.4(f)-(g)",
				lawNZ: "Privacy Act 2020 (NZ), s 22, IPP 3(1)(c)",
				lawSG: "PDPA 2012 (Singapore), s 20(1)(a), s 26",
				lawZA: "POPIA s 18(1)(g), (h)(i)",
			},
		}
		cites["thirdPartyServices"] = cites["hostingProvider"]
		for i := range out {
			field, _, _ := strings.Cut(out[i].Field, ".")
			if c, ok := cites[field][law]; ok {
				out[i].Citation = c
			}
		}
	}
	add := func(field, why, cite string) {
		out = append(out, compliance.Todo{Field: field, Why: why, Citation: cite})
	}
	if req.PostalAddress == "" {
		switch {
		case f.HasLaw(lawNZ):
			add("postalAddress", "The notice must give the name and address of the agency that collects and holds the information; the policy shows a placeholder.", "Privacy Act 2020 (NZ), s 22, IPP 3(1)(d)")
		case f.HasLaw(lawZA):
			add("postalAddress", "The data subject must be made aware of the name and address of the responsible party; the policy shows a placeholder.", "POPIA s 18(1)(b)")
		}
	}
	if f.HasLaw(lawSG) && req.DPOContact == "" {
		add("dpoContact", "The business contact information of at least one person designated to ensure compliance with the PDPA (the data protection officer) must be made available to the public; the policy shows a placeholder.", "PDPA 2012 (Singapore), s 11(3), (5)")
	}
	return out
}
