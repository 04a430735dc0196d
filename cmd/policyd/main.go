// Command policyd serves the Policygen API on one machine: the same handlers
// as the Lambda functions, over an embedded bbolt store by default.
//
//	policyd [--addr 127.0.0.1:8080] [--store bolt:.data/policygen.db|dynamodb:TABLE]
//	        [--pepper-file PATH | --pepper-secret ID] [--key-cache-ttl 5s]
//	        [--tls-cert FILE --tls-key FILE [--http-redirect-addr :80]] [--insecure-http]
//
// Plain HTTP is served only on loopback unless --insecure-http says a proxy
// in front terminates TLS. On first start with an empty store and a loopback
// address it creates a demo Agency account and prints its API key and a curl
// command to try. Logs are JSON on stderr, one
// line per request.
package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/auth/passwords"
	"github.com/policygen/policygen/pkg/backend"
	"github.com/policygen/policygen/pkg/gcpolicy"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/web"
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
	tlsCert := fs.String("tls-cert", "", "PEM certificate (chain) file: serve HTTPS (with --tls-key)")
	tlsKey := fs.String("tls-key", "", "PEM private key file of --tls-cert")
	redirectAddr := fs.String("http-redirect-addr", "", "also listen for plain HTTP on `host:port` and answer every request with 308 to the HTTPS address (needs --tls-cert)")
	insecure := fs.Bool("insecure-http", false, "allow plain HTTP on a non-loopback address (only behind a proxy that terminates TLS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	tlsCfg, err := transport(*addr, *tlsCert, *tlsKey, *redirectAddr, *insecure)
	if err != nil {
		return err
	}

	level := slog.LevelInfo
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := level.UnmarshalText([]byte(v)); err != nil {
			return fmt.Errorf("LOG_LEVEL: %w", err)
		}
	}
	logHandler := slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})
	logger := slog.New(logHandler)

	gcpolicy.Set(getenv)
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
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
		base = "https://" + ln.Addr().String()
	}
	fmt.Fprintf(stdout, "policyd listening on %s (store %s)\n", base, *spec)
	var redirect *http.Server
	if *redirectAddr != "" {
		rln, err := net.Listen("tcp", *redirectAddr)
		if err != nil {
			return err
		}
		_, httpsPort, _ := net.SplitHostPort(ln.Addr().String())
		redirect = &http.Server{Handler: redirectToHTTPS(httpsPort), ReadHeaderTimeout: 10 * time.Second}
		go redirect.Serve(rln)
		defer redirect.Close()
		fmt.Fprintf(stdout, "policyd redirecting http://%s to %s\n", rln.Addr(), base)
	}
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
	// A demo key is printed only where nobody else can be listening: on
	// loopback. Anywhere else accounts are made with policyctl.
	if isLoopback(*addr) {
		if err := seed(ctx, st, hasher, base, *spec, ctl, stdout); err != nil {
			return fmt.Errorf("store %s: %w", *spec, err)
		}
	} else {
		if _, err := st.HasAccounts(ctx); err != nil {
			return fmt.Errorf("store %s: check for accounts: %w", *spec, err)
		}
		fmt.Fprintf(stdout, "Not on loopback: no demo account. Create accounts and keys with:\n  %s account create --email you@example.com --plan agency\n", ctl)
	}

	dashboard, err := web.New(web.Deps{Store: st, Hasher: hasher, Now: time.Now, Logger: logger})
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           web.Mount(dashboard, api.NewServer(api.Deps{Store: st, Auth: authn, Now: time.Now, Logger: logger})),
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

// isLoopback reports whether a listen address is on the loopback interface
// only ("127.0.0.1:8080", "[::1]:0", "localhost:8080"); an empty host means
// every interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// transport checks the TLS flags and returns the TLS configuration, or nil
// for plain HTTP. Plain HTTP is refused on a non-loopback address unless
// insecure is set: bearer keys would cross the network in clear text.
func transport(addr, certFile, keyFile, redirectAddr string, insecure bool) (*tls.Config, error) {
	if (certFile == "") != (keyFile == "") {
		return nil, errors.New("give both --tls-cert and --tls-key, or neither")
	}
	if certFile == "" {
		if redirectAddr != "" {
			return nil, errors.New("--http-redirect-addr redirects to HTTPS: it needs --tls-cert and --tls-key")
		}
		if !isLoopback(addr) && !insecure {
			return nil, fmt.Errorf("refusing to serve plain HTTP on %s, which is not a loopback address: API keys would cross the network in clear text. "+
				"Serve HTTPS with --tls-cert and --tls-key, or pass --insecure-http if a proxy in front terminates TLS", addr)
		}
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("load TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// redirectToHTTPS answers every plain-HTTP request with 308 Permanent
// Redirect to the same host, path and query on the HTTPS port. 308 keeps
// the method and body (RFC 9110 §15.4.9), so a POST is retried as a POST.
func redirectToHTTPS(httpsPort string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if strings.Contains(host, ":") {
			host = "[" + host + "]" // IPv6 literal
		}
		if httpsPort != "443" {
			host += ":" + httpsPort
		}
		u := url.URL{Scheme: "https", Host: host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
		w.Header().Set("Location", u.String())
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusPermanentRedirect)
	})
}

// demoPassword is a random 24-character password (120 bits).
func demoPassword() string {
	return strings.ToLower(rand.Text()[:24])
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
		fmt.Fprintf(stdout, " mint an API key for an account, create a new Agency account, or set an account's dashboard password with:\n"+
			"  %s key create --account ACCOUNT_ID\n"+
			"  %s account create --email you@example.com --plan agency\n"+
			"  %s user set-password --account ACCOUNT_ID < password.txt\n", ctl, ctl, ctl)
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
	// A dashboard user for the demo account, with a random password shown
	// here once: the dashboard is ready to try, as the API is.
	password := demoPassword()
	hash, err := passwords.Hash(password)
	if err != nil {
		return err
	}
	if err := st.CreateUser(ctx, account.User{Email: a.Email, AccountID: a.ID, PasswordHash: hash, CreatedAt: a.CreatedAt}, nil); err != nil {
		return fmt.Errorf("create demo user: %w", err)
	}
	body, _ := json.Marshal(json.RawMessage(demoRequest)) // compact, validated JSON
	fmt.Fprintf(stdout, "Created demo Agency account %s (demo@example.com).\n", a.ID)
	fmt.Fprintf(stdout, "Dashboard: %s/ (sign in as %s with password %s; shown once)\n", base, a.Email, password)
	fmt.Fprintf(stdout, "API key (shown once, only its hash is stored):\n  %s\n", key)
	fmt.Fprintf(stdout, "Generate a policy:\n")
	fmt.Fprintf(stdout, "curl -sS -X POST '%s/v1/policies/generate' -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '%s'\n",
		base, key, body)
	return nil
}
