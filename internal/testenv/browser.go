package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium returns the path of Debian's headless-capable Chromium
// (`make test` installs the chromium package when it is missing). Without
// it the test is skipped on a developer's machine and fails under CI=true,
// where a skipped browser test would hide that no page was checked.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if p == "" {
			continue
		}
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Chromium is not installed (CI=true: browser tests must run). `make test` installs Debian's chromium package; set CHROMIUM to use another binary")
	}
	t.Skip("Chromium is not installed; `make test` installs it (Debian package chromium)")
	return ""
}
