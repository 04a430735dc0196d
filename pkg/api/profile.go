package api

import (
	"net/http"

	"github.com/policygen/policygen/pkg/api/wire"
	"github.com/policygen/policygen/pkg/store"
)

// profile is the body of GET /v1/auth/profile. It is built field by field
// from the principal so that nothing secret (the key hash) can slip in.
type profile struct {
	Account profileAccount `json:"account"`
	Key     profileKey     `json:"key"`
	Limits  profileLimits  `json:"limits"`
	Usage   profileUsage   `json:"usage"`
}

// profileLimits are the account's plan limits (docs/LIMITS.md).
type profileLimits struct {
	MonthlyGenerations int `json:"monthlyGenerations"`
	RequestsPerMinute  int `json:"requestsPerMinute"`
}

type profileAccount struct {
	ID        string `json:"id"`
	Email     string `json:"email"`
	Name      string `json:"name"`
	Plan      string `json:"plan"`
	APIAccess bool   `json:"apiAccess"`
	CreatedAt string `json:"createdAt"`
}

type profileKey struct {
	ID        string  `json:"id"`
	Prefix    string  `json:"prefix"`
	Last4     string  `json:"last4"`
	CreatedAt string  `json:"createdAt"`
	ExpiresAt *string `json:"expiresAt"` // null when the key does not expire
}

type profileUsage struct {
	Month       string `json:"month"` // UTC, YYYY-MM
	Generations int    `json:"generations"`
	Remaining   int    `json:"remaining"` // generations left this month
	ResetsAt    string `json:"resetsAt"`  // start of next month, UTC
}

func (s *server) handleProfile(w http.ResponseWriter, r *http.Request) error {
	p := info(r.Context()).principal
	now := s.now()
	month := store.Month(now)
	n, err := s.store.GenerationCount(r.Context(), p.Account.ID, month)
	if err != nil {
		return internal(err, "generation count")
	}
	lim := s.limits(p.Account.Plan)
	out := profile{
		Account: profileAccount{
			ID:        p.Account.ID,
			Email:     p.Account.Email,
			Name:      p.Account.Name,
			Plan:      string(p.Account.Plan),
			APIAccess: p.Account.Plan.HasAPIAccess(),
			CreatedAt: timeJSON(p.Account.CreatedAt),
		},
		Key: profileKey{
			ID:        p.Key.ID,
			Prefix:    p.Key.Prefix,
			Last4:     p.Key.Last4,
			CreatedAt: timeJSON(p.Key.CreatedAt),
		},
		Limits: profileLimits{MonthlyGenerations: lim.MonthlyGenerations, RequestsPerMinute: lim.RequestsPerMinute},
		Usage: profileUsage{
			Month:       month,
			Generations: n,
			Remaining:   max(lim.MonthlyGenerations-n, 0),
			ResetsAt:    timeJSON(monthStart(now).AddDate(0, 1, 0)),
		},
	}
	if p.Key.ExpiresAt != nil {
		e := timeJSON(*p.Key.ExpiresAt)
		out.Key.ExpiresAt = &e
	}
	wire.WriteJSON(w, http.StatusOK, "application/json", out)
	return nil
}
