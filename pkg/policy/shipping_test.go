package policy

import (
	"slices"
	"testing"

	"github.com/policygen/policygen/pkg/errs"
)

// TestShippingFields: shippingRegions is stored as codes in the order
// given without repeats, and dispatchDays keeps 0 (same day); bad values
// are refused by field (issue 8, t4).
func TestShippingFields(t *testing.T) {
	r, err := ParseRequest(body(t, with(map[string]any{"type": "shipping",
		"shippingRegions": []any{"de", "Austria", "European Union", "DE"}, "dispatchDays": 0})))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"DE", "AT", ShipEU}; !slices.Equal(r.ShippingRegions, want) {
		t.Errorf("shippingRegions = %q, want %q", r.ShippingRegions, want)
	}
	if r.DispatchDays == nil || *r.DispatchDays != 0 {
		t.Errorf("dispatchDays = %v, want 0", r.DispatchDays)
	}
	for name, in := range map[string]map[string]any{
		"unknown region":       {"shippingRegions": []any{"Atlantis"}},
		"worldwide not alone":  {"shippingRegions": []any{"worldwide", "FR"}},
		"empty regions":        {"shippingRegions": []any{}},
		"regions not an array": {"shippingRegions": "DE"},
		"dispatch negative":    {"dispatchDays": -1},
		"dispatch too long":    {"dispatchDays": MaxDispatchDays + 1},
		"dispatch fraction":    {"dispatchDays": 1.5},
	} {
		if _, err := ParseRequest(body(t, with(in))); errs.As(err) == nil || len(errs.As(err).Fields) != 1 {
			t.Errorf("%s: err = %v, want one field error", name, err)
		}
	}
}
