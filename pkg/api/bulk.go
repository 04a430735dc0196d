package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
)

// MaxReference bounds an item's client reference.
const MaxReference = 100

type bulkItem struct {
	Reference string          `json:"reference,omitempty"`
	Request   json.RawMessage `json:"request"`
}

// bulkResult is one item's outcome, in request order: its status and the
// stored policy (without content), or its problem.
type bulkResult struct {
	Index     int            `json:"index"`
	Reference string         `json:"reference,omitempty"`
	Status    int            `json:"status"`
	Policy    *policySummary `json:"policy,omitempty"`
	Problem   *wire.Problem  `json:"problem,omitempty"`
}

type bulkResponse struct {
	Created int          `json:"created"`
	Failed  int          `json:"failed"`
	Results []bulkResult `json:"results"`
}

// handleBulk serves POST /v1/policies/bulk: up to MaxBulkItems generation
// requests. Each valid item is generated and stored on its own (a policy is
// never half-written); invalid ones get their problem. A batch whose valid
// items exceed what is left of the month's quota is refused whole.
func (s *server) handleBulk(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	items, err := parseBulk(body)
	if err != nil {
		return err
	}
	p := info(r.Context()).principal
	now := s.now().UTC().Truncate(time.Second)
	out := bulkResponse{Results: make([]bulkResult, len(items))}
	results := make([]*policy.Result, len(items))
	fail := func(i int, err error) {
		status, pb := wire.ProblemOf(s.logger, nil, r, err)
		out.Results[i].Status, out.Results[i].Problem = status, &pb
	}
	valid := 0
	for i, it := range items {
		out.Results[i].Index, out.Results[i].Reference = i, it.Reference
		if it.Request == nil {
			fail(i, errs.E(errs.Unprocessable, "validation_failed", "item %d has no request", i))
			continue
		}
		req, err := policy.ParseRequest(it.Request)
		if err != nil {
			fail(i, err)
			continue
		}
		if req.EffectiveDate == "" {
			req.EffectiveDate = now.Format(policy.DateLayout)
		}
		res, err := policy.Generate(req)
		if err != nil {
			fail(i, err)
			continue
		}
		results[i] = &res
		valid++
	}
	quota := s.limits(p.Account.Plan).MonthlyGenerations
	if valid > 0 {
		used, err := s.store.GenerationCount(r.Context(), p.Account.ID, store.Month(now))
		if err != nil {
			return internal(err, "generation count")
		}
		if left := max(quota-used, 0); valid > left {
			w.Header().Set("Retry-After", strconv.Itoa(secondsUntil(now, monthStart(now).AddDate(0, 1, 0))))
			return errs.E(errs.TooManyRequests, "quota_exceeded",
				"this batch has %d valid items and %d generations are left for %s; nothing was generated. Send at most %d items, or wait for the quota to reset at %s",
				valid, left, store.Month(now), left, monthStart(now).AddDate(0, 1, 0).Format(time.RFC3339))
		}
	}
	for i, res := range results {
		if res == nil {
			continue
		}
		pol := store.NewPolicy(p.Account.ID, *res, now)
		// Each item is its own write with the quota condition: a
		// concurrent request can still use the last units, and then the
		// items after it get quota_exceeded.
		if err := s.store.CreatePolicy(r.Context(), pol, store.CreateOptions{Quota: quota}); err != nil {
			switch {
			case errors.Is(err, store.ErrTooLarge):
				err = errPolicyTooLarge
			case errors.Is(err, store.ErrQuotaExceeded):
				err = errs.E(errs.TooManyRequests, "quota_exceeded", "the plan's %d generations for %s were used up while this batch ran", quota, store.Month(now))
			default:
				err = internal(err, "create policy")
			}
			fail(i, err)
			continue
		}
		sum := summaryJSON(pol.Summary)
		out.Results[i].Status, out.Results[i].Policy = http.StatusCreated, &sum
	}
	for _, res := range out.Results {
		if res.Status == http.StatusCreated {
			out.Created++
		} else {
			out.Failed++
		}
	}
	wire.WriteJSON(w, http.StatusOK, "application/json", out)
	return nil
}

// parseBulk reads {"items": [{"reference": "...", "request": {...}}, ...]}
// strictly: 400 invalid_json for a body that is not one such object, 422
// for a bad items list or item shape.
func parseBulk(body []byte) ([]bulkItem, error) {
	if !utf8.Valid(body) {
		return nil, errs.E(errs.Invalid, "invalid_json", "request body must be UTF-8 encoded JSON")
	}
	var raw struct {
		Items []json.RawMessage `json:"items"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil || dec.More() {
		return nil, errs.E(errs.Invalid, "invalid_json", `request body must be one JSON object {"items": [...]}`)
	}
	var bad errs.Fields
	switch {
	case raw.Items == nil:
		bad.Add("items", "is required: an array of 1 to 100 items")
	case len(raw.Items) == 0:
		bad.Add("items", "must not be empty")
	case len(raw.Items) > MaxBulkItems:
		bad.Add("items", fmt.Sprintf("must have at most %d entries; split the batch", MaxBulkItems))
	}
	items := make([]bulkItem, len(raw.Items))
	for i, m := range raw.Items {
		d := json.NewDecoder(bytes.NewReader(m))
		d.DisallowUnknownFields()
		if err := d.Decode(&items[i]); err != nil {
			bad.Add(fmt.Sprintf("items[%d]", i), `must be an object {"reference": "...", "request": {...}}`)
			continue
		}
		if utf8.RuneCountInString(items[i].Reference) > MaxReference {
			bad.Add(fmt.Sprintf("items[%d].reference", i), fmt.Sprintf("must be at most %d characters", MaxReference))
		}
		if string(items[i].Request) == "null" {
			items[i].Request = nil
		}
	}
	if err := bad.Err(errs.Unprocessable, "validation_failed", "the batch has invalid fields"); err != nil {
		return nil, err
	}
	return items, nil
}
