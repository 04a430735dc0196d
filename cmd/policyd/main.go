// Command policyd serves the Policygen API on one machine: the same handlers
// as the Lambda functions, over an embedded bbolt store by default.
//
//	policyd [--addr 127.0.0.1:8080] [--store bolt:.data/policygen.db|dynamodb:TABLE]
//	        [--pepper-file PATH | --pepper-secret ID] [--key-cache-ttl 5s]
//
// On first start with an empty store it creates a demo Agency account and
// prints its API key and a curl command to try. Logs are JSON on stderr, one
// line per request.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/backend"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "policyd:", err)
		os.Exit(1)
	}
}

// DemoRequest is the generation request of the printed curl command.
const demoRequest = `{"type":"privacy","businessName":"Demo Shop","websiteUrl":"https://shop.example.com",` +
	`"businessType":"ecommerce","language":"en","jurisdiction":"EU","collectsPayments":true,` +
	`"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["stripe","google-analytics"],` +
	`"contactEmail":"privacy@shop.example.com"}`

// run is the whole program; it returns when ctx is cancelled (after a
// graceful shutdown) or when serving fails.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("policyd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address `host:port`")
	spec := fs.String("store", "bolt:.data/policygen.db", "store: "+backend.Forms)
	pepperFile := fs.String("pepper-file", "", "file holding the API key pepper, created if missing (default for bolt:PATH: <directory of PATH>/pepper)")
	pepperSecret := fs.String("pepper-secret", "", "Secrets Manager secret id holding the pepper, for dynamodb:TABLE (default $PEPPER_SECRET_ID)")
	cacheTTL := fs.Duration("key-cache-ttl", auth.DefaultCacheTTL, "how long a verified key is trusted without a store read (0 turns the cache off); bounds how late a revocation is seen")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}

	level := slog.LevelInfo
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := level.UnmarshalText([]byte(v)); err != nil {
			return fmt.Errorf("LOG_LEVEL: %w", err)
		}
	}
	logHandler := slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})
	logger := slog.New(logHandler)

	st, err := backend.Open(ctx, *spec)
	if err != nil {
		return err
	}
	defer st.Close()
	// Both flags at once are a mistake; an explicit --pepper-file wins over
	// PEPPER_SECRET_ID in the environment, as in policyctl.
	if *pepperFile != "" && *pepperSecret != "" {
		return errors.New("give --pepper-file or --pepper-secret, not both")
	}
	pepper, err := backend.Pepper(ctx, *spec, *pepperFile, *pepperSecret, getenv)
	if err != nil {
		return err
	}
	hasher := &auth.Hasher{Pepper: pepper}
	authn := &auth.Authenticator{Store: st, Hasher: hasher, CacheTTL: *cacheTTL}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "policyd listening on %s (store %s)\n", base, *spec)
	// The policyctl command line the restart hint prints: the same store
	// and pepper, or the keys it mints would never authenticate here.
	ctl := "go run ./cmd/policyctl --store " + *spec
	if *pepperFile != "" {
		ctl += " --pepper-file " + *pepperFile
	} else if *pepperSecret != "" {
		ctl += " --pepper-secret " + *pepperSecret
	}
	// The first store call: a store that does not answer ends the start
	// within its deadline (store.CallTimeout) instead of serving nothing.
	if err := seed(ctx, st, hasher, base, *spec, ctl, stdout); err != nil {
		return fmt.Errorf("store %s: %w", *spec, err)
	}

	srv := &http.Server{
		Handler:           api.NewServer(api.Deps{Store: st, Auth: authn, Now: time.Now, Logger: logger}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logHandler, slog.LevelWarn),
		// net/http would answer "OPTIONS *" itself (200, no X-Request-Id,
		// no log line); the API answers it like any unknown route.
		DisableGeneralOptionsHandler: true,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	logger.Info("serving", "addr", ln.Addr().String(), "store", *spec)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// seed creates the demo Agency account on an empty store and prints its key
// and a curl command; on a store with accounts it prints the policyctl
// command lines (ctl) that mint a key.
func seed(ctx context.Context, st store.Store, h *auth.Hasher, base, spec, ctl string, stdout io.Writer) error {
	has, err := st.HasAccounts(ctx)
	if err != nil {
		return fmt.Errorf("check for accounts: %w", err)
	}
	if has {
		fmt.Fprintf(stdout, "The store has accounts.")
		if strings.HasPrefix(spec, "bolt:") {
			// policyctl cannot open the file while this process holds its lock.
			fmt.Fprintf(stdout, " Stop policyd first (it locks the store file), then")
		}
		fmt.Fprintf(stdout, " mint an API key for an account, or create a new Agency account, with:\n"+
			"  %s key create --account ACCOUNT_ID\n"+
			"  %s account create --email you@example.com --plan agency\n", ctl, ctl)
		return nil
	}
	now := time.Now().UTC()
	a := account.Account{
		ID:        ids.New(ids.Account),
		Email:     "demo@example.com",
		Name:      "Demo Agency",
		Plan:      account.Agency,
		CreatedAt: now.Truncate(time.Second),
	}
	if err := st.CreateAccount(ctx, a); err != nil {
		return fmt.Errorf("create demo account: %w", err)
	}
	key, _, err := auth.Issue(ctx, st, h, a.ID, now, nil)
	if err != nil {
		return fmt.Errorf("create demo key: %w", err)
	}
	body, _ := json.Marshal(json.RawMessage(demoRequest)) // compact, validated JSON
	fmt.Fprintf(stdout, "Created demo Agency account %s (demo@example.com).\n", a.ID)
	fmt.Fprintf(stdout, "API key (shown once, only its hash is stored):\n  %s\n", key)
	fmt.Fprintf(stdout, "Generate a policy:\n")
	fmt.Fprintf(stdout, "curl -sS -X POST '%s/v1/policies/generate' -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '%s'\n",
		base, key, body)
	return nil
}
