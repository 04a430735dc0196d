package functions_test

import (
	"net/http"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/account"
)

// The benchmarks run the host-arch build of each function as a process
// against the in-test Runtime API, like TestFunctionsAnswerEventSamples, and
// time the phases Lambda bills and reports. Each overrides ns/op with the
// interval measured on the Runtime API side, so process teardown and the
// test's own bookkeeping are left out.

// BenchmarkInit: exec until the first GET .../invocation/next, which is
// what Lambda reports as Init Duration. One process per iteration; the
// bootstrap's size is reported alongside, as it drives cold-start time on
// Lambda (the package is downloaded before exec).
func BenchmarkInit(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("the Lambda binaries are linux executables")
	}
	// Init makes no network call (the pepper is fetched on the first
	// authenticated request), so DynamoDB need not run: a refused port
	// makes an unexpected call fail init loudly instead of being timed.
	sm := newPepperServer(b)
	for _, id := range logicalIDs() {
		dir := wantFunctions[id]
		bootstrap := makeBuild(b, id, runtime.GOARCH)
		fi, err := os.Stat(bootstrap)
		if err != nil {
			b.Fatal(err)
		}
		env := functionEnv(dir, "http://127.0.0.1:1", sm.URL, "policygen-bench", "INFO")
		b.Run(id, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				p := startFunction(b, "policygen-bench-"+dir, bootstrap, env)
				total += p.waitInit(b)
				b.StopTimer()
				p.stop()
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(float64(fi.Size()), "bytes")
		})
	}
}

// BenchmarkFirstInvoke: exec until the response to the first get-profile
// request, i.e. init plus a cold invocation that fetches the pepper from
// Secrets Manager and reads DynamoDB Local. One process per iteration.
func BenchmarkFirstInvoke(b *testing.B) {
	fx, events, bootstrap := profileBench(b, 1)
	event := events[0]
	const id, dir = profileID, profileDir
	env := fx.env(dir, "INFO")
	b.Run(id, func(b *testing.B) {
		var total time.Duration
		for range b.N {
			calls := fx.sm.Calls(secretID(dir))
			p := startFunction(b, "policygen-bench-"+dir, bootstrap, env)
			resp, res := p.invokeTimed(b, event)
			b.StopTimer()
			total += res.received.Sub(p.started)
			p.stop()
			// Otherwise the number would not be the cold path it claims.
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status = %d, want 200; body: %s", resp.StatusCode, resp.Body)
			}
			if n := fx.sm.Calls(secretID(dir)) - calls; n != 1 {
				b.Fatalf("first invocation fetched the pepper %d times, want 1", n)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/op")
	})
}

// BenchmarkWarmInvoke: one long-lived get-profile process; per iteration,
// the event handed out by /next until its response arrives.
func BenchmarkWarmInvoke(b *testing.B) {
	fx, events, bootstrap := profileBench(b, warmKeys)
	const id, dir = profileID, profileDir
	p := startFunction(b, "policygen-bench-"+dir, bootstrap, fx.env(dir, "INFO"))
	// The cold invocations, untimed: they fetch the pepper and fill the
	// key cache, as the first requests to a Lambda instance would.
	for _, event := range events {
		wantStatus(b, p.invoke(b, event), http.StatusOK, "application/json")
	}
	b.Run(id, func(b *testing.B) {
		var total time.Duration
		for i := range b.N {
			resp, res := p.invokeTimed(b, events[i%len(events)])
			total += res.received.Sub(res.handedOut)
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status = %d, want 200; body: %s", resp.StatusCode, resp.Body)
			}
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/op")
	})
}

// The invocation benchmarks use get-profile: authenticated, one store read.
const profileID, profileDir = "GetProfileFunction", "get-profile"

// profileBench seeds n Agency accounts and returns the fixture, one
// get-profile sample event per account's key, and the built binary. Several
// keys let a benchmark make more requests a minute than one key's rate
// limit (docs/LIMITS.md) allows, without changing what a request does.
func profileBench(b *testing.B, n int) (*fixture, [][]byte, string) {
	b.Helper()
	if runtime.GOOS != "linux" {
		b.Skip("the Lambda binaries are linux executables")
	}
	fx := newFixture(b)
	events := make([][]byte, n)
	for i := range events {
		_, key, _ := fx.seed(b, account.Agency)
		events[i] = marshalEvent(b, withKey(loadEvent(b, profileDir), key))
	}
	return fx, events, makeBuild(b, profileID, runtime.GOARCH)
}

// warmKeys is how many keys the warm benchmark rotates through: at 300
// requests a minute each, room for 30,000 invocations a minute.
const warmKeys = 100
