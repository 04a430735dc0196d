// Package auth decides who is calling Policygen: it defines the API key
// format, hashes keys with a secret pepper, issues, rotates and verifies keys,
// and says what each plan may do.
//
// A key is "pol_live_" + 32 random base62 characters + a 6-character base62
// CRC32 of those 32 characters. The fixed prefix lets secret scanners spot a
// leaked key; the checksum lets a typo or a random string be rejected without
// touching the database or the pepper. Only HMAC-SHA256(pepper, key) is
// stored, and it is the lookup key of the key record.
package auth

import (
	"crypto/rand"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/policygen/policygen/pkg/errs"
)

const (
	// Prefix starts every live API key.
	Prefix = "pol_live_"
	// RandomLen is the number of random base62 characters (about 190 bits).
	RandomLen = 32
	// ChecksumLen is the width of the base62 CRC32 checksum; 62^6 > 2^32.
	ChecksumLen = 6
	// KeyLen is the total length of a key.
	KeyLen = len(Prefix) + RandomLen + ChecksumLen
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// ErrInvalidKey is returned for a malformed or unknown key. Both get the same
// answer so a caller cannot tell a well-formed guess from a bad one.
var ErrInvalidKey = errs.E(errs.Unauthenticated, "invalid_api_key", "the API key is not valid")

// NewKey returns a new random API key.
func NewKey() (string, error) {
	random, err := randomBase62(RandomLen)
	if err != nil {
		return "", fmt.Errorf("auth: new key: %w", err)
	}
	return Prefix + random + checksum(random), nil
}

// randomBase62 draws n characters uniformly from the base62 alphabet. Bytes
// of 248 or more are discarded (rejection sampling): 248 = 4*62, so b%62 of an
// accepted byte is uniform, where b%62 of any byte would favour the first 8
// characters.
func randomBase62(n int) (string, error) {
	const limit = 256 - 256%len(base62) // 248
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4) // ~3% of bytes are rejected; one read usually suffices
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			out = append(out, base62[int(b)%len(base62)])
			if len(out) == n {
				break
			}
		}
	}
	return string(out), nil
}

// checksum is the CRC32 (IEEE) of s in base62, most significant digit first,
// zero-padded to ChecksumLen.
func checksum(s string) string {
	v := crc32.ChecksumIEEE([]byte(s))
	var out [ChecksumLen]byte
	for i := ChecksumLen - 1; i >= 0; i-- {
		out[i] = base62[v%62]
		v /= 62
	}
	return string(out[:])
}

func isBase62(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// CheckFormat reports whether secret is shaped like a key this service
// issues: prefix, length, alphabet and checksum. It does no I/O. The returned
// error is ErrInvalidKey with the reason kept as its cause for the logs.
func CheckFormat(secret string) error {
	var reason string
	switch {
	case !strings.HasPrefix(secret, Prefix):
		reason = "missing prefix " + Prefix
	case len(secret) != KeyLen:
		reason = fmt.Sprintf("length %d, want %d", len(secret), KeyLen)
	default:
		body := secret[len(Prefix):]
		for i := 0; i < len(body); i++ {
			if !isBase62(body[i]) {
				reason = "character outside base62"
				break
			}
		}
		// A plain comparison is fine here: the checksum is a public function
		// of the caller's own input, so its timing reveals nothing secret.
		if reason == "" && checksum(body[:RandomLen]) != body[RandomLen:] {
			reason = "checksum mismatch"
		}
	}
	if reason == "" {
		return nil
	}
	return errs.Wrap(fmt.Errorf("malformed API key: %s", reason), errs.Unauthenticated, ErrInvalidKey.Code, ErrInvalidKey.Message)
}

// Last4 returns the last four characters of a key, shown to users to tell
// their keys apart.
func Last4(secret string) string {
	if len(secret) < 4 {
		return secret
	}
	return secret[len(secret)-4:]
}
