package strictjson

import (
	"errors"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	type T struct {
		A string `json:"a"`
	}
	for in, want := range map[string]string{
		`{"a":"x"}`:           "",
		" {\"a\":\"x\"} \n\t": "",
		`{"a":"x"} junk`:      ErrTrailingData.Error(),
		`{"a":"x"}{"a":"y"}`:  ErrTrailingData.Error(),
		`{"a":"x"} []`:        ErrTrailingData.Error(),
		`{"b":"x"}`:           `unknown field "b"`,
		`{"a":`:               "unexpected EOF",
	} {
		var v T
		err := Decode([]byte(in), &v)
		switch {
		case want == "" && err != nil:
			t.Errorf("Decode(%q) = %v", in, err)
		case want == "" && v.A != "x":
			t.Errorf("Decode(%q) gave %+v", in, v)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("Decode(%q) = %v, want an error containing %q", in, err, want)
		}
	}
	if err := Decode([]byte(`{} x`), &struct{}{}); !errors.Is(err, ErrTrailingData) {
		t.Errorf("trailing data: %v is not ErrTrailingData", err)
	}
}
