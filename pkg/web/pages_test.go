package web

import "testing"

// TestPagesParse parses every page's templates: New no longer does (a
// page is parsed on its first use), so a broken template would otherwise
// show only when its page is served.
func TestPagesParse(t *testing.T) {
	for name, parse := range newPageSet() {
		if _, err := parse(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
