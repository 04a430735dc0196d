package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
)

// BenchOpener returns a new, empty store for one benchmark and arranges its
// cleanup with b.Cleanup.
type BenchOpener func(b *testing.B) store.Store

// benchContent is a policy of realistic size (generated documents are tens
// of kilobytes of Markdown).
var benchContent = largeText(24 << 10)

// BenchmarkCreatePolicy measures CreatePolicy (metadata, content and usage
// counter in one atomic write).
func BenchmarkCreatePolicy(b *testing.B, open BenchOpener) {
	st := open(b)
	acct := ids.New(ids.Account)
	at := time.Now().UTC()
	b.ReportAllocs()
	for b.Loop() {
		p := newPolicy(acct, at)
		p.Content = benchContent
		if err := st.CreatePolicy(b.Context(), p, store.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListPolicies measures reading a first page of 20 (the API's
// default) from an account with 200 policies.
func BenchmarkListPolicies(b *testing.B, open BenchOpener) {
	st := open(b)
	acct := seed(b, st, 200)
	b.ReportAllocs()
	for b.Loop() {
		page, err := st.ListPolicies(b.Context(), acct, store.ListOptions{Limit: 20})
		if err != nil {
			b.Fatal(err)
		}
		if len(page.Items) != 20 {
			b.Fatalf("%d items", len(page.Items))
		}
	}
}

// BenchmarkGetPolicy measures reading one policy with its content.
func BenchmarkGetPolicy(b *testing.B, open BenchOpener) {
	st := open(b)
	acct := seed(b, st, 20)
	page, err := st.ListPolicies(b.Context(), acct, store.ListOptions{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	id := page.Items[0].ID
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Policy(b.Context(), acct, id); err != nil {
			b.Fatal(err)
		}
	}
}

func seed(b *testing.B, st store.Store, n int) string {
	b.Helper()
	acct := ids.New(ids.Account)
	start := time.Now().UTC().Add(-time.Duration(n) * time.Second)
	for i := range n {
		p := newPolicy(acct, start.Add(time.Duration(i)*time.Second))
		p.Content = benchContent
		if err := st.CreatePolicy(b.Context(), p, store.CreateOptions{}); err != nil {
			b.Fatal(fmt.Errorf("seed policy %d: %w", i, err))
		}
	}
	return acct
}
