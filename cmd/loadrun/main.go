// Command loadrun is the bounded load generator of `make bench`: it runs
// concurrent workers against POST /v1/policies/generate and
// GET /v1/policies/{id} for a fixed time or request count, whichever ends
// first, and prints requests/s and p50/p99 latency per endpoint.
//
// By default it starts the API in-process on 127.0.0.1 over a temporary
// bolt store with a fresh Agency key, so it needs nothing running.
//
// With --compare it measures issue 9's target 4 instead: every worker
// first calls a trivial JSON handler served by the same server, then
// generates, each for the whole duration, and it prints generate's
// throughput as a fraction of the trivial handler's. With
// --url and --key it targets a running policyd instead, but only on the
// loopback interface: it is a benchmark, not a load-testing tool for other
// people's servers.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/gcpolicy"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/store/bolt"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "loadrun:", err)
		os.Exit(1)
	}
}

// Hard bounds, whatever the flags say.
const (
	maxDuration = time.Minute
	maxRequests = 100_000
	maxWorkers  = 64
)

const body = `{"type":"privacy","businessName":"Load Test Ltd","websiteUrl":"https://load.example",` +
	`"businessType":"saas","jurisdiction":"EU","collectsPayments":true,"collectsUserData":true,` +
	`"usesAnalytics":true,"thirdPartyServices":["stripe","google-analytics"]}`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("url", "", "base URL of a running policyd on 127.0.0.1/::1/localhost (default: start one in-process)")
	key := fs.String("key", "", "Agency API key for --url")
	workers := fs.Int("workers", 4, "concurrent workers, half generating and half reading (2-64)")
	duration := fs.Duration("duration", 5*time.Second, "stop after this long (max 1m)")
	requests := fs.Int("requests", 4000, "stop after this many requests in all (max 100000); with --compare, in each phase")
	compare := fs.Bool("compare", false, "compare generate with a trivial JSON handler on the same in-process server, all workers on one then the other")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (client and in-process server) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *compare && *target != "" {
		return errors.New("--compare needs the in-process server (no --url): a running policyd has no trivial handler")
	}
	if *workers < 2 || *workers > maxWorkers || *duration <= 0 || *duration > maxDuration || *requests < 1 || *requests > maxRequests {
		return fmt.Errorf("want 2-%d workers, a duration up to %s and 1-%d requests", maxWorkers, maxDuration, maxRequests)
	}

	base, apiKey := *target, *key
	if base == "" {
		srv, k, cleanup, err := startServer(ctx)
		if err != nil {
			return err
		}
		defer cleanup()
		base, apiKey = srv, k
	} else {
		if err := loopbackOnly(base); err != nil {
			return err
		}
		if apiKey == "" {
			return errors.New("--url needs --key")
		}
	}

	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: *workers, MaxConnsPerHost: *workers},
	}
	defer client.CloseIdleConnections()
	l := &load{client: client, base: base, key: apiKey}
	// Something to GET from the start.
	for range 4 {
		if _, err := l.generate(ctx); err != nil {
			return fmt.Errorf("warm-up generate: %w", err)
		}
	}
	// The warm-up is not part of the measured run: its requests fall outside
	// the timed window and would inflate requests/s and the tail.
	l.latencies, l.errors = nil, nil

	if *compare {
		return l.compare(ctx, stdout, *workers, *duration, *requests)
	}
	elapsed := l.phase(ctx, *workers, *duration, *requests, func(ctx context.Context, w int) {
		// Even workers generate, odd ones read, so both endpoints see
		// load throughout the run and a slow generate does not hold
		// back the reads.
		if w%2 == 0 {
			l.generate(ctx)
		} else {
			l.get(ctx)
		}
	})
	fmt.Fprintf(stdout, "loadrun: %d workers, %s, against %s\n", *workers, elapsed.Round(time.Millisecond), l.base)
	l.report(stdout, elapsed, "generate", "get")
	return nil
}

// phase runs workers calling call until the duration or the requests run
// out, and returns how long it took.
func (l *load) phase(ctx context.Context, workers int, duration time.Duration, requests int, call func(ctx context.Context, worker int)) time.Duration {
	ctx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	var (
		issued atomic.Int64
		wg     sync.WaitGroup
	)
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for ctx.Err() == nil && issued.Add(1) <= int64(requests) {
				call(ctx, w)
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// TargetRatio is issue 9's target 4: generate at least 1/10 of a trivial
// handler's throughput.
const TargetRatio = 10

// compareRounds: the phases alternate this many times, so that a noisy
// neighbour on the machine weighs on both sides alike.
const compareRounds = 3

// compare runs the trivial handler's phase, then generate's, with the same
// workers on the same server, compareRounds times over, and prints both
// and their ratio.
func (l *load) compare(ctx context.Context, w io.Writer, workers int, duration time.Duration, requests int) error {
	elapsed := map[string]time.Duration{}
	slice := duration / compareRounds
	for range compareRounds {
		elapsed["trivial"] += l.phase(ctx, workers, slice, requests/compareRounds, func(ctx context.Context, _ int) { l.trivial(ctx) })
		elapsed["generate"] += l.phase(ctx, workers, slice, requests/compareRounds, func(ctx context.Context, _ int) { l.generate(ctx) })
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	fmt.Fprintf(w, "loadrun --compare: %d workers, %s per endpoint in %d alternating rounds, against %s\n", workers, duration, compareRounds, l.base)
	l.reportPhases(w, elapsed, "trivial", "generate")
	l.mu.Lock()
	rate := func(ep string) float64 {
		return float64(len(l.latencies[ep])-l.errors[ep]) / elapsed[ep].Seconds()
	}
	tr, gr := rate("trivial"), rate("generate")
	l.mu.Unlock()
	if gr == 0 {
		return errors.New("no generate succeeded")
	}
	verdict := "met"
	if tr/gr > TargetRatio {
		verdict = "NOT met"
	}
	fmt.Fprintf(w, "generate/trivial throughput: 1/%.1f (issue 9 target: at least 1/%d: %s)\n", tr/gr, TargetRatio, verdict)
	return nil
}

// startServer serves the API on 127.0.0.1 over a temporary bolt store and
// returns its base URL and an Agency key.
func startServer(ctx context.Context) (base, key string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "loadrun-*")
	if err != nil {
		return "", "", nil, err
	}
	// The collector's setting policyd runs with, so that the in-process
	// server measures what policyd does.
	gcpolicy.Set(os.Getenv)
	st, err := bolt.Open(filepath.Join(dir, "policygen.db"))
	if err != nil {
		os.RemoveAll(dir)
		return "", "", nil, err
	}
	hasher := &auth.Hasher{Pepper: secrets.NewStatic([]byte(rand.Text()))}
	now := time.Now().UTC()
	a := account.Account{ID: ids.New(ids.Account), Email: "load@example.com", Name: "Load", Plan: account.Agency, CreatedAt: now}
	err = st.CreateAccount(ctx, a)
	if err == nil {
		key, _, err = auth.Issue(ctx, st, hasher, a.ID, now, nil)
	}
	if err != nil {
		st.Close()
		os.RemoveAll(dir)
		return "", "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.Close()
		os.RemoveAll(dir)
		return "", "", nil, err
	}
	apiHandler := api.NewServer(api.Deps{
		Store:  st,
		Auth:   &auth.Authenticator{Store: st, Hasher: hasher, CacheTTL: auth.DefaultCacheTTL},
		Logger: slog.New(slog.DiscardHandler),
		// The run measures the server, not the plan's limits: one key
		// makes thousands of requests. The counters still run.
		Limits: func(account.Plan) account.Limits {
			return account.Limits{MonthlyGenerations: 1 << 30, RequestsPerMinute: 1 << 30}
		},
	})
	// The yardstick of --compare: the least a JSON endpoint can do on this
	// server (no authentication, no store), beside the API.
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+trivialPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}` + "\n"))
	})
	mux.Handle("/", apiHandler)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), key, func() {
		srv.Close()
		st.Close()
		os.RemoveAll(dir)
	}, nil
}

func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("--url %q: want http://127.0.0.1:PORT", raw)
	}
	h := u.Hostname()
	if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--url %q: only loopback addresses are allowed", raw)
	}
	return nil
}

type load struct {
	client    *http.Client
	base, key string

	mu        sync.Mutex
	ids       []string
	latencies map[string][]time.Duration
	errors    map[string]int
}

func (l *load) record(endpoint string, d time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.latencies == nil {
		l.latencies, l.errors = map[string][]time.Duration{}, map[string]int{}
	}
	l.latencies[endpoint] = append(l.latencies[endpoint], d)
	if !ok {
		l.errors[endpoint]++
	}
}

func (l *load) do(ctx context.Context, endpoint, method, path string, body []byte, want int) ([]byte, error) {
	out, _, err := l.doHeader(ctx, endpoint, method, path, body, want)
	return out, err
}

// doHeader is do, also returning the response's header.
func (l *load) doHeader(ctx context.Context, endpoint, method, path string, body []byte, want int) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, method, l.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+l.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := l.client.Do(req)
	var out []byte
	var h http.Header
	if err == nil {
		h = resp.Header
		out, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != want {
			err = fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, out)
		}
	}
	if ctx.Err() != nil {
		return nil, nil, ctx.Err() // cut off by the deadline: not a measurement
	}
	l.record(endpoint, time.Since(start), err == nil)
	return out, h, err
}

func (l *load) generate(ctx context.Context) (string, error) {
	// The id comes from Location, as a client that only needs it would
	// read it: decoding the whole body here would make the load generator,
	// which shares the machine with the server, part of what is measured.
	_, h, err := l.doHeader(ctx, "generate", "POST", "/v1/policies/generate", []byte(body), http.StatusCreated)
	if err != nil {
		return "", err
	}
	id, ok := strings.CutPrefix(h.Get("Location"), "/v1/policies/")
	if !ok || id == "" {
		return "", fmt.Errorf("generate: Location %q is not /v1/policies/{id}", h.Get("Location"))
	}
	l.mu.Lock()
	l.ids = append(l.ids, id)
	l.mu.Unlock()
	return id, nil
}

// trivialPath is the in-process server's trivial JSON handler.
const trivialPath = "/bench/trivial"

func (l *load) trivial(ctx context.Context) error {
	_, err := l.do(ctx, "trivial", "GET", trivialPath, nil, http.StatusOK)
	return err
}

func (l *load) get(ctx context.Context) error {
	l.mu.Lock()
	id := l.ids[len(l.latencies["get"])%len(l.ids)]
	l.mu.Unlock()
	_, err := l.do(ctx, "get", "GET", "/v1/policies/"+id, nil, http.StatusOK)
	return err
}

func (l *load) report(w io.Writer, elapsed time.Duration, endpoints ...string) {
	d := map[string]time.Duration{}
	for _, ep := range endpoints {
		d[ep] = elapsed
	}
	l.reportPhases(w, d, endpoints...)
}

// reportPhases prints a row per endpoint, its rate over its own phase.
func (l *load) reportPhases(w io.Writer, elapsed map[string]time.Duration, endpoints ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\trequests\terrors\treq/s\tp50\tp99\t")
	for _, ep := range endpoints {
		lat := slices.Clone(l.latencies[ep])
		slices.Sort(lat)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%s\t%s\t\n", ep, len(lat), l.errors[ep],
			float64(len(lat))/elapsed[ep].Seconds(), quantile(lat, 0.50), quantile(lat, 0.99))
	}
	tw.Flush()
}

// quantile uses the nearest-rank method on sorted latencies.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(i, 0)].Round(time.Microsecond)
}
