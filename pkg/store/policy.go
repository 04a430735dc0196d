package store

import (
	"time"

	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/policy"
)

// NewPolicy is a generation result as stored for the account, with a new id
// ordered by now. The API and the dashboard both store what they generate
// through it.
func NewPolicy(accountID string, res policy.Result, now time.Time) Policy {
	return Policy{
		Summary: Summary{
			ID:              ids.New(ids.Policy),
			AccountID:       accountID,
			Request:         res.Request,
			Status:          res.Status,
			Todos:           res.Todos,
			RiskScore:       res.RiskScore,
			RiskLevel:       res.RiskLevel,
			RiskFactors:     res.RiskFactors,
			ComplianceFlags: res.Flags,
			TemplateVersion: res.TemplateVersion,
			CreatedAt:       now,
		},
		Content: res.Content,
	}
}
