package compliance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
)

// Change is one entry of the legal changelog (data/changelog.json): the
// template version that introduced or changed checklist items.
type Change struct {
	TemplateVersion string `json:"templateVersion"`
	Summary         string `json:"summary"`
	// Added and Changed are requirement ids (notModelled items included).
	Added   []string `json:"added"`
	Changed []string `json:"changed,omitempty"`
}

// LoadChangelog reads data/changelog.json of fsys, oldest entry first.
func LoadChangelog(fsys fs.FS) ([]Change, error) {
	b, err := fs.ReadFile(fsys, "data/changelog.json")
	if err != nil {
		return nil, fmt.Errorf("compliance: %w", err)
	}
	var doc struct {
		Changes []Change `json:"changes"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("compliance: data/changelog.json: %w", err)
	}
	return doc.Changes, nil
}

// Changelog returns the embedded legal changelog.
func Changelog() ([]Change, error) { return LoadChangelog(embedded) }
