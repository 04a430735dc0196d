// Package passwords is the dashboard's password handling: the rules a new
// password must meet (Check), and its argon2id hash (Hash, Verify). It is
// apart from pkg/auth, which every Lambda function links, so that only the
// dashboard's function and the commands link argon2 and its package inits.
package passwords

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"

	"github.com/policygen/policygen/pkg/errs"
)

// Argon2id parameters of new password hashes: OWASP's Password Storage
// Cheat Sheet's first configuration (19 MiB, 2 passes, 1 lane), with a
// 16-byte salt and a 32-byte tag (RFC 9106 section 4 calls 128-bit salts
// sufficient). About 70 ms on one core (BenchmarkHashPassword); the
// dashboard's function gets 1 GB of memory, and so most of a vCPU, for it. Stored hashes
// carry their own parameters, so raising these later keeps old hashes valid.
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonSaltLen   = 16
	argonKeyLen    = 32
)

// Password length bounds, in Unicode code points after NFKC normalisation:
// NIST SP 800-63B-4 section 3.1.1.2 requires at least 15 for a password that
// is the only factor and asks verifiers to accept at least 64; there are no
// composition rules. The upper bound keeps one sign-in's hashing cost fixed.
const (
	MinLen = 15
	MaxLen = 256
)

// passwordError is Check's refusal: 422 invalid_password, naming
// the field and why.
func passwordError(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	return &errs.Error{Kind: errs.Unprocessable, Code: "invalid_password", Message: msg,
		Fields: []errs.FieldError{{Field: "password", Message: msg}}}
}

// Check applies the rules a new password must meet. email is the
// user's address: a password that contains it is refused (NIST SP 800-63B-4
// names context-specific words).
func Check(password, email string) error {
	p := norm.NFKC.String(password)
	n := utf8.RuneCountInString(p)
	switch {
	case n < MinLen:
		return passwordError("the password must be at least %d characters long (it has %d); a few unrelated words make a long password that is easy to remember", MinLen, n)
	case n > MaxLen:
		return passwordError("the password must be at most %d characters long", MaxLen)
	case email != "" && strings.Contains(strings.ToLower(p), strings.ToLower(email)):
		return passwordError("the password must not contain your email address")
	}
	return nil
}

// Hash returns the argon2id hash of password in the PHC string
// format: $argon2id$v=19$m=19456,t=2,p=1$<salt>$<tag>, base64 without
// padding. The password is NFKC-normalised first (NIST SP 800-63B-4), so
// the same characters typed on different keyboards verify alike.
func Hash(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password: salt: %w", err)
	}
	p := phc{memory: argonMemoryKiB, time: argonTime, threads: argonThreads, salt: salt}
	p.key = p.derive(password, argonKeyLen)
	return p.String(), nil
}

// Verify reports whether password matches hash (a Hash
// result). A malformed hash never matches. The comparison is constant-time.
func Verify(hash, password string) bool {
	p, err := parsePHC(hash)
	if err != nil {
		return false
	}
	got := p.derive(password, len(p.key))
	return subtle.ConstantTimeCompare(got, p.key) == 1
}

// dummyHash is verified against when there is no user (or no password) to
// check, so a sign-in for an unknown email costs what a wrong password
// costs, and timing does not tell which addresses have accounts.
var dummyHash = sync.OnceValue(func() string {
	h, err := Hash("policygen: no such user, this hash never matches")
	if err != nil {
		panic(err)
	}
	return h
})

// VerifyNobody does the work of a failed Verify and returns false.
func VerifyNobody(password string) bool {
	Verify(dummyHash(), password)
	return false
}

type phc struct {
	memory  uint32
	time    uint32
	threads uint8
	salt    []byte
	key     []byte
}

func (p phc) derive(password string, keyLen int) []byte {
	return argon2.IDKey([]byte(norm.NFKC.String(password)), p.salt, p.time, p.memory, p.threads, uint32(keyLen))
}

var b64 = base64.RawStdEncoding

func (p phc) String() string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.memory, p.time, p.threads, b64.EncodeToString(p.salt), b64.EncodeToString(p.key))
}

var errBadHash = errors.New("password: not an argon2id PHC string")

// parsePHC reads a hash that Hash wrote. Parameters outside what this
// service writes (memory over 256 MiB, say) are refused rather than run: a
// hash from the store must not be able to exhaust a function's memory.
func parsePHC(s string) (phc, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return phc{}, errBadHash
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return phc{}, errBadHash
	}
	var p phc
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.time, &p.threads); err != nil {
		return phc{}, errBadHash
	}
	if p.memory < 8*uint32(max(p.threads, 1)) || p.memory > 256*1024 || p.time < 1 || p.time > 16 || p.threads < 1 || p.threads > 8 {
		return phc{}, errBadHash
	}
	var err error
	if p.salt, err = b64.DecodeString(parts[4]); err != nil || len(p.salt) < 8 {
		return phc{}, errBadHash
	}
	if p.key, err = b64.DecodeString(parts[5]); err != nil || len(p.key) < 16 || len(p.key) > 64 {
		return phc{}, errBadHash
	}
	return p, nil
}
