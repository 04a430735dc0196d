// Package policy is the document generator: request validation, the facts
// derived from a request, clause selection and rendering.
//
// The pipeline (docs/GENERATION.md): BuildFacts -> compliance.Applicable ->
// clause selection (clauses/*.json) -> Document -> Render -> compliance.Assess.
package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/errs"
)

// TemplateVersion identifies the clause library and checklists a document
// was generated with. Change it whenever generated text can change: the
// same request, template version and effective date give the same bytes.
const TemplateVersion = "2026-11-26.1"

// templateDate is the date part of TemplateVersion: the default effective date.
var templateDate = time.Date(2026, time.November, 26, 0, 0, 0, 0, time.UTC)

// Result is a generated document with its score and findings.
type Result struct {
	// Request is the request as used, with every default filled in
	// (EffectiveDate included): with TemplateVersion it reproduces Content.
	Request Request
	Content string
	// Status is StatusReady or StatusNeedsInput; Todos are the inputs
	// still needed (empty when ready).
	Status          string
	Todos           []compliance.Todo
	RiskScore       int
	RiskLevel       string
	RiskFactors     []compliance.Factor
	Flags           []compliance.Flag
	TemplateVersion string
}

// Generate produces the document for req. The same req and template version
// always give the same bytes. An empty EffectiveDate means the template
// version's date, so that a request alone is deterministic.
func Generate(req Request) (Result, error) {
	// A Request built in code rather than by ParseRequest may leave the
	// optional fields empty; give them their documented defaults.
	if req.Language == "" {
		req.Language = DefaultLanguage
	}
	if req.Format == "" {
		req.Format = DefaultFormat
	}
	if req.ThirdPartyServices == nil {
		req.ThirdPartyServices = []string{}
	}
	if req.EffectiveDate == "" {
		req.EffectiveDate = templateDate.Format(DateLayout)
	}
	st := states.Get().(*state)
	defer states.Put(st)
	doc, facts, _, err := st.compose(req, false)
	if err != nil {
		return Result{}, err
	}
	st.out, err = appendRender(st.out[:0], doc, req.Format, req.Language)
	if err != nil {
		return Result{}, errs.Wrap(err, errs.Internal, "internal", "internal error")
	}
	// Nothing of the pooled state leaves: the text is copied out, the
	// todos are the document's own.
	content := string(st.out)
	a := Assess(facts)
	return Result{
		Request:         req,
		Content:         content,
		Status:          Status(facts.Todos),
		Todos:           facts.Todos,
		RiskScore:       a.Score,
		RiskLevel:       a.Level,
		RiskFactors:     a.Factors,
		Flags:           a.Flags,
		TemplateVersion: TemplateVersion,
	}, nil
}

// state is the working memory of one generation: the facts, the builder
// with its arenas, the document and the rendered bytes. Generate takes one
// from states and gives it back, so that documents after the first
// allocate little beyond their text (issue 9: generation at 100 µs).
type state struct {
	facts Facts
	b     builder
	doc   Document
	out   []byte
}

var states = sync.Pool{New: func() any { return new(state) }}

// Compose runs the pipeline up to the document tree. A requirement that
// applies but that no included clause satisfies is a *GapError: a bug in
// the clause library, reported as an internal error. The tree is
// read-only: parts of it are shared with every document (Document).
func Compose(req Request) (*Document, *Facts, []compliance.Requirement, error) {
	doc, facts, refs, err := new(state).compose(req, true)
	var applicable []compliance.Requirement
	for _, r := range refs {
		applicable = append(applicable, *r)
	}
	return doc, facts, applicable, err
}

// EvidenceOf is the evidence of req's document: for each applicable
// checklist requirement, the section of the document that satisfies it
// (Generate does not record it: builder.build). It composes the document
// without rendering it, in pooled working memory (Compose allocates its
// own, several hundred KB, because the tree it returns lives there); the
// evidence is the document's own and stays valid.
func EvidenceOf(req Request) ([]Evidence, error) {
	st := states.Get().(*state)
	defer states.Put(st)
	doc, _, _, err := st.compose(req, true)
	if err != nil {
		return nil, err
	}
	return doc.Evidence, nil
}

// compose runs the pipeline up to the document tree in st's memory, with
// the evidence when evidence is set.
func (st *state) compose(req Request, evidence bool) (*Document, *Facts, []*compliance.Requirement, error) {
	fail := func(err error) (*Document, *Facts, []*compliance.Requirement, error) {
		return nil, nil, nil, errs.Wrap(err, errs.Internal, "internal", "internal error")
	}
	if err := st.facts.build(req); err != nil {
		return fail(err)
	}
	facts := &st.facts
	lib, err := DefaultLibrary()
	if err != nil {
		return fail(err)
	}
	if _, ok := lib.Structures[req.Type]; !ok {
		return fail(fmt.Errorf("policy: no clause structure for type %q", req.Type))
	}
	t, ok := lib.Texts[req.Language]
	if !ok {
		return fail(fmt.Errorf("policy: no clause text for language %q", req.Language))
	}
	p := lib.compiled.programs[[2]string{req.Type, req.Language}]
	date := templateDate
	if req.EffectiveDate != "" {
		if date, err = ParseDate(req.EffectiveDate); err != nil {
			return fail(err)
		}
	}
	b := &st.b
	b.reset()
	b.f, b.t, b.labels, b.lib, b.date = facts, t, lib.compiled.labels[req.Language], lib.compiled, date
	switch req.Format {
	case "markdown":
		b.esc = escMarkdown
	case "html":
		b.esc = escHTML
	default:
		b.esc = escNone
	}
	st.doc = Document{escaped: lib.compiled.escaped[req.Language], links: lib.compiled.links[req.Language]}
	b.memo = st.doc.escaped
	if err := b.build(p, facts.applicable, &st.doc, evidence); err != nil {
		var gap *GapError
		if errors.As(err, &gap) {
			return fail(gap)
		}
		return fail(err)
	}
	return &st.doc, facts, facts.applicable, nil
}

// Assess scores facts: step 6 of the pipeline.
func Assess(f *Facts) compliance.Assessment {
	req := &f.Request
	in := compliance.Input{
		Type:            req.Type,
		Jurisdiction:    f.Jurisdiction.ID,
		Jurisdictions:   f.scr.jids,
		Laws:            f.Laws,
		Facts:           f.Set,
		Services:        len(f.Services),
		Implied:         f.Implied,
		UnknownServices: f.Unknown,
		ConsentBanner:   req.ConsentBanner,
		OptOutLink:      req.OptOutLink,
		SellsMinorsData: req.SellsMinorsData != nil && *req.SellsMinorsData,
		DPOStated:       req.DPOContact != "",
		CCPAExempt:      req.CCPAThresholdsMet != nil && !*req.CCPAThresholdsMet && f.CCPACovers,
		SectorLaws:      sectorLaws(f),
		// Contract documents (issue 8, risk per document type).
		RefundWindowDays: req.RefundWindowDays,
	}
	if m := governingLawFactor(); m == nil || m.Scores(req.Type) {
		in.GoverningLawOutside = governingLawOutside(f)
	}
	if bt, ok := cat().BusinessType(req.BusinessType); ok {
		in.SpecialCategory = bt.SpecialCategory
	}
	// One array, sized once, holds the lists Assess makes: the laws
	// under which transfers count and those under which one rests on a
	// contract or on nothing (each at most the laws), and the joint
	// controllers (at most the services). They were a dozen appends that
	// grew their slices from nothing.
	nl := len(f.Laws)
	buf := make([]string, 2*nl+len(f.Services))
	in.TransferLaws, in.ContractualTransferLaws, in.JointControllers = buf[:0:nl], buf[nl:nl:2*nl], buf[2*nl:2*nl]
	// The laws that regulate transfers out of each listed regime: those
	// of regime j are lawPos[lawStart[j]:lawStart[j+1]]. The few laws
	// that regulate transfers are found first, each regime's among them.
	var tb, pb [16]int
	var sb [8]int
	regulating := tb[:0]
	for k := range f.Laws {
		if f.Laws[k].RegulatesTransfers {
			regulating = append(regulating, k)
		}
	}
	lawPos, lawStart := pb[:0], append(sb[:0], 0)
	for j := range f.Regimes {
		for _, k := range regulating {
			if slices.Contains(f.Laws[k].Jurisdictions, f.Regimes[j].ID) {
				lawPos = append(lawPos, k)
			}
		}
		lawStart = append(lawStart, len(lawPos))
	}
	// The laws under which some transfer counts, and those under which
	// one rests on a contract or on nothing, by position in f.Laws.
	var tlb, clb [64]bool
	transferLaw, contractLaw := tlb[:0], clb[:0]
	if len(f.Laws) > len(tlb) {
		transferLaw, contractLaw = make([]bool, 0, len(f.Laws)), make([]bool, 0, len(f.Laws))
	}
	transferLaw, contractLaw = transferLaw[:len(f.Laws)], contractLaw[:len(f.Laws)]
	for i := range f.Services {
		s := &f.Services[i]
		in.EmailTracking = in.EmailTracking || emailTracker(s)
		if s.JointController != nil && *s.JointController {
			in.JointControllers = append(in.JointControllers, s.Name)
		}
	}
	// Transfers count under the laws that regulate them: those of the
	// listed regimes (never the primary jurisdiction's region that
	// transferRegimes falls back on, whose law has no transfer rule).
	// Whether some transfer leaves a regime's region, and whether one
	// rests on a contract or on nothing, build worked out (regimeOut,
	// regimeContract); the services are gone through only for a regime
	// where one rests on nothing (regimeNone), to name them.
	sc := &f.scr
	unsafeguarded := false
	for j := range f.Regimes {
		for _, k := range lawPos[lawStart[j]:lawStart[j+1]] {
			transferLaw[k] = transferLaw[k] || sc.regimeOut.has(j)
			contractLaw[k] = contractLaw[k] || sc.regimeContract.has(j)
			unsafeguarded = unsafeguarded || sc.regimeNone.has(j)
		}
	}
	for i := 0; unsafeguarded && i < len(f.Services); i++ {
		for j := range f.Regimes {
			if out, basis := f.transferOf(j, i); !out || basis != basisNone {
				continue
			}
			for _, k := range lawPos[lawStart[j]:lawStart[j+1]] {
				id := f.Laws[k].ID
				if in.UnsafeguardedTransfers == nil {
					in.UnsafeguardedTransfers = map[string][]string{}
				}
				in.UnsafeguardedTransfers[id] = append(in.UnsafeguardedTransfers[id], f.Services[i].Name)
			}
		}
	}
	// In the order of the laws, whatever the order of the services.
	for k := range f.Laws {
		if transferLaw[k] {
			in.TransferLaws = append(in.TransferLaws, f.Laws[k].ID)
		}
		if contractLaw[k] {
			in.ContractualTransferLaws = append(in.ContractualTransferLaws, f.Laws[k].ID)
		}
	}
	return compliance.Assess(in)
}

// governingLawFactor is the governing_law_abroad factor's model (nil,
// were the factor gone): Assess lists the jurisdictions outside the
// governing law's country only for the document types it scores, not
// for a privacy policy of thirty jurisdictions.
var governingLawFactor = sync.OnceValue(func() *compliance.FactorModel {
	for i := range compliance.RiskModel {
		if m := &compliance.RiskModel[i]; m.ID == "governing_law_abroad" {
			return m
		}
	}
	return nil
})

// governingLawOutside lists the document's jurisdictions whose countries
// do not include the country of the contract's chosen law (governingLaw:
// a country, US-XX or GB-XXX), for the governing_law_abroad factor.
func governingLawOutside(f *Facts) []string {
	gl := f.Request.GoverningLaw
	if gl == "" {
		return nil
	}
	country, _, _ := strings.Cut(gl, "-")
	bit := countryBit(country)
	regions := jurisdictions().regions // by the catalog positions jpos
	var out []string
	for i := range f.Jurisdictions {
		if !regions[f.scr.jpos[i]].countries.hasBit(bit) {
			if out == nil {
				out = make([]string, 0, len(f.Jurisdictions)-i)
			}
			out = append(out, f.Jurisdictions[i].ID)
		}
	}
	return out
}
