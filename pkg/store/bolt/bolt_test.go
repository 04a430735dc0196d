package bolt

import (
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/internal/content"
	"github.com/policygen/policygen/pkg/store/storetest"
)

func open(t *testing.T) store.Store { return openStore(t) }

// openStore opens a store in a new directory, closed when the test ends.
func openStore(t *testing.T) *Store {
	t.Helper()
	st, err := Open(filepath.Join(t.TempDir(), "policygen.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// addPolicy stores a new Agency account with one policy whose text is text.
func addPolicy(t *testing.T, st *Store, text string) (account.Account, store.Policy) {
	t.Helper()
	a := account.Account{ID: ids.New(ids.Account), Email: "a@example.com", Plan: account.Agency, CreatedAt: time.Now().UTC()}
	if err := st.CreateAccount(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	p := store.Policy{Summary: store.Summary{ID: ids.New(ids.Policy), AccountID: a.ID, CreatedAt: a.CreatedAt}, Content: text}
	if err := st.CreatePolicy(t.Context(), p, store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return a, p
}

func TestContract(t *testing.T) {
	storetest.Run(t, open)
}

func TestOpenCreatesPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "policygen.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("file mode %v, want 0600", perm)
	}
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policygen.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	a, p := addPolicy(t, st, "hello")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if has, err := st.HasAccounts(ctx); err != nil || !has {
		t.Errorf("HasAccounts after reopen = %v, %v", has, err)
	}
	got, err := st.Policy(ctx, a.ID, p.ID)
	if err != nil || got.Content != "hello" {
		t.Errorf("Policy after reopen = %+v, %v", got, err)
	}
}

func TestSecondOpenFailsClearly(t *testing.T) {
	// bbolt's lock is a flock, which a second open in the same process
	// contends for just like another process would.
	defer func(d time.Duration) { lockTimeout = d }(lockTimeout)
	lockTimeout = 50 * time.Millisecond
	path := filepath.Join(t.TempDir(), "policygen.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = Open(path)
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: %v, want ErrInUse", err)
	}
}

// TestSecondProcessFailsClearly opens the file here and then in a child
// process (this test binary, re-run as TestOpenInChild), which must give up
// with ErrInUse's message instead of hanging.
func TestSecondProcessFailsClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policygen.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestOpenInChild$", "-test.v")
	cmd.Env = append(os.Environ(), "BOLT_TEST_CHILD_PATH="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "store is in use by another process") {
		t.Errorf("child output does not name the problem:\n%s", out)
	}
}

// TestOpenInChild is the child half of TestSecondProcessFailsClearly.
func TestOpenInChild(t *testing.T) {
	path := os.Getenv("BOLT_TEST_CHILD_PATH")
	if path == "" {
		t.Skip("run by TestSecondProcessFailsClearly")
	}
	lockTimeout = 50 * time.Millisecond
	st, err := Open(path)
	if err == nil {
		st.Close()
		t.Fatal("second process opened a file in use")
	}
	t.Log(err)
}

func openBench(b *testing.B) store.Store {
	st, err := Open(filepath.Join(b.TempDir(), "policygen.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

func BenchmarkCreatePolicy(b *testing.B) { storetest.BenchmarkCreatePolicy(b, openBench) }
func BenchmarkListPolicies(b *testing.B) { storetest.BenchmarkListPolicies(b, openBench) }
func BenchmarkGetPolicy(b *testing.B)    { storetest.BenchmarkGetPolicy(b, openBench) }

// TestReadsEarlierContent: files written before the store switched to
// content.CompressFast hold Compress's encoding, and those policies still
// read.
func TestReadsEarlierContent(t *testing.T) {
	st := openStore(t)
	ctx := t.Context()
	a, p := addPolicy(t, st, "new")
	const old = "# Privacy Policy\nWritten with Compress.\n"
	packed, err := content.Compress(old)
	if err != nil {
		t.Fatal(err)
	}
	err = st.db.Update(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketContents).Bucket([]byte(a.ID)).Put([]byte(p.ID), packed)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.Policy(ctx, a.ID, p.ID); err != nil || got.Content != old {
		t.Errorf("Policy = %q, %v; want %q", got.Content, err, old)
	}
}

// TestPolicyPagesFilled: policies are appended in id order, and when a
// commit adds several (a group commit), the pages of the contents bucket
// are filled before they split, not left half empty (bbolt's default), so
// each commit and the file hold fewer pages.
func TestPolicyPagesFilled(t *testing.T) {
	st := openStore(t)
	acct := ids.New(ids.Account)
	for range 20 {
		// Ten policies a transaction, as a group commit under load writes.
		err := st.db.Update(func(tx *bbolt.Tx) error {
			for range 10 {
				// Text that S2 does not shrink: about 600 bytes stored,
				// several to a page.
				var text strings.Builder
				for range 24 {
					text.WriteString(rand.Text())
				}
				gz, err := content.CompressFast(text.String())
				if err != nil {
					return err
				}
				p := store.Policy{Summary: store.Summary{ID: ids.New(ids.Policy), AccountID: acct, CreatedAt: time.Now().UTC()}}
				if err := writePolicy(tx, p, []byte("{}"), gz, nil, store.CreateOptions{}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	st.db.View(func(tx *bbolt.Tx) error {
		s := tx.Bucket(bucketContents).Bucket([]byte(acct)).Stats()
		fill := float64(s.LeafInuse) / float64(s.LeafAlloc)
		t.Logf("contents: %d keys in %d leaf pages, %.0f %% in use", s.KeyN, s.LeafPageN, 100*fill)
		if s.KeyN != 200 || fill < 0.75 {
			t.Errorf("contents: %d keys, leaf pages %.0f %% in use; want 200 keys and at least 75 %%", s.KeyN, 100*fill)
		}
		return nil
	})
}
