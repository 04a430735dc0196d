// Package backend opens the Store named by a --store flag value, and the
// API-key pepper that goes with it, so every command (policyd, policyctl)
// accepts the same specs and finds the same pepper:
//
//	bolt:PATH        the embedded store in file PATH (created if missing)
//	dynamodb:TABLE   DynamoDB table TABLE, with the default AWS configuration
//	                 (AWS_ENDPOINT_URL_DYNAMODB points it at DynamoDB Local)
package backend

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/policygen/policygen/pkg/awsjson"
	"github.com/policygen/policygen/pkg/ddb"
	"github.com/policygen/policygen/pkg/secrets"
	"github.com/policygen/policygen/pkg/secrets/awssecrets"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/bolt"
	"github.com/policygen/policygen/pkg/store/dynamo"
)

// Forms lists the accepted spec forms, for flag help and errors.
const Forms = "bolt:PATH or dynamodb:TABLE"

// tableName is DynamoDB's rule for table names.
var tableName = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`)

// Open opens the store named by spec, every call bounded by
// store.CallTimeout. Opening a DynamoDB store does no
// network I/O; a missing table shows up on first use.
func Open(ctx context.Context, spec string) (store.Store, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return nil, fmt.Errorf("invalid store %q: want %s", spec, Forms)
	}
	switch kind {
	case "bolt":
		st, err := bolt.Open(arg)
		if err != nil {
			return nil, err
		}
		return store.WithDeadline(st, store.CallTimeout), nil
	case "dynamodb":
		if !tableName.MatchString(arg) {
			return nil, fmt.Errorf("invalid store %q: %q is not a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -)", spec, arg)
		}
		client, err := DynamoClient(ctx)
		if err != nil {
			return nil, err
		}
		return store.WithDeadline(dynamo.New(client, arg), store.CallTimeout), nil
	default:
		return nil, fmt.Errorf("invalid store %q: unknown kind %q; want %s", spec, kind, Forms)
	}
}

// EnvPepperSecretID names the Secrets Manager secret of the pepper when no
// flag does and the store is not a bolt file (as in a deployed function).
const EnvPepperSecretID = "PEPPER_SECRET_ID"

// ErrNoPepper is Pepper's answer for a store other than bolt with no pepper
// source named.
var ErrNoPepper = errors.New("a DynamoDB store needs the pepper the API uses: --pepper-secret ID (or PEPPER_SECRET_ID), or --pepper-file PATH")

// Pepper returns the source of the API-key pepper for the store named by
// spec: the file at path file if given; else the Secrets Manager secret
// secretID (when "" and the store is not bolt, $PEPPER_SECRET_ID through
// getenv); else, for bolt:PATH, the file "pepper" beside PATH, which policyd
// creates on first start. policyd and policyctl share this rule because a
// key minted by one must authenticate in the other, and there is no silent
// fallback. Giving both file and secretID is the caller's to reject. Only
// the AWS configuration is loaded here; the secret is read on first use.
func Pepper(ctx context.Context, spec, file, secretID string, getenv func(string) string) (secrets.Source, error) {
	boltPath, isBolt := strings.CutPrefix(spec, "bolt:")
	if secretID == "" && !isBolt {
		secretID = getenv(EnvPepperSecretID)
	}
	switch {
	case file != "":
		return secrets.NewFile(file), nil
	case secretID != "":
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, fmt.Errorf("load AWS config: %w", err)
		}
		// The endpoint from the process environment, like the rest of
		// the default configuration.
		return awssecrets.New(awssecrets.ClientFromConfig(cfg, os.Getenv), secretID, 0), nil
	case isBolt:
		return secrets.NewFile(filepath.Join(filepath.Dir(boltPath), "pepper")), nil
	}
	return nil, ErrNoPepper
}

// DynamoClient returns a DynamoDB client from the default AWS configuration
// (environment, shared files, the Lambda role), honouring dynamo.EndpointEnv. It
// does no network I/O: credentials are resolved on the first request. It
// lives here, not in pkg/store/dynamo, because the default configuration
// links the STS, SSO and sign-in clients an operator's profile may need and
// a Lambda function never does (pkg/lambdaenv/awsenv builds its own).
//
// When dynamo.EndpointEnv names a loopback address (DynamoDB Local), fixed dummy
// credentials and, if none is configured, region us-east-1 are used, so a
// local run needs no AWS setup; real AWS is never on loopback.
func DynamoClient(ctx context.Context) (*ddb.Client, error) {
	var opts []func(*config.LoadOptions) error
	if isLoopback(os.Getenv(dynamo.EndpointEnv)) {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
		if os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") == "" {
			opts = append(opts, config.WithRegion("us-east-1"))
		}
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	return ddb.New(cfg, awsjson.EndpointFromEnv(os.Getenv, dynamo.EndpointEnv)), nil
}

func isLoopback(endpoint string) bool {
	if endpoint == "" {
		return false
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
