package secrets

import (
	"context"
	"testing"
)

func TestStatic(t *testing.T) {
	b := []byte("pepper")
	src := NewStatic(b)
	b[0] = 'X' // the Source keeps its own copy
	v, err := src.Value(context.Background())
	if err != nil || string(v) != "pepper" {
		t.Fatalf("got %q, %v", v, err)
	}
}
