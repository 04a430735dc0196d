// Package policy is the document generator: request validation, the facts
// derived from a request, clause selection and rendering.
package policy

import (
	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/errs"
)

// Result is a generated document with its score and findings.
type Result struct {
	Request         Request
	Content         string
	Format          string
	RiskScore       int
	RiskLevel       string
	Flags           []compliance.Flag
	TemplateVersion string
}

// Generate produces the document for req. The same req and template version
// always give the same bytes.
func Generate(req Request) (Result, error) {
	return Result{}, errs.E(errs.Internal, "not_implemented", "generation is not implemented yet")
}
