package api

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
)

// policySummary is a policy as listed: everything but the content. Its
// request fields are the normalised request, as stored.
type policySummary struct {
	ID string `json:"id"`
	policy.Request
	Status          string              `json:"status"`
	Todos           []compliance.Todo   `json:"todos"`
	RiskScore       int                 `json:"riskScore"`
	RiskLevel       string              `json:"riskLevel"`
	RiskFactors     []compliance.Factor `json:"riskFactors"`
	ComplianceFlags []compliance.Flag   `json:"complianceFlags"`
	TemplateVersion string              `json:"templateVersion"`
	CreatedAt       string              `json:"createdAt"`
}

// policyObject is the full policy object.
type policyObject struct {
	policySummary
	Content string `json:"content"`
	// Evidence is present only when asked for (?include=evidence).
	Evidence []policy.Evidence `json:"evidence,omitempty"`
}

type policyList struct {
	Data       []policySummary `json:"data"`
	HasMore    bool            `json:"hasMore"`
	NextCursor *string         `json:"nextCursor"`
}

func summaryJSON(p store.Summary) policySummary {
	s := policySummary{
		ID:              p.ID,
		Request:         p.Request,
		Status:          p.Status,
		Todos:           p.Todos,
		RiskScore:       p.RiskScore,
		RiskLevel:       p.RiskLevel,
		RiskFactors:     p.RiskFactors,
		ComplianceFlags: p.ComplianceFlags,
		TemplateVersion: p.TemplateVersion,
		CreatedAt:       timeJSON(p.CreatedAt),
	}
	// Arrays are always arrays in the API, never null.
	if s.ThirdPartyServices == nil {
		s.ThirdPartyServices = []string{}
	}
	if s.Todos == nil {
		s.Todos = []compliance.Todo{}
	}
	if s.RiskFactors == nil {
		s.RiskFactors = []compliance.Factor{}
	}
	if s.ComplianceFlags == nil {
		s.ComplianceFlags = []compliance.Flag{}
	}
	return s
}

func timeJSON(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// errPolicyNotFound is the only answer for a policy the caller cannot see:
// a malformed id, a deleted one, one that never existed and another
// account's all get these same bytes.
var errPolicyNotFound = errs.E(errs.NotFound, "policy_not_found", "policy not found")

// internal marks err as a server-side failure, whatever its kind: a store
// conflict on a fresh id, say, is our problem and not the client's.
func internal(err error, what string) error {
	if errs.Is(err, errs.Unavailable) {
		return err // an outage stays a retryable 503
	}
	return errs.Wrap(err, errs.Internal, "internal_error", what)
}

// errPolicyTooLarge: the request was small; what it asks for is too big to keep.
var errPolicyTooLarge = errs.E(errs.Unprocessable, "policy_too_large",
	"the generated policy is larger than a policy can be stored (%d KiB compressed)", store.MaxStoredContent>>10)

func (s *server) handleGenerate(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	req, err := policy.ParseRequest(body)
	if err != nil {
		return err
	}
	now := s.now().UTC().Truncate(time.Second)
	if req.EffectiveDate == "" {
		req.EffectiveDate = now.Format(policy.DateLayout)
	}
	res, err := policy.Generate(req)
	if err != nil {
		return err
	}
	p := info(r.Context()).principal
	pol := store.NewPolicy(p.Account.ID, res, now)
	location := "/v1/policies/" + pol.ID
	out := encodePolicy(policyObject{policySummary: summaryJSON(pol.Summary), Content: pol.Content})
	quota := s.limits(p.Account.Plan).MonthlyGenerations
	opt := store.CreateOptions{Quota: quota}
	idem := idempotency(r.Context())
	if idem != nil {
		// The outcome is stored with the policy, in one write: a client
		// that never saw this response gets exactly it on retry.
		opt.Idempotency = &store.IdempotentResult{Claim: idem.claim, Status: http.StatusCreated, Location: location, Body: out, At: now}
	}
	if err := s.store.CreatePolicy(r.Context(), pol, opt); err != nil {
		switch {
		case errors.Is(err, store.ErrTooLarge):
			return errPolicyTooLarge
		case errors.Is(err, store.ErrQuotaExceeded):
			return quotaExceeded(w, now, quota)
		case errors.Is(err, store.ErrClaimLost):
			return errIdempotencyInProgress
		}
		return internal(err, "create policy")
	}
	if idem != nil {
		idem.completed = true
	}
	w.Header().Set("Location", location)
	wire.WriteBody(w, http.StatusCreated, "application/json", out)
	return nil
}

func (s *server) handleList(w http.ResponseWriter, r *http.Request) error {
	lp, cp := listParams(r.URL.RawQuery)
	var bad errs.Fields
	limit := DefaultListLimit
	if lp.set {
		n, err := strconv.Atoi(lp.value)
		switch {
		case lp.repeated:
			bad.Add("limit", "must be given once")
		case lp.malformed || err != nil || n < 1 || n > MaxListLimit:
			bad.Add("limit", "must be an integer from 1 to "+strconv.Itoa(MaxListLimit))
		default:
			limit = n
		}
	}
	var after string
	if cp.set {
		id, ok := decodeCursor(cp.value)
		switch {
		case cp.repeated:
			bad.Add("cursor", "must be given once")
		case cp.malformed || !ok:
			bad.Add("cursor", "must be the nextCursor value of a previous page")
		default:
			after = id
		}
	}
	switch {
	case len(bad) > 1:
		return bad.Err(errs.Invalid, "invalid_query", "the query parameters are invalid")
	case len(bad) == 1 && bad[0].Field == "limit":
		return bad.Err(errs.Invalid, "invalid_limit", "limit must be an integer from 1 to "+strconv.Itoa(MaxListLimit))
	case len(bad) == 1:
		return bad.Err(errs.Invalid, "invalid_cursor", "cursor is not a valid cursor")
	}

	p := info(r.Context()).principal
	page, err := s.store.ListPolicies(r.Context(), p.Account.ID, store.ListOptions{Limit: limit, After: after})
	if err != nil {
		return internal(err, "list policies")
	}
	out := policyList{Data: make([]policySummary, 0, len(page.Items))}
	for _, it := range page.Items {
		out.Data = append(out.Data, summaryJSON(it))
	}
	if page.Next != "" {
		c := encodeCursor(page.Next)
		out.HasMore, out.NextCursor = true, &c
	}
	wire.WriteJSON(w, http.StatusOK, "application/json", out)
	return nil
}

// queryParam is one parameter of the list query as sent.
type queryParam struct {
	value     string
	set       bool
	repeated  bool // given more than once: which one was meant is unknown
	malformed bool // its value could not be decoded
}

// listParams reads limit and cursor from the raw query. It does not use
// url.Values: that silently drops a pair it cannot decode (limit=%ZZ, or
// limit=5;cursor=x), so a bad limit would serve the default page instead of
// a 400. Other parameters are ignored, decodable or not.
func listParams(rawQuery string) (limit, cursor queryParam) {
	for rawQuery != "" {
		var pair string
		pair, rawQuery, _ = strings.Cut(rawQuery, "&")
		k, v, _ := strings.Cut(pair, "=")
		var p *queryParam
		switch name, _ := url.QueryUnescape(k); name {
		case "limit":
			p = &limit
		case "cursor":
			p = &cursor
		default:
			continue
		}
		val, err := url.QueryUnescape(v)
		p.repeated = p.repeated || p.set
		p.malformed = p.malformed || err != nil || strings.Contains(v, ";")
		p.set, p.value = true, val
	}
	return limit, cursor
}

// A cursor is the id of the last policy of the previous page, base64url
// encoded without padding: opaque to clients, safe in a URL without
// escaping, and checked on the way back in.
func encodeCursor(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

func decodeCursor(c string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !ids.Valid(ids.Policy, string(b)) {
		return "", false
	}
	return string(b), true
}

func (s *server) handleGet(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if !ids.Valid(ids.Policy, id) {
		return errPolicyNotFound
	}
	withEvidence, err := includeEvidence(r.URL.RawQuery)
	if err != nil {
		return err
	}
	p := info(r.Context()).principal
	pol, err := s.store.Policy(r.Context(), p.Account.ID, id)
	if errs.Is(err, errs.NotFound) {
		return errPolicyNotFound
	}
	if err != nil {
		return internal(err, "get policy")
	}
	out := policyObject{policySummary: summaryJSON(pol.Summary), Content: pol.Content}
	if withEvidence {
		if out.Evidence, err = evidence(pol.Summary); err != nil {
			return err
		}
	}
	wire.WriteBody(w, http.StatusOK, "application/json", encodePolicy(out))
	return nil
}

// includeEvidence reads GET /v1/policies/{id}'s query: include=evidence is
// the only parameter and value it knows.
func includeEvidence(rawQuery string) (bool, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return false, errs.E(errs.Invalid, "invalid_query", "the query string could not be parsed")
	}
	for k := range q {
		if k != "include" {
			return false, errs.E(errs.Invalid, "invalid_query", "unknown query parameter %q: the only parameter is include=evidence", k)
		}
	}
	vals := q["include"]
	if len(vals) > 1 {
		return false, errs.E(errs.Invalid, "invalid_query", "include must be given once")
	}
	if len(vals) == 0 {
		return false, nil
	}
	for _, v := range strings.Split(vals[0], ",") {
		if v != "evidence" {
			return false, errs.E(errs.Invalid, "invalid_query", "unknown include value %q: the only value is evidence", v)
		}
	}
	return true, nil
}

// evidence recomputes a stored policy's evidence. Generation is
// deterministic, so the stored request under the same template version
// gives the document's own evidence; under another version it might not,
// and the client is told so rather than given evidence for other text.
func evidence(p store.Summary) ([]policy.Evidence, error) {
	if p.TemplateVersion != policy.TemplateVersion {
		return nil, errs.E(errs.Conflict, "evidence_unavailable",
			"this policy was generated with template version %s and evidence is computed with %s: generate it again to get evidence for the current text", p.TemplateVersion, policy.TemplateVersion)
	}
	return policy.EvidenceOf(p.Request)
}

func (s *server) handleDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if !ids.Valid(ids.Policy, id) {
		return errPolicyNotFound
	}
	p := info(r.Context()).principal
	err := s.store.DeletePolicy(r.Context(), p.Account.ID, id)
	if errs.Is(err, errs.NotFound) {
		return errPolicyNotFound
	}
	if err != nil {
		return internal(err, "delete policy")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
