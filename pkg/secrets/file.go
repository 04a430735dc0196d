package secrets

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// NewFile returns a Source backed by the file at path, for local
// development. On first use, if the file does not exist, it is created with
// 32 random bytes, hex encoded (mode 0600, parent directories 0700). The
// value is the file's content without surrounding whitespace, read once and
// kept for the life of the Source.
func NewFile(path string) Source { return &file{path: path} }

type file struct {
	path string

	mu  sync.Mutex
	val []byte
}

// minFileSecret rejects a truncated or hand-edited file that would make a
// weak HMAC key: 16 bytes is 128 bits if random.
const minFileSecret = 16

func (f *file) Value(ctx context.Context) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.val != nil {
		return f.val, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = createSecretFile(f.path)
	}
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	b = bytes.TrimSpace(b)
	if len(b) < minFileSecret {
		return nil, fmt.Errorf("secrets: %s holds %d bytes, want at least %d", f.path, len(b), minFileSecret)
	}
	f.val = b
	return b, nil
}

// createSecretFile writes a new random secret. It is written to a temporary
// file and hard-linked into place, which fails if path exists: two processes
// starting at once (policyd and policyctl) agree on one complete value, the
// loser reading the winner's file.
func createSecretFile(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	val := []byte(hex.EncodeToString(raw) + "\n")
	tmp, err := os.CreateTemp(dir, ".secret-*") // mode 0600
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(val); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return os.ReadFile(path)
		}
		return nil, err
	}
	return val, nil
}
