// Package content compresses policy text for both stores: gzip at
// BestSpeed, with pooled writers and readers because a gzip writer's
// tables cost about a megabyte to allocate, more than the document itself.
package content

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sync"
)

var writers = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // the level is valid
	return w
}}

var readers sync.Pool // *gzip.Reader; made on first use, as NewReader needs input

// Compress returns s gzip-compressed.
func Compress(s string) ([]byte, error) {
	var buf bytes.Buffer
	zw := writers.Get().(*gzip.Writer)
	defer writers.Put(zw)
	zw.Reset(&buf)
	if _, err := io.WriteString(zw, s); err != nil {
		return nil, fmt.Errorf("compress content: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress content: %w", err)
	}
	return buf.Bytes(), nil
}

// Decompress reverses Compress.
func Decompress(b []byte) (string, error) {
	var (
		zr  *gzip.Reader
		err error
	)
	if r, ok := readers.Get().(*gzip.Reader); ok {
		zr, err = r, r.Reset(bytes.NewReader(b))
	} else {
		zr, err = gzip.NewReader(bytes.NewReader(b))
	}
	if err != nil {
		return "", fmt.Errorf("decompress content: %w", err)
	}
	defer readers.Put(zr)
	var out bytes.Buffer
	if _, err := io.Copy(&out, zr); err != nil {
		return "", fmt.Errorf("decompress content: %w", err)
	}
	return out.String(), nil
}
