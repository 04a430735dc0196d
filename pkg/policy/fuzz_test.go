package policy

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/policygen/policygen/pkg/errs"
)

// FuzzParseRequest: any body either parses to a normalised request that
// parses again to itself (normalisation is idempotent, so a stored request
// reproduces its document), or fails with a client error: 400 for a body
// that is not one JSON object, 422 naming every offending field. Never a
// panic, never an unclassified error. Seeds: testdata/fuzz/FuzzParseRequest.
func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"type":"privacy","businessName":"Acme","websiteUrl":"https://acme.example","businessType":"saas","jurisdiction":"eu","collectsPayments":true,"collectsUserData":true,"usesAnalytics":false}`))
	f.Add([]byte(`{"type":"privacy","x":{"type":"a\"b"},"type":"cookie"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		// The fast path's member count agrees with the token decoder.
		if raw, dups, err := decodeObjectTokens(body); err == nil {
			if n := len(raw) + len(dups); len(dups) == 0 && countMembers(body) != n {
				t.Fatalf("countMembers(%q) = %d, token decoder found %d distinct members", body, countMembers(body), n)
			}
			if len(dups) > 0 && countMembers(body) <= len(raw) {
				t.Fatalf("countMembers(%q) = %d hides a repeated member (%v)", body, countMembers(body), dups)
			}
		}
		req, err := ParseRequest(body)
		if err != nil {
			e := errs.As(err)
			if e == nil || (e.Kind != errs.Invalid && e.Kind != errs.Unprocessable) {
				t.Fatalf("ParseRequest(%q) = %v: not a 400 or 422", body, err)
			}
			if e.Kind == errs.Unprocessable && len(e.Fields) == 0 {
				t.Fatalf("422 without field errors for %q", body)
			}
			for _, fe := range e.Fields {
				// Field is the member's name, "" for a member named "".
				if fe.Message == "" {
					t.Fatalf("field error without a message: %+v", fe)
				}
			}
			return
		}
		again, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		req2, err := ParseRequest(again)
		if err != nil {
			t.Fatalf("normalised request %s does not parse: %v", again, err)
		}
		if !reflect.DeepEqual(req, req2) {
			t.Fatalf("normalisation is not idempotent:\n%+v\n%+v", req, req2)
		}
	})
}
