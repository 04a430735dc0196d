package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/auth/passwords"
	"github.com/policygen/policygen/pkg/errs"
)

type userOut struct {
	Email     string `json:"email"`
	AccountID string `json:"accountId"`
	Created   bool   `json:"created"`
}

// userSetPassword sets (or first creates) the dashboard user of an account:
// how an account made by an operator, the demo account included, gets a
// password. Existing sessions stay signed in until they expire.
func (c *cli) userSetPassword(ctx context.Context, args []string) error {
	const cmd = "user set-password"
	fs := newFlagSet(cmd)
	id := fs.String("account", "", "account id")
	emailFlag := fs.String("email", "", "the user's email (default: the account's)")
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
	email := account.NormalizeEmail(*emailFlag)
	if email == "" {
		email = account.NormalizeEmail(a.Email)
	}
	password, err := c.readPassword()
	if err != nil {
		return err
	}
	if err := passwords.Check(password, email); err != nil {
		return usagef("%s: %s", cmd, errs.As(err).Message)
	}
	hash, err := passwords.Hash(password)
	if err != nil {
		return err
	}
	u, err := st.User(ctx, email)
	switch {
	case err == nil && u.AccountID != a.ID:
		return fmt.Errorf("%s: %s is the user of account %s, not %s", cmd, email, u.AccountID, a.ID)
	case err == nil:
		if err := st.SetPassword(ctx, email, hash); err != nil {
			return err
		}
		return c.print(userOut{Email: email, AccountID: a.ID})
	case !errs.Is(err, errs.NotFound):
		return err
	}
	u = account.User{Email: email, AccountID: a.ID, PasswordHash: hash, CreatedAt: c.now().UTC().Truncate(1e9)}
	if err := st.CreateUser(ctx, u, nil); err != nil {
		return err
	}
	return c.print(userOut{Email: email, AccountID: a.ID, Created: true})
}

// readPassword reads the new password: on a terminal it asks twice without
// echo; otherwise it reads the first line of standard input (a pipe or a
// file), so it never appears in the command line or shell history.
func (c *cli) readPassword() (string, error) {
	if f, ok := c.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(c.stderr, "New password: ")
		p1, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(c.stderr)
		if err != nil {
			return "", err
		}
		fmt.Fprint(c.stderr, "Repeat it: ")
		p2, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(c.stderr)
		if err != nil {
			return "", err
		}
		if string(p1) != string(p2) {
			return "", usagef("user set-password: the two passwords differ")
		}
		return string(p1), nil
	}
	line, err := bufio.NewReader(io.LimitReader(c.stdin, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", usagef("user set-password: give the password on standard input, e.g. from a file or a password manager's output")
	}
	return line, nil
}
