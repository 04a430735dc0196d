package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/policygen/policygen/pkg/secrets"
)

// Hasher turns a key into the value stored and looked up in place of it:
// hex(HMAC-SHA256(pepper, key)). The pepper is kept outside the database
// (Secrets Manager, or a local file), so a copy of the table alone does not
// allow offline guessing; keys carry ~190 random bits, so no slow hash is
// needed on top.
type Hasher struct {
	Pepper secrets.Source
}

// Hash returns the stored form of secret. The pepper is read from the Source
// on each call; the Source caches it, so only the first call does I/O.
func (h *Hasher) Hash(ctx context.Context, secret string) (string, error) {
	if h == nil || h.Pepper == nil {
		return "", errors.New("auth: hasher has no pepper source")
	}
	pepper, err := h.Pepper.Value(ctx)
	if err != nil {
		return "", fmt.Errorf("auth: read pepper: %w", err)
	}
	if len(pepper) == 0 {
		return "", errors.New("auth: empty pepper")
	}
	m := hmac.New(sha256.New, pepper)
	m.Write([]byte(secret))
	return hex.EncodeToString(m.Sum(nil)), nil
}
