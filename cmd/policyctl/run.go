package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/mail"
	"strings"
	"time"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/auth"
	"github.com/policygen/policygen/pkg/backend"
	"github.com/policygen/policygen/pkg/ids"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/dynamo"
)

const usage = `policyctl administers Policygen accounts, plans, API keys and the DynamoDB table.

Usage:
  policyctl [global flags] <command> <subcommand> [flags]

Commands:
  account create   --email E --plan agency|pro|starter [--name N] [--expires-in D]
                   Create an account and its first API key.
  account show     --account ID
  account list     Every account with its keys (prefix, last4, state; never hashes).
  account set-plan --account ID --plan agency|pro|starter
                   Running functions see the change within KEY_CACHE_TTL (default 5s).
  key create       --account ID [--expires-in D]      (D is a Go duration, e.g. 720h)
  key list         --account ID                        The account's keys, revoked ones included.
  key show         --key-id ID
  key revoke       --key-id ID
                   The key stops working within KEY_CACHE_TTL (default 5s).
  key rotate       --key-id ID [--grace D]
                   Issue a new key for the same account; the old one is revoked
                   after the grace period (default 0: at once).
  user set-password --account ID [--email E]
                   Set the dashboard password of the account's user (the account's
                   email unless --email), creating the user if needed. The password
                   is read from standard input, or asked for twice without echo
                   on a terminal; at least 15 characters.
  table create     Create the DynamoDB table if missing (--store dynamodb:TABLE only).
  help             Show this text.

Global flags (before or after the command):
  --store SPEC           bolt:PATH or dynamodb:TABLE (or env POLICYGEN_STORE)
  --pepper-file PATH     file holding the API key pepper; default for bolt:PATH is
                         <directory of PATH>/pepper, the file policyd uses
  --pepper-secret ID     Secrets Manager secret holding the pepper (or env
                         PEPPER_SECRET_ID); used with dynamodb:TABLE

Environment: the standard AWS variables (AWS_REGION, AWS_PROFILE, ...);
AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL_SECRETS_MANAGER point the
clients elsewhere (DynamoDB Local).

Output is one JSON object on stdout. An apiKey is shown once: only its hash is stored.
`

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// errHelpShown ends a command whose --help printed the usage text.
var errHelpShown = errors.New("help shown")

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// run is the whole program; main only maps its error to an exit status. On
// failure the message is written to stderr and the error returned.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := &cli{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now}
	defer c.close()
	err := c.dispatch(ctx, args)
	switch {
	case err == nil:
		return nil
	case errors.As(err, new(usageError)):
		fmt.Fprintf(stderr, "policyctl: %v\nRun 'policyctl help' for usage.\n", err)
	default:
		fmt.Fprintf(stderr, "policyctl: %v\n", err)
	}
	return err
}

// cli holds the global flags and what is opened from them, lazily: a
// command that fails on its own flags never opens a store or reads a secret.
type cli struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer // prompts
	now    func() time.Time

	storeSpec    string
	pepperFile   string
	pepperSecret string

	st     store.Store
	hasher *auth.Hasher
}

func (c *cli) globalFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.storeSpec, "store", c.storeSpec, "bolt:PATH or dynamodb:TABLE")
	fs.StringVar(&c.pepperFile, "pepper-file", c.pepperFile, "file holding the key pepper")
	fs.StringVar(&c.pepperSecret, "pepper-secret", c.pepperSecret, "Secrets Manager secret id of the key pepper")
}

type command struct {
	name string // "account create"
	run  func(c *cli, ctx context.Context, args []string) error
}

var commands = []command{
	{"account create", (*cli).accountCreate},
	{"account show", (*cli).accountShow},
	{"account list", (*cli).accountList},
	{"account set-plan", (*cli).accountSetPlan},
	{"key create", (*cli).keyCreate},
	{"key list", (*cli).keyList},
	{"key show", (*cli).keyShow},
	{"key revoke", (*cli).keyRevoke},
	{"key rotate", (*cli).keyRotate},
	{"user set-password", (*cli).userSetPassword},
	{"table create", (*cli).tableCreate},
}

func (c *cli) dispatch(ctx context.Context, args []string) error {
	fs := newFlagSet("policyctl")
	c.globalFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, err := io.WriteString(c.stdout, usage)
			return err
		}
		return usageError{err.Error()}
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usagef("no command given")
	}
	if rest[0] == "help" {
		_, err := io.WriteString(c.stdout, usage)
		return err
	}
	if len(rest) < 2 {
		return usagef("unknown command %q", rest[0])
	}
	name := rest[0] + " " + rest[1]
	for _, cmd := range commands {
		if cmd.name == name {
			err := cmd.run(c, ctx, rest[2:])
			if errors.Is(err, errHelpShown) {
				return nil
			}
			return err
		}
	}
	return usagef("unknown command %q", name)
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Errors are reported once, by run, with a pointer to the help text.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses a subcommand's flags (which include the global ones),
// rejects stray arguments and requires a non-blank value for each flag
// named in required, in that order.
func (c *cli) parse(fs *flag.FlagSet, args []string, required ...string) error {
	c.globalFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			if _, err := io.WriteString(c.stdout, usage); err != nil {
				return err
			}
			return errHelpShown
		}
		return usagef("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	for _, name := range required {
		if strings.TrimSpace(fs.Lookup(name).Value.String()) == "" {
			return usagef("%s: --%s is required", fs.Name(), name)
		}
	}
	return nil
}

func (c *cli) spec() (string, error) {
	spec := c.storeSpec
	if spec == "" {
		spec = c.getenv("POLICYGEN_STORE")
	}
	if spec == "" {
		return "", usagef("--store is required: %s", backend.Forms)
	}
	return spec, nil
}

func (c *cli) store(ctx context.Context) (store.Store, error) {
	if c.st != nil {
		return c.st, nil
	}
	spec, err := c.spec()
	if err != nil {
		return nil, err
	}
	st, err := backend.Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	c.st = st
	return st, nil
}

// pepper picks the pepper source by backend.Pepper's rule, the one policyd
// follows: using a different pepper than the API would issue keys that
// never authenticate.
func (c *cli) pepper(ctx context.Context) (*auth.Hasher, error) {
	if c.hasher != nil {
		return c.hasher, nil
	}
	spec, err := c.spec()
	if err != nil {
		return nil, err
	}
	if c.pepperFile != "" && c.pepperSecret != "" {
		return nil, usagef("give --pepper-file or --pepper-secret, not both")
	}
	src, err := backend.Pepper(ctx, spec, c.pepperFile, c.pepperSecret, c.getenv)
	if errors.Is(err, backend.ErrNoPepper) {
		return nil, usageError{err.Error()}
	}
	if err != nil {
		return nil, err
	}
	c.hasher = &auth.Hasher{Pepper: src}
	return c.hasher, nil
}

// issuer opens what issuing a key takes: the store and the pepper.
func (c *cli) issuer(ctx context.Context) (store.Store, *auth.Hasher, error) {
	st, err := c.store(ctx)
	if err != nil {
		return nil, nil, err
	}
	h, err := c.pepper(ctx)
	if err != nil {
		return nil, nil, err
	}
	return st, h, nil
}

func (c *cli) close() {
	if c.st != nil {
		c.st.Close()
	}
}

func (c *cli) print(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Output shapes. Times are RFC 3339 UTC in whole seconds, as the API
// prints them; absent times are null.

// stamp is a time printed as the API prints times.
type stamp time.Time

func (s stamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(s).UTC().Format(time.RFC3339) + `"`), nil
}

func stampOf(t *time.Time) *stamp {
	if t == nil {
		return nil
	}
	s := stamp(*t)
	return &s
}

type accountOut struct {
	AccountID string       `json:"accountId"`
	Email     string       `json:"email"`
	Name      string       `json:"name"`
	Plan      account.Plan `json:"plan"`
	APIAccess bool         `json:"apiAccess"`
	CreatedAt stamp        `json:"createdAt"`
	// Keys is filled by account list only.
	Keys []keyOut `json:"keys,omitempty"`
}

func newAccountOut(a account.Account) accountOut {
	return accountOut{AccountID: a.ID, Email: a.Email, Name: a.Name, Plan: a.Plan, APIAccess: a.Plan.HasAPIAccess(), CreatedAt: stamp(a.CreatedAt)}
}

// keyOut never has a field for the key's hash: nothing printed can leak it.
type keyOut struct {
	KeyID     string `json:"keyId"`
	APIKey    string `json:"apiKey,omitempty"` // only when just issued
	AccountID string `json:"accountId"`
	Prefix    string `json:"prefix"`
	Last4     string `json:"last4"`
	Status    string `json:"status"`
	CreatedAt stamp  `json:"createdAt"`
	ExpiresAt *stamp `json:"expiresAt"`
	RevokedAt *stamp `json:"revokedAt"`
}

func newKeyOut(k account.Key, secret string, now time.Time) keyOut {
	return keyOut{
		KeyID: k.ID, APIKey: secret, AccountID: k.AccountID, Prefix: k.Prefix, Last4: k.Last4,
		Status: keyStatus(k, now), CreatedAt: stamp(k.CreatedAt), ExpiresAt: stampOf(k.ExpiresAt), RevokedAt: stampOf(k.RevokedAt),
	}
}

func keysOut(keys []account.Key, now time.Time) []keyOut {
	out := make([]keyOut, len(keys))
	for i, k := range keys {
		out[i] = newKeyOut(k, "", now)
	}
	return out
}

func keyStatus(k account.Key, now time.Time) string {
	switch {
	case k.RevokedAt != nil && !now.Before(*k.RevokedAt):
		return "revoked"
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return "expired"
	case k.RevokedAt != nil:
		return "active-until-revocation"
	default:
		return "active"
	}
}

func parsePlan(cmd, s string) (account.Plan, error) {
	p, ok := account.ParsePlan(strings.TrimSpace(s))
	if !ok {
		names := make([]string, len(account.Plans))
		for i, p := range account.Plans {
			names[i] = string(p)
		}
		return "", usagef("%s: unknown plan %q: want one of %s", cmd, s, strings.Join(names, ", "))
	}
	return p, nil
}

// parseEmail accepts a bare address (no display name): it is an identifier
// shown back to operators and users, so it is stored exactly as checked.
func parseEmail(cmd, s string) (string, error) {
	s = strings.TrimSpace(s)
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Name != "" || addr.Address != s || !strings.Contains(s[strings.LastIndex(s, "@")+1:], ".") {
		return "", usagef("%s: invalid --email %q: want an address like name@example.com", cmd, s)
	}
	return s, nil
}

// expiry turns --expires-in into an absolute time (nil when not given).
func expiry(cmd string, d time.Duration, now time.Time) (*time.Time, error) {
	switch {
	case d == 0:
		return nil, nil
	case d < 0:
		return nil, usagef("%s: --expires-in must be positive", cmd)
	}
	t := now.Add(d).UTC()
	return &t, nil
}

func (c *cli) accountCreate(ctx context.Context, args []string) error {
	const cmd = "account create"
	fs := newFlagSet(cmd)
	email := fs.String("email", "", "owner's email address")
	planName := fs.String("plan", "", "agency, pro or starter")
	name := fs.String("name", "", "account name")
	expiresIn := fs.Duration("expires-in", 0, "lifetime of the first key")
	if err := c.parse(fs, args, "email", "plan"); err != nil {
		return err
	}
	addr, err := parseEmail(cmd, *email)
	if err != nil {
		return err
	}
	plan, err := parsePlan(cmd, *planName)
	if err != nil {
		return err
	}
	now := c.now().UTC()
	exp, err := expiry(cmd, *expiresIn, now)
	if err != nil {
		return err
	}
	st, h, err := c.issuer(ctx)
	if err != nil {
		return err
	}
	// Read the pepper before creating anything, so a missing secret does
	// not leave an account without a key.
	if _, err := h.Pepper.Value(ctx); err != nil {
		return fmt.Errorf("read pepper: %w", err)
	}
	a := account.Account{ID: ids.New(ids.Account), Email: addr, Name: strings.TrimSpace(*name), Plan: plan, CreatedAt: now}
	if err := st.CreateAccount(ctx, a); err != nil {
		return err
	}
	secret, k, err := auth.Issue(ctx, st, h, a.ID, now, exp)
	if err != nil {
		return fmt.Errorf("account %s created, but issuing its key failed (retry with 'key create --account %s'): %w", a.ID, a.ID, err)
	}
	return c.print(struct {
		accountOut
		KeyID     string `json:"keyId"`
		APIKey    string `json:"apiKey"`
		KeyLast4  string `json:"keyLast4"`
		ExpiresAt *stamp `json:"expiresAt"`
	}{newAccountOut(a), k.ID, secret, k.Last4, stampOf(k.ExpiresAt)})
}

func (c *cli) accountShow(ctx context.Context, args []string) error {
	const cmd = "account show"
	fs := newFlagSet(cmd)
	id := fs.String("account", "", "account id")
	if err := c.parse(fs, args, "account"); err != nil {
		return err
	}
	st, err := c.store(ctx)
	if err != nil {
		return err
	}
	a, err := st.Account(ctx, *id)
	if err != nil {
		return err
	}
	return c.print(newAccountOut(a))
}

func (c *cli) accountList(ctx context.Context, args []string) error {
	fs := newFlagSet("account list")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	st, err := c.store(ctx)
	if err != nil {
		return err
	}
	accts, err := st.ListAccounts(ctx)
	if err != nil {
		return err
	}
	out := struct {
		Accounts []accountOut `json:"accounts"`
	}{Accounts: []accountOut{}}
	for _, a := range accts {
		keys, err := st.AccountKeys(ctx, a.ID)
		if err != nil {
			return err
		}
		ao := newAccountOut(a)
		ao.Keys = keysOut(keys, c.now())
		out.Accounts = append(out.Accounts, ao)
	}
	return c.print(out)
}

func (c *cli) accountSetPlan(ctx context.Context, args []string) error {
	const cmd = "account set-plan"
	fs := newFlagSet(cmd)
	id := fs.String("account", "", "account id")
	planName := fs.String("plan", "", "agency, pro or starter")
	if err := c.parse(fs, args, "account", "plan"); err != nil {
		return err
	}
	plan, err := parsePlan(cmd, *planName)
	if err != nil {
		return err
	}
	st, err := c.store(ctx)
	if err != nil {
		return err
	}
	if err := st.SetPlan(ctx, *id, plan); err != nil {
		return err
	}
	a, err := st.Account(ctx, *id)
	if err != nil {
		return err
	}
	return c.print(newAccountOut(a))
}

func (c *cli) keyCreate(ctx context.Context, args []string) error {
	const cmd = "key create"
	fs := newFlagSet(cmd)
	id := fs.String("account", "", "account id")
	expiresIn := fs.Duration("expires-in", 0, "key lifetime, e.g. 720h (default: no expiry)")
	if err := c.parse(fs, args, "account"); err != nil {
		return err
	}
	now := c.now().UTC()
	exp, err := expiry(cmd, *expiresIn, now)
	if err != nil {
		return err
	}
	st, h, err := c.issuer(ctx)
	if err != nil {
		return err
	}
	secret, k, err := auth.Issue(ctx, st, h, *id, now, exp)
	if err != nil {
		return err
	}
	return c.print(newKeyOut(k, secret, now))
}

func (c *cli) keyList(ctx context.Context, args []string) error {
	fs := newFlagSet("key list")
	id := fs.String("account", "", "account id")
	if err := c.parse(fs, args, "account"); err != nil {
		return err
	}
	st, err := c.store(ctx)
	if err != nil {
		return err
	}
	keys, err := st.AccountKeys(ctx, *id)
	if err != nil {
		return err
	}
	return c.print(struct {
		AccountID string   `json:"accountId"`
		Keys      []keyOut `json:"keys"`
	}{*id, keysOut(keys, c.now())})
}

func (c *cli) keyShow(ctx context.Context, args []string) error {
	const cmd = "key show"
	fs := newFlagSet(cmd)
	id := fs.String("key-id", "", "key id")
	if err := c.parse(fs, args, "key-id"); err != nil {
		return err
	}
	st, err := c.store(ctx)
	if err != nil {
		return err
	}
	k, err := st.Key(ctx, *id)
	if err != nil {
		return err
	}
	return c.print(newKeyOut(k, "", c.now()))
}

func (c *cli) keyRevoke(ctx context.Context, args []string) error {
	const cmd = "key revoke"
	fs := newFlagSet(cmd)
	id := fs.String("key-id", "", "key id")
	if err := c.parse(fs, args, "key-id"); err != nil {
		return err
	}
	st, err := c.store(ctx)
	if err != nil {
		return err
	}
	now := c.now().UTC()
	k, err := st.RevokeKey(ctx, *id, now)
	if err != nil {
		return err
	}
	return c.print(newKeyOut(k, "", now))
}

func (c *cli) keyRotate(ctx context.Context, args []string) error {
	const cmd = "key rotate"
	fs := newFlagSet(cmd)
	id := fs.String("key-id", "", "key id")
	grace := fs.Duration("grace", 0, "how long the old key keeps working, e.g. 24h")
	if err := c.parse(fs, args, "key-id"); err != nil {
		return err
	}
	if *grace < 0 {
		return usagef("%s: --grace must not be negative", cmd)
	}
	st, h, err := c.issuer(ctx)
	if err != nil {
		return err
	}
	now := c.now().UTC()
	secret, newKey, oldKey, err := auth.Rotate(ctx, st, h, *id, now, now.Add(*grace))
	if err != nil && secret == "" {
		return err
	}
	out := struct {
		keyOut
		OldKey keyOut `json:"oldKey"`
	}{newKeyOut(newKey, secret, now), newKeyOut(oldKey, "", now)}
	if perr := c.print(out); perr != nil {
		return perr
	}
	// The new key exists and its secret was just printed; the revocation
	// of the old one failed and must be retried with 'key revoke'.
	return err
}

func (c *cli) tableCreate(ctx context.Context, args []string) error {
	const cmd = "table create"
	fs := newFlagSet(cmd)
	if err := c.parse(fs, args); err != nil {
		return err
	}
	spec, err := c.spec()
	if err != nil {
		return err
	}
	table, ok := strings.CutPrefix(spec, "dynamodb:")
	if !ok || table == "" {
		return usagef("%s: needs --store dynamodb:TABLE (a bolt store needs no setup)", cmd)
	}
	client, err := backend.DynamoClient(ctx)
	if err != nil {
		return err
	}
	if err := dynamo.CreateTable(ctx, client, table); err != nil {
		return err
	}
	return c.print(struct {
		Table  string `json:"table"`
		Status string `json:"status"`
	}{table, "active"})
}
