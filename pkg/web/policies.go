package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/catalog"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
)

// pageSize is the number of policies on one page of the list.
const pageSize = 20

type listData struct {
	Items []store.Summary
	Next  string // id to continue after, "" on the last page
	First bool
}

func (a *app) listPolicies(w http.ResponseWriter, r *http.Request) {
	s := visitOf(r).session
	after := r.URL.Query().Get("after")
	if after != "" && !ids.Valid(ids.Policy, after) {
		after = ""
	}
	pg, err := a.store.ListPolicies(r.Context(), s.AccountID, store.ListOptions{Limit: pageSize, After: after})
	if err != nil {
		a.failure(w, r, err)
		return
	}
	p := page{Title: "Policies", Data: listData{Items: pg.Items, Next: pg.Next, First: after == ""}}
	switch {
	case r.URL.Query().Get("deleted") == "1":
		p.Notice = "The policy was deleted."
	case r.URL.Query().Get("welcome") == "1":
		p.Notice = "Your account is ready. Generate your first policy."
	}
	a.render(w, r, http.StatusOK, "policies.html", p)
}

// formData is the generate form: the catalog's choices, what was entered
// (kept when the form comes back with errors) and the errors by field.
type formData struct {
	Catalog *catalog.Catalog
	Groups  []serviceGroup
	Hosting []catalog.Service
	Members []member
	// Jurisdictions are the form's jurisdiction boxes by area, the chosen
	// ones ticked; MemberState is the member state chosen, by code.
	Jurisdictions []jurisdictionGroup
	MemberState   string
	Purposes      []string
	Form          url.Values
	Errors        map[string][]string
	Error         string
	Nonce         string
}

type serviceGroup struct {
	Name     string
	Services []catalog.Service
	Open     bool
}

type member struct{ Code, Name string }

func (a *app) formData(form url.Values) (formData, error) {
	c, err := catalog.Default()
	if err != nil {
		return formData{}, err
	}
	d := formData{Catalog: c, Form: form, Errors: map[string][]string{}, Purposes: policy.PurposeIDs()}
	chosen := form["thirdPartyServices"]
	byCat := map[string]int{}
	for _, s := range c.Services {
		i, ok := byCat[s.Category]
		if !ok {
			i = len(d.Groups)
			byCat[s.Category] = i
			d.Groups = append(d.Groups, serviceGroup{Name: titleCase(strings.NewReplacer("-", " ", "_", " ").Replace(s.Category))})
		}
		d.Groups[i].Services = append(d.Groups[i].Services, s)
		if slices.Contains(chosen, s.ID) {
			d.Groups[i].Open = true
		}
		if s.Category == "hosting" {
			d.Hosting = append(d.Hosting, s)
		}
	}
	slices.SortFunc(d.Groups, func(x, y serviceGroup) int { return strings.Compare(x.Name, y.Name) })
	for _, j := range c.Jurisdictions {
		for _, code := range j.Countries {
			if _, ok := j.Authorities[code]; ok {
				d.Members = append(d.Members, member{Code: code, Name: policy.CountryName(code)})
			}
		}
	}
	slices.SortFunc(d.Members, func(x, y member) int { return strings.Compare(x.Name, y.Name) })
	// A member state given as a jurisdiction ("DE") ticks the EU and
	// selects the state, as the API reads it; the select's own value wins.
	chosen, member := chosenJurisdictions(c, form["jurisdiction"])
	d.Jurisdictions = jurisdictionGroups(c, chosen)
	d.MemberState = member
	if m := strings.TrimSpace(form.Get("memberState")); m != "" {
		if _, code := memberOf(c, m, ""); code != "" {
			d.MemberState = code
		}
	}
	if d.Nonce = form.Get("nonce"); len(d.Nonce) != 43 {
		d.Nonce = randomToken()
	}
	return d, nil
}

func (a *app) newPolicyPage(w http.ResponseWriter, r *http.Request) {
	form := url.Values{
		"type": {"privacy"}, "language": {"en"}, "format": {"html"},
		"jurisdiction": {"EU"}, "collectsUserData": {"on"},
	}
	d, err := a.formData(form)
	if err != nil {
		a.failure(w, r, err)
		return
	}
	a.render(w, r, http.StatusOK, "generate.html", page{Title: "Generate a policy", Data: d})
}

// Form fields copied into the request as strings when not empty.
var textFields = []string{
	"type", "businessName", "websiteUrl", "businessType", "language", "memberState",
	"contactEmail", "postalAddress", "phone", "tollFreeNumber", "establishedIn", "dpoContact",
	"euRepresentative", "ukRepresentative", "hostingProvider", "format", "effectiveDate",
	"privacyOfficer",       // issue 8, part j1 (Canada)
	"returnShippingPaidBy", // refund policy (issue 8, t3)
}

// Check boxes (false when not ticked) and yes/no/not-stated choices.
var (
	boolFields     = []string{"collectsPayments", "collectsUserData", "usesAnalytics"}
	triStateFields = []string{"onlineOnly", "consentBanner", "sellsMinorsData", "optOutLink", "ccpaThresholdsMet", "affiliateLinks",
		"sellsSensitiveData", "sellsBiometricData", // U.S. state laws
		"directedToChildren",                   // COPPA (issue 8, part j6)
		"servesQuebec", "smallProcessingAgent"} // issue 8, part j1 (Canada, Brazil)
)

// requestJSON turns the form into the JSON body the API takes, so the one
// parser (policy.ParseRequest) validates both. Lines of the retention and
// transfer boxes that are not "key: value" are reported by field.
func requestJSON(form url.Values) ([]byte, map[string][]string) {
	req := map[string]any{}
	bad := map[string][]string{}
	for _, f := range textFields {
		if v := strings.TrimSpace(form.Get(f)); v != "" {
			req[f] = v
		}
	}
	for _, f := range boolFields {
		req[f] = form.Get(f) == "on"
	}
	for _, f := range triStateFields {
		switch form.Get(f) {
		case "yes":
			req[f] = true
		case "no":
			req[f] = false
		}
	}
	// One value per ticked box, each may itself be a comma-separated list:
	// the API's one comma-separated string (docs/DECISIONS.md 20).
	var jurisdictions []string
	for _, v := range form["jurisdiction"] {
		for _, j := range strings.Split(v, ",") {
			if j = strings.TrimSpace(j); j != "" && !slices.Contains(jurisdictions, j) {
				jurisdictions = append(jurisdictions, j)
			}
		}
	}
	if len(jurisdictions) > 0 {
		req["jurisdiction"] = strings.Join(jurisdictions, ", ")
	}
	contractFields(form, req)
	shippingFields(form, req) // shipping policy (issue 8, t4)
	services := []string{}
	for _, s := range form["thirdPartyServices"] {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(services, s) {
			services = append(services, s)
		}
	}
	for _, s := range strings.Split(form.Get("otherServices"), ",") {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(services, s) {
			services = append(services, s)
		}
	}
	req["thirdPartyServices"] = services
	if ret, ok := keyedLines(form.Get("retention"), "retention", bad); ok && len(ret) > 0 {
		m := map[string]string{}
		for k, v := range ret {
			m[k] = v
		}
		req["retention"] = m
	}
	if ts, ok := keyedLines(form.Get("transferSafeguards"), "transferSafeguards", bad); ok && len(ts) > 0 {
		m := map[string][]string{}
		for k, v := range ts {
			for _, mech := range strings.Split(v, ",") {
				if mech = strings.TrimSpace(mech); mech != "" {
					m[k] = append(m[k], mech)
				}
			}
		}
		req["transferSafeguards"] = m
	}
	body, _ := json.Marshal(req)
	return body, bad
}

// shippingFields copies the shipping policy's fields: the regions, a
// comma-separated list, and the dispatch days (a number; anything else is
// passed on for the parser to refuse by name).
func shippingFields(form url.Values, req map[string]any) {
	var regions []string
	for _, s := range strings.Split(form.Get("shippingRegions"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			regions = append(regions, s)
		}
	}
	if len(regions) > 0 {
		req["shippingRegions"] = regions
	}
	if v := strings.TrimSpace(form.Get("dispatchDays")); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			req["dispatchDays"] = n
		} else {
			req["dispatchDays"] = v
		}
	}
}

// contractFields copies the contract documents' fields: the governing law,
// the minimum age (a number; anything else is passed on for the parser to
// refuse by name) and the subscriptions described by three choices.
func contractFields(form url.Values, req map[string]any) {
	if v := strings.TrimSpace(form.Get("governingLaw")); v != "" {
		req["governingLaw"] = v
	}
	for _, name := range []string{"minimumAge", "refundWindowDays"} { // refundWindowDays: refund policy (issue 8, t3)
		if v := strings.TrimSpace(form.Get(name)); v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				req[name] = n
			} else {
				req[name] = v
			}
		}
	}
	switch form.Get("subscriptions") {
	case "none":
		req["subscriptions"] = false
	case "fixed":
		req["subscriptions"] = map[string]any{"autoRenews": false}
	case "renews":
		s := map[string]any{"autoRenews": true}
		if v := form.Get("subscriptionBillingPeriod"); v != "" {
			s["billingPeriod"] = v
		}
		if v := form.Get("subscriptionCancellation"); v != "" {
			s["cancellation"] = v
		}
		req["subscriptions"] = s
	}
}

// keyedLines reads "key: value" lines; blank lines are skipped.
func keyedLines(text, field string, bad map[string][]string) (map[string]string, bool) {
	out := map[string]string{}
	ok := true
	for n, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, found := strings.Cut(line, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !found || k == "" || v == "" {
			bad[field] = append(bad[field], fmt.Sprintf("Line %d: write it as \"name: value\".", n+1))
			ok = false
			continue
		}
		out[k] = v
	}
	return out, ok
}

// formField is the form control a request field's error belongs to:
// "thirdPartyServices[2]" and "retention.orders" belong to their box.
func formField(field string) string {
	if i := strings.IndexAny(field, "[."); i > 0 {
		return field[:i]
	}
	return field
}

func (a *app) generate(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	s := visitOf(r).session
	d, err := a.formData(r.PostForm)
	if err != nil {
		a.failure(w, r, err)
		return
	}
	showForm := func(status int) {
		a.render(w, r, status, "generate.html", page{Title: "Generate a policy", Data: d})
	}
	body, bad := requestJSON(r.PostForm)
	req, err := policy.ParseRequest(body)
	for f, msgs := range bad {
		d.Errors[f] = append(d.Errors[f], msgs...)
	}
	if e := errs.As(err); e != nil && len(e.Fields) > 0 {
		for _, fe := range e.Fields {
			msg := fe.Message
			if len(fe.Suggestions) > 0 {
				msg += " Did you mean " + strings.Join(fe.Suggestions, ", ") + "?"
			}
			f := formField(fe.Field)
			d.Errors[f] = append(d.Errors[f], msg)
		}
	} else if err != nil {
		d.Error = errs.As(err).Message
		if errs.As(err) == nil {
			a.failure(w, r, err)
			return
		}
	}
	if len(d.Errors) > 0 || d.Error != "" {
		if d.Error == "" {
			d.Error = "Check the fields marked below; nothing was generated."
		}
		showForm(http.StatusUnprocessableEntity)
		return
	}
	now := a.now().UTC().Truncate(time.Second)
	if req.EffectiveDate == "" {
		req.EffectiveDate = now.Format(policy.DateLayout)
	}
	res, err := policy.Generate(req)
	if err != nil {
		a.failure(w, r, err)
		return
	}
	acct, err := a.store.Account(r.Context(), s.AccountID)
	if err != nil {
		a.failure(w, r, err)
		return
	}
	// The form's nonce is an idempotency key: a second submission of the
	// same form (a double click, a reload) finds the first one's policy
	// instead of generating and counting another.
	claim := store.IdempotencyClaim{AccountID: s.AccountID, Key: "web-" + d.Nonce, Owner: randomToken()}
	held, err := a.store.BeginIdempotent(r.Context(), claim, "web-generate", now)
	if err != nil {
		a.failure(w, r, err)
		return
	}
	if held != nil {
		if held.Done && held.Location != "" {
			http.Redirect(w, r, held.Location, http.StatusSeeOther)
			return
		}
		d.Error = "This form is being sent already. Open Policies in a moment to see the policy."
		showForm(http.StatusConflict)
		return
	}
	pol := store.NewPolicy(s.AccountID, res, now)
	location := "/policies/" + pol.ID
	quota := a.limits(acct.Plan).MonthlyGenerations
	err = a.store.CreatePolicy(r.Context(), pol, store.CreateOptions{
		Quota:       quota,
		Idempotency: &store.IdempotentResult{Claim: claim, Status: http.StatusSeeOther, Location: location, At: now},
	})
	if err != nil {
		_ = a.store.ReleaseIdempotent(r.Context(), claim)
		switch {
		case errors.Is(err, store.ErrQuotaExceeded):
			d.Error = quotaMessage(acct.Plan, quota, now)
			showForm(http.StatusTooManyRequests)
		case errors.Is(err, store.ErrTooLarge):
			d.Error = "The policy is too large to store. Choose fewer services."
			showForm(http.StatusUnprocessableEntity)
		default:
			a.failure(w, r, err)
		}
		return
	}
	http.Redirect(w, r, location, http.StatusSeeOther)
}

func quotaMessage(plan account.Plan, quota int, now time.Time) string {
	reset := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0)
	return fmt.Sprintf("All %d generations of the %s plan for this month are used. The count starts again on %s; nothing was generated.",
		quota, titleCase(string(plan)), reset.Format("2 January 2006"))
}

// policyData is the policy page: the stored policy and its document as HTML.
type policyData struct {
	Policy    store.Policy
	Document  any    // trustedHTML, or nil when the document is shown as Pre
	Pre       string // the stored text when it cannot be shown as HTML
	Formats   []downloadFormat
	CanDelete bool
}

// downloadFormat is a download offered: its file extension (ID), its name
// on the page and the output format it is.
type downloadFormat struct{ ID, Label, format string }

// Downloads offered, by file extension.
var downloads = []downloadFormat{{"md", "Markdown", "markdown"}, {"html", "HTML", "html"}, {"txt", "Text", "text"}}

// formatOf is the output format of the download with extension ext.
func formatOf(ext string) (string, bool) {
	for _, f := range downloads {
		if f.ID == ext {
			return f.format, true
		}
	}
	return "", false
}

// policyOf reads one of the signed-in account's policies; another account's
// id, a malformed one and a deleted one are all the same 404.
func (a *app) policyOf(w http.ResponseWriter, r *http.Request) (store.Policy, bool) {
	id := r.PathValue("id")
	if !ids.Valid(ids.Policy, id) {
		a.errorPage(w, r, http.StatusNotFound, "Policy not found", "There is no such policy in your account.")
		return store.Policy{}, false
	}
	p, err := a.store.Policy(r.Context(), visitOf(r).session.AccountID, id)
	if errs.Is(err, errs.NotFound) {
		a.errorPage(w, r, http.StatusNotFound, "Policy not found", "There is no such policy in your account.")
		return store.Policy{}, false
	}
	if err != nil {
		a.failure(w, r, err)
		return store.Policy{}, false
	}
	return p, true
}

// rendered is the policy in format: the stored content when it is in that
// format, else generated again from the stored request, which gives the
// same document only under the same template version.
func rendered(p store.Policy, format string) (string, bool) {
	if p.Format == format {
		return p.Content, true
	}
	if p.TemplateVersion != policy.TemplateVersion {
		return "", false
	}
	req := p.Request
	req.Format = format
	res, err := policy.Generate(req)
	if err != nil {
		return "", false
	}
	return res.Content, true
}

func (a *app) viewPolicy(w http.ResponseWriter, r *http.Request) {
	p, ok := a.policyOf(w, r)
	if !ok {
		return
	}
	d := policyData{Policy: p}
	if doc, ok := rendered(p, "html"); ok {
		// The renderer escapes every string of the document for HTML
		// (pkg/policy render.go), so its output is trusted markup.
		d.Document = trustedHTML(doc)
	} else {
		d.Pre = p.Content
	}
	for _, f := range downloads {
		if _, ok := rendered(p, f.format); ok {
			d.Formats = append(d.Formats, f)
		}
	}
	a.render(w, r, http.StatusOK, "policy.html", page{Title: p.BusinessName + " " + p.Type + " policy", Data: d})
}

func (a *app) download(w http.ResponseWriter, r *http.Request) {
	ext := r.PathValue("format")
	format, known := formatOf(ext)
	p, ok := a.policyOf(w, r)
	if !ok {
		return
	}
	if !known {
		a.errorPage(w, r, http.StatusNotFound, "No such format", "Policies download as Markdown (.md), HTML (.html) or text (.txt).")
		return
	}
	content, ok := rendered(p, format)
	if !ok {
		a.errorPage(w, r, http.StatusConflict, "Format not available",
			"This policy was generated with an older template and is available only as "+p.Format+". Generate it again for other formats.")
		return
	}
	ctype := map[string]string{"markdown": "text/markdown; charset=utf-8", "html": "text/html; charset=utf-8", "text": "text/plain; charset=utf-8"}[format]
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", fileName(p)+"."+ext))
	h.Set("Cache-Control", "no-store")
	w.Write([]byte(content))
}

// fileName is a download's name: business, type and date, in plain ASCII.
func fileName(p store.Policy) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(p.BusinessName + " " + p.Type + " policy " + p.EffectiveDate) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func (a *app) confirmDelete(w http.ResponseWriter, r *http.Request) {
	p, ok := a.policyOf(w, r)
	if !ok {
		return
	}
	a.render(w, r, http.StatusOK, "delete.html", page{Title: "Delete policy", Data: policyData{Policy: p}})
}

func (a *app) deletePolicy(w http.ResponseWriter, r *http.Request) {
	if !a.parseForm(w, r) {
		return
	}
	id := r.PathValue("id")
	var err error = store.ErrPolicyNotFound
	if ids.Valid(ids.Policy, id) {
		err = a.store.DeletePolicy(r.Context(), visitOf(r).session.AccountID, id)
	}
	if errs.Is(err, errs.NotFound) {
		a.errorPage(w, r, http.StatusNotFound, "Policy not found", "There is no such policy in your account.")
		return
	}
	if err != nil {
		a.failure(w, r, err)
		return
	}
	http.Redirect(w, r, "/policies?deleted=1", http.StatusSeeOther)
}

// fieldView is one labelled control of the generate form.
type fieldView struct {
	Name, Label, Type, Help, Value string
	Errors                         []string
	Required                       bool
}

func field(d formData, name, label, typ, help string) fieldView {
	return fieldView{Name: name, Label: label, Type: typ, Help: help, Value: d.Form.Get(name), Errors: d.Errors[name]}
}
