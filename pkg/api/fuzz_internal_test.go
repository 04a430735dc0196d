package api

import (
	"net/url"
	"testing"

	"github.com/policygen/policygen/pkg/ids"
)

// FuzzListQuery: reading limit and cursor from any raw query never panics;
// a cursor decodes only to a valid policy id; every cursor the server
// writes reads back as the id it was made from. Seeds:
// testdata/fuzz/FuzzListQuery.
func FuzzListQuery(f *testing.F) {
	f.Add("limit=20&cursor=" + encodeCursor(ids.New(ids.Policy)))
	f.Fuzz(func(t *testing.T, raw string) {
		limit, cursor := listParams(raw)
		if cursor.set {
			if id, ok := decodeCursor(cursor.value); ok {
				if !ids.Valid(ids.Policy, id) {
					t.Fatalf("cursor %q decoded to invalid id %q", cursor.value, id)
				}
				if back, ok := decodeCursor(encodeCursor(id)); !ok || back != id {
					t.Fatalf("cursor round trip of %q: %q %v", id, back, ok)
				}
			}
		}
		// A parameter given once and well formed is read as url.ParseQuery would.
		if vals, err := url.ParseQuery(raw); err == nil && limit.set && !limit.repeated && !limit.malformed {
			if got := vals["limit"]; len(got) != 1 || got[0] != limit.value {
				t.Fatalf("limit %q read as %q; url.ParseQuery says %q", raw, limit.value, got)
			}
		}
	})
}
