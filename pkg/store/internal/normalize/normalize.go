// Package normalize gives the records both stores return the one shape the
// store.Store contract promises, whatever was written: times in UTC and a
// summary's slices non-nil (so JSON shows [] rather than null).
package normalize

import (
	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/store"
)

// Summary returns s with CreatedAt in UTC and non-nil slices.
func Summary(s store.Summary) store.Summary {
	s.CreatedAt = s.CreatedAt.UTC()
	if s.ThirdPartyServices == nil {
		s.ThirdPartyServices = []string{}
	}
	if s.ComplianceFlags == nil {
		s.ComplianceFlags = []compliance.Flag{}
	}
	// A policy stored before documents had a status may hold placeholders:
	// it is never presented as ready to publish.
	if s.Status == "" {
		s.Status = "needs_input"
	}
	if s.Todos == nil {
		s.Todos = []compliance.Todo{}
	}
	if s.RiskFactors == nil {
		s.RiskFactors = []compliance.Factor{}
	}
	return s
}

// Key returns k with every time in UTC.
func Key(k account.Key) account.Key {
	k.CreatedAt = k.CreatedAt.UTC()
	if k.ExpiresAt != nil {
		t := k.ExpiresAt.UTC()
		k.ExpiresAt = &t
	}
	if k.RevokedAt != nil {
		t := k.RevokedAt.UTC()
		k.RevokedAt = &t
	}
	if k.LastUsedAt != nil {
		t := k.LastUsedAt.UTC()
		k.LastUsedAt = &t
	}
	return k
}

// User returns u with its time in UTC.
func User(u account.User) account.User {
	u.CreatedAt = u.CreatedAt.UTC()
	return u
}

// Session returns s with its times in UTC.
func Session(s account.Session) account.Session {
	s.CreatedAt = s.CreatedAt.UTC()
	s.ExpiresAt = s.ExpiresAt.UTC()
	return s
}
