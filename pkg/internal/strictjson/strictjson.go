// Package strictjson decodes the embedded data files (the catalog, the
// laws, the clause library) as strictly as their loaders promise
// (docs/GENERATION.md, "Loading is strict"): one JSON value, no member
// the Go type lacks, and nothing after it.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// ErrTrailingData is the error for bytes after the value.
var ErrTrailingData = errors.New("trailing data after the JSON value")

// Decode decodes b, one JSON value and nothing after it but white space,
// into v, refusing members v does not have.
func Decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrTrailingData
	}
	return nil
}
