package passwords

import (
	"strings"
	"testing"

	"github.com/policygen/policygen/pkg/errs"
)

func TestPasswordHashRoundTrip(t *testing.T) {
	const pw = "correct horse battery staple"
	h, err := Hash(pw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q does not carry the documented parameters", h)
	}
	if !Verify(h, pw) {
		t.Error("the password does not verify against its own hash")
	}
	for _, wrong := range []string{"", "correct horse battery stapl", "Correct horse battery staple", pw + " "} {
		if Verify(h, wrong) {
			t.Errorf("%q verifies against the hash of %q", wrong, pw)
		}
	}
	h2, _ := Hash(pw)
	if h2 == h {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	// NFKC: a full-width digit typed on another keyboard is the same character.
	hw, _ := Hash("passphrase number 1")
	if !Verify(hw, "passphrase number \uff11") {
		t.Error("NFKC-equivalent passwords do not verify alike")
	}
}

func TestVerifyRefusesMalformedHashes(t *testing.T) {
	good, _ := Hash("a sufficiently long password")
	parts := strings.Split(good, "$")
	for name, h := range map[string]string{
		"empty":         "",
		"bcrypt":        "$2a$10$abcdefghijklmnopqrstuuUVWXYZabcdefghijklmnopqrstuvwxyz",
		"argon2i":       strings.Replace(good, "argon2id", "argon2i", 1),
		"version":       strings.Replace(good, "v=19", "v=16", 1),
		"huge memory":   strings.Join([]string{"", parts[1], parts[2], "m=4194304,t=2,p=1", parts[4], parts[5]}, "$"),
		"zero passes":   strings.Join([]string{"", parts[1], parts[2], "m=19456,t=0,p=1", parts[4], parts[5]}, "$"),
		"bad salt":      strings.Join([]string{"", parts[1], parts[2], parts[3], "!!", parts[5]}, "$"),
		"short tag":     strings.Join([]string{"", parts[1], parts[2], parts[3], parts[4], "AAAA"}, "$"),
		"extra segment": good + "$x",
	} {
		if Verify(h, "a sufficiently long password") {
			t.Errorf("%s: malformed hash %q verified", name, h)
		}
	}
	if VerifyNobody("a sufficiently long password") {
		t.Error("VerifyNobody returned true")
	}
}

func TestCheckPassword(t *testing.T) {
	for _, tc := range []struct {
		pw, email string
		ok        bool
		says      string
	}{
		{"fourteen chars", "", false, "at least 15"},
		{"fifteen chars!!", "", true, ""},
		{strings.Repeat("é", 15), "", true, ""}, // code points, not bytes
		{strings.Repeat("x", MaxLen+1), "", false, "at most"},
		{"my address is Ann@Example.com", "ann@example.com", false, "email"},
		{"aaaaaaaaaaaaaaaaaaaaaaaa", "", true, ""}, // no composition rules
	} {
		err := Check(tc.pw, tc.email)
		if tc.ok != (err == nil) {
			t.Errorf("Check(%q) = %v, want ok=%v", tc.pw, err, tc.ok)
			continue
		}
		if err != nil {
			e := errs.As(err)
			if e == nil || e.Code != "invalid_password" || len(e.Fields) != 1 || e.Fields[0].Field != "password" || !strings.Contains(e.Message, tc.says) {
				t.Errorf("Check(%q) = %+v, want invalid_password on field password saying %q", tc.pw, e, tc.says)
			}
		}
	}
}

// BenchmarkHashPassword is the cost of one sign-in's argon2id run (and of
// the dummy run for an unknown email).
func BenchmarkHashPassword(b *testing.B) {
	h, _ := Hash("a sufficiently long password")
	b.ReportAllocs()
	for b.Loop() {
		Verify(h, "a sufficiently long password")
	}
}
