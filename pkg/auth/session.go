package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// NewSessionToken returns a dashboard session token (256 random bits,
// base64url) and the hash it is stored under. Only the browser holds the
// token; a copy of the store cannot be replayed as a session.
func NewSessionToken() (token, hash string) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, SessionHash(token)
}

// SessionHash is the stored form of a session token: SHA-256, hex. A plain
// hash suffices (no pepper, no slow hash) because the token is random and
// 256 bits long, so it cannot be guessed from its hash.
func SessionHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
