package errs

import "testing"

func TestEMessage(t *testing.T) {
	for _, c := range []struct {
		format string
		args   []any
		want   string
	}{
		{"policy not found", nil, "policy not found"},
		{"100%% of the quota", nil, "100% of the quota"},
		{"field %s is required", []any{"businessName"}, "field businessName is required"},
		{"limit %d KiB", []any{350}, "limit 350 KiB"},
	} {
		if got := E(Invalid, "c", c.format, c.args...).Message; got != c.want {
			t.Errorf("E(%q, %v).Message = %q, want %q", c.format, c.args, got, c.want)
		}
	}
}
