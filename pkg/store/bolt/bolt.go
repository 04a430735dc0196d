// Package bolt is the embedded Store: one bbolt file on local disk, for
// `make run` and single-machine use. It satisfies the same contract as the
// DynamoDB store (see storetest) and mirrors its layout: everything about a
// policy is keyed under its account, policy ids sort by time so a reverse
// cursor lists newest first, and the (compressed) content is kept apart from
// the metadata so a listing never reads it.
//
// Layout (bucket → key → value; values are JSON unless noted):
//
//	accounts            <accountId>             account.Account
//	keys                <keyId>                 account.Key
//	keyhashes           <hash>                  <keyId>
//	policies/<acct>     <policyId>              store.Summary (no content)
//	contents/<acct>     <policyId>              compressed content (package content)
//	usage/<acct>        <YYYY-MM>               8-byte big-endian count
//	users               <email>                 account.User
//	sessions            <hash>                  account.Session
//
// A file is opened by one process at a time (bbolt holds an exclusive
// lock); a second Open fails after a short wait with a clear error.
package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bbolt "go.etcd.io/bbolt"
	bbolterrors "go.etcd.io/bbolt/errors"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/errs"
	"github.com/policygen/policygen/pkg/store"
	"github.com/policygen/policygen/pkg/store/internal/content"
	"github.com/policygen/policygen/pkg/store/internal/normalize"
)

var (
	bucketAccounts  = []byte("accounts")
	bucketKeys      = []byte("keys")
	bucketKeyHashes = []byte("keyhashes")
	bucketPolicies  = []byte("policies")
	bucketContents  = []byte("contents")
	bucketUsage     = []byte("usage")
	bucketIdem      = []byte("idempotency")
	bucketUsers     = []byte("users")
	bucketSessions  = []byte("sessions")
)

// lockTimeout is how long Open waits for another process to release the
// file before giving up.
var lockTimeout = 2 * time.Second

// ErrInUse is returned by Open when another process holds the file.
var ErrInUse = errors.New("store is in use by another process")

// Store is a store.Store in a bbolt file.
type Store struct {
	db *bbolt.DB
	// rates counts requests per key and window in memory: the file is
	// locked to this one process, so the count is exact without a disk
	// write (and fsync) per request. Counters of ended windows are dropped.
	rates rateCounter
	// group commits the writes of concurrent requests on the generate
	// path (policies and idempotency records) together: one fsync for all.
	group *groupCommit
}

var _ store.Store = (*Store)(nil)

// Open opens (creating if needed) the store file at path, and its parent
// directory. The file is readable by its owner only: it holds key hashes.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("bolt store: %w", err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockTimeout, NoFreelistSync: true, FreelistType: bbolt.FreelistMapType, InitialMmapSize: 1 << 28})
	if errors.Is(err, bbolterrors.ErrTimeout) {
		return nil, fmt.Errorf("bolt store %s: %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("bolt store %s: %w", path, err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{bucketAccounts, bucketKeys, bucketKeyHashes, bucketPolicies, bucketContents, bucketUsage, bucketIdem, bucketUsers, bucketSessions} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		if err := dropPendingClaims(tx); err != nil {
			return err
		}
		return dropExpiredSessions(tx, time.Now())
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("bolt store %s: %w", path, err)
	}
	return &Store{db: db, group: &groupCommit{db: db}}, nil
}

// Close releases the file.
func (s *Store) Close() error { return s.db.Close() }

// CreateAccount implements store.Store.
func (s *Store) CreateAccount(ctx context.Context, a account.Account) error {
	a.CreatedAt = a.CreatedAt.UTC()
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAccounts)
		if b.Get([]byte(a.ID)) != nil {
			return store.ErrExists
		}
		return putJSON(b, a.ID, a)
	})
}

// Account implements store.Store.
func (s *Store) Account(ctx context.Context, id string) (account.Account, error) {
	var a account.Account
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		return getJSON(tx.Bucket(bucketAccounts), id, &a, store.ErrAccountNotFound)
	})
	return a, err
}

// SetPlan implements store.Store.
func (s *Store) SetPlan(ctx context.Context, accountID string, plan account.Plan) error {
	return s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAccounts)
		var a account.Account
		if err := getJSON(b, accountID, &a, store.ErrAccountNotFound); err != nil {
			return err
		}
		a.Plan = plan
		return putJSON(b, a.ID, a)
	})
}

// HasAccounts implements store.Store.
func (s *Store) HasAccounts(ctx context.Context) (bool, error) {
	var has bool
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		k, _ := tx.Bucket(bucketAccounts).Cursor().First()
		has = k != nil
		return nil
	})
	return has, err
}

// CreateKey implements store.Store.
func (s *Store) CreateKey(ctx context.Context, k account.Key) error {
	k = normalize.Key(k)
	return s.update(ctx, func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketAccounts).Get([]byte(k.AccountID)) == nil {
			return store.ErrAccountNotFound
		}
		keys, hashes := tx.Bucket(bucketKeys), tx.Bucket(bucketKeyHashes)
		if keys.Get([]byte(k.ID)) != nil || hashes.Get([]byte(k.Hash)) != nil {
			return store.ErrExists
		}
		if err := hashes.Put([]byte(k.Hash), []byte(k.ID)); err != nil {
			return err
		}
		return putJSON(keys, k.ID, k)
	})
}

// KeyByHash implements store.Store.
func (s *Store) KeyByHash(ctx context.Context, hash string) (account.Key, error) {
	var k account.Key
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketKeyHashes).Get([]byte(hash))
		if id == nil {
			return store.ErrKeyNotFound
		}
		return getJSON(tx.Bucket(bucketKeys), string(id), &k, store.ErrKeyNotFound)
	})
	return k, err
}

// Key implements store.Store.
func (s *Store) Key(ctx context.Context, id string) (account.Key, error) {
	var k account.Key
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		return getJSON(tx.Bucket(bucketKeys), id, &k, store.ErrKeyNotFound)
	})
	return k, err
}

// RevokeKey implements store.Store.
func (s *Store) RevokeKey(ctx context.Context, id string, at time.Time) (account.Key, error) {
	var k account.Key
	err := s.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketKeys)
		if err := getJSON(b, id, &k, store.ErrKeyNotFound); err != nil {
			return err
		}
		at = at.UTC()
		if k.RevokedAt != nil && !at.Before(*k.RevokedAt) {
			return nil // the earlier revocation stands
		}
		k.RevokedAt = &at
		return putJSON(b, k.ID, k)
	})
	return k, err
}

// ListAccounts implements store.Store.
func (s *Store) ListAccounts(ctx context.Context) ([]account.Account, error) {
	var out []account.Account
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketAccounts).ForEach(func(_, v []byte) error {
			var a account.Account
			if err := json.Unmarshal(v, &a); err != nil {
				return err
			}
			a.CreatedAt = a.CreatedAt.UTC()
			out = append(out, a)
			return nil
		})
	})
	return out, err
}

// AccountKeys implements store.Store: a walk of the keys bucket (an
// operator's listing; the bucket holds every account's keys).
func (s *Store) AccountKeys(ctx context.Context, accountID string) ([]account.Key, error) {
	var out []account.Key
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketAccounts).Get([]byte(accountID)) == nil {
			return store.ErrAccountNotFound
		}
		return tx.Bucket(bucketKeys).ForEach(func(_, v []byte) error {
			var k account.Key
			if err := json.Unmarshal(v, &k); err != nil {
				return err
			}
			if k.AccountID == accountID {
				out = append(out, normalize.Key(k))
			}
			return nil
		})
	})
	return out, err
}

// CreatePolicy implements store.Store.
func (s *Store) CreatePolicy(ctx context.Context, p store.Policy, opt store.CreateOptions) error {
	if p.ID == "" || p.AccountID == "" {
		return errs.E(errs.Internal, "invalid_policy", "policy id and account id are required")
	}
	meta, err := json.Marshal(normalize.Summary(p.Summary))
	if err != nil {
		return fmt.Errorf("bolt store: encode policy: %w", err)
	}
	// Compress outside the write transaction: bbolt has one writer at a time.
	// CompressFast: this file is not billed by the byte, and the generate
	// path spends a quarter of Compress's time on it (DECISIONS.md 34).
	gz, err := content.CompressFast(p.Content)
	if err == nil && len(gz) > store.MaxStoredContent {
		// The limit is the DynamoDB store's, on what Compress writes: what
		// it accepts, this store accepts too.
		gz, err = content.Compress(p.Content)
	}
	if err != nil {
		return fmt.Errorf("bolt store: %w", err)
	}
	if len(gz) > store.MaxStoredContent {
		return store.ErrTooLarge // the DynamoDB store's limit, kept here too
	}
	var idemBody []byte
	if r := opt.Idempotency; r != nil {
		if idemBody, err = content.CompressFast(string(r.Body)); err != nil {
			return fmt.Errorf("bolt store: %w", err)
		}
	}
	return s.groupUpdate(ctx, func(tx *bbolt.Tx) error {
		return writePolicy(tx, p, meta, gz, idemBody, opt)
	})
}

// writePolicy is CreatePolicy's write: p's summary and content, encoded as
// meta and gz, its account's usage count, and with opt.Idempotency its
// record, completed with idemBody (r.Body compressed).
func writePolicy(tx *bbolt.Tx, p store.Policy, meta, gz, idemBody []byte, opt store.CreateOptions) error {
	policies, err := accountBucket(tx, bucketPolicies, p.AccountID, true)
	if err != nil {
		return err
	}
	if policies.Get([]byte(p.ID)) != nil {
		return store.ErrExists
	}
	contents, err := accountBucket(tx, bucketContents, p.AccountID, true)
	if err != nil {
		return err
	}
	// Policy ids sort by time, so both buckets grow at their end
	// (appendFill).
	policies.FillPercent, contents.FillPercent = appendFill, appendFill
	usage, err := accountBucket(tx, bucketUsage, p.AccountID, true)
	if err != nil {
		return err
	}
	if err := policies.Put([]byte(p.ID), meta); err != nil {
		return err
	}
	if err := contents.Put([]byte(p.ID), gz); err != nil {
		return err
	}
	month := []byte(store.Month(p.CreatedAt))
	used := decodeCount(usage.Get(month))
	if opt.Quota > 0 && used >= uint64(opt.Quota) {
		return store.ErrQuotaExceeded // bbolt rolls the puts above back
	}
	if r := opt.Idempotency; r != nil {
		if err := completeIdem(tx, *r, idemBody); err != nil {
			return err
		}
	}
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], used+1)
	return usage.Put(month, n[:])
}

// appendFill is the FillPercent of the buckets keyed by policy id. Ids
// sort by time, so a new policy's key goes at the end, and bbolt's default
// (split a page when it is half full, which suits inserts anywhere) leaves
// every page behind it half empty: more pages in each commit and in the
// file. bbolt documents 1.0 for append-only buckets; a little room is left
// so that a policy whose id was made a moment before the last one's, and
// which joined a later group, does not split a full page. Pages come out
// full when a commit adds several policies to the last one, as group
// commits under load do (bbolt never splits off fewer than half of a
// page's keys when it has few). bbolt does not keep the setting: it is set
// on the bucket in each transaction.
const appendFill = 0.95

// Policy implements store.Store.
func (s *Store) Policy(ctx context.Context, accountID, id string) (store.Policy, error) {
	var (
		p        store.Policy
		packed   []byte
		notFound = store.ErrPolicyNotFound
	)
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		policies, _ := accountBucket(tx, bucketPolicies, accountID, false)
		contents, _ := accountBucket(tx, bucketContents, accountID, false)
		if policies == nil || contents == nil {
			return notFound
		}
		if err := getJSON(policies, id, &p.Summary, notFound); err != nil {
			return err
		}
		c := contents.Get([]byte(id))
		if c == nil {
			return fmt.Errorf("bolt store: policy %s has no content", id)
		}
		// bbolt's slices are valid only inside the transaction.
		packed = bytes.Clone(c)
		return nil
	})
	if err != nil {
		return store.Policy{}, err
	}
	p.AccountID = accountID
	p.Summary = normalize.Summary(p.Summary)
	if p.Content, err = content.Decompress(packed); err != nil {
		return store.Policy{}, fmt.Errorf("bolt store: policy %s: %w", id, err)
	}
	return p, nil
}

// ListPolicies implements store.Store.
func (s *Store) ListPolicies(ctx context.Context, accountID string, opt store.ListOptions) (store.Page, error) {
	if opt.Limit < 1 || opt.Limit > store.MaxListLimit {
		return store.Page{}, errs.E(errs.Invalid, "invalid_limit", "limit must be between 1 and %d", store.MaxListLimit)
	}
	var page store.Page
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		policies, _ := accountBucket(tx, bucketPolicies, accountID, false)
		if policies == nil {
			return nil
		}
		c := policies.Cursor()
		var k, v []byte
		if opt.After == "" {
			k, v = c.Last()
		} else {
			// Start strictly before After, whether or not it still exists.
			if k, _ = c.Seek([]byte(opt.After)); k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		}
		for ; k != nil; k, v = c.Prev() {
			if len(page.Items) == opt.Limit {
				page.Next = page.Items[len(page.Items)-1].ID
				break
			}
			var sum store.Summary
			if err := json.Unmarshal(v, &sum); err != nil {
				return fmt.Errorf("bolt store: decode policy %s: %w", k, err)
			}
			sum.AccountID = accountID
			page.Items = append(page.Items, normalize.Summary(sum))
		}
		return nil
	})
	if err != nil {
		return store.Page{}, err
	}
	if page.Items == nil {
		page.Items = []store.Summary{}
	}
	return page, nil
}

// DeletePolicy implements store.Store.
func (s *Store) DeletePolicy(ctx context.Context, accountID, id string) error {
	return s.groupUpdate(ctx, func(tx *bbolt.Tx) error {
		policies, _ := accountBucket(tx, bucketPolicies, accountID, false)
		if policies == nil || policies.Get([]byte(id)) == nil {
			return store.ErrPolicyNotFound
		}
		if err := policies.Delete([]byte(id)); err != nil {
			return err
		}
		if contents, _ := accountBucket(tx, bucketContents, accountID, false); contents != nil {
			return contents.Delete([]byte(id))
		}
		return nil
	})
}

// GenerationCount implements store.Store.
func (s *Store) GenerationCount(ctx context.Context, accountID, month string) (int, error) {
	var n uint64
	err := s.view(ctx, func(tx *bbolt.Tx) error {
		if usage, _ := accountBucket(tx, bucketUsage, accountID, false); usage != nil {
			n = decodeCount(usage.Get([]byte(month)))
		}
		return nil
	})
	return int(n), err
}

// idemRecord is an idempotency key's record as stored.
type idemRecord struct {
	Fingerprint string    `json:"fp"`
	Owner       string    `json:"owner"`
	Done        bool      `json:"done"`
	LeaseUntil  time.Time `json:"leaseUntil"`
	CreatedAt   time.Time `json:"createdAt"`
	Status      int       `json:"status,omitempty"`
	Location    string    `json:"location,omitempty"`
	Body        []byte    `json:"body,omitempty"` // compressed (package content)
}

// BeginIdempotent implements store.Store.
func (s *Store) BeginIdempotent(ctx context.Context, c store.IdempotencyClaim, fingerprint string, now time.Time) (*store.IdempotencyRecord, error) {
	var held *store.IdempotencyRecord
	err := s.groupUpdate(ctx, func(tx *bbolt.Tx) error {
		held = nil // the function may run again (groupCommit)
		b, err := accountBucket(tx, bucketIdem, c.AccountID, true)
		if err != nil {
			return err
		}
		var old idemRecord
		switch err := getJSON(b, c.Key, &old, errNoRecord); {
		case errors.Is(err, errNoRecord):
		case err != nil:
			return err
		case now.Before(old.CreatedAt.Add(store.IdempotencyTTL)) && (old.Done || now.Before(old.LeaseUntil)):
			held, err = recordOf(old)
			return err
		}
		return putJSON(b, c.Key, idemRecord{
			Fingerprint: fingerprint, Owner: c.Owner,
			LeaseUntil: now.Add(store.IdempotencyLease), CreatedAt: now.UTC(),
		})
	})
	return held, err
}

var errNoRecord = errors.New("no record")

// dropPendingClaims removes the idempotency claims that never completed.
// The file is locked to one process, so at Open no request is running: a
// pending claim belongs to a process that died (kill -9, power loss) before
// its write, and nothing it claimed was stored. Dropping it lets a client's
// retry proceed at once instead of waiting for the lease to end.
func dropPendingClaims(tx *bbolt.Tx) error {
	top := tx.Bucket(bucketIdem)
	return top.ForEachBucket(func(acct []byte) error {
		b := top.Bucket(acct)
		var pending [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var r idemRecord
			if json.Unmarshal(v, &r) == nil && !r.Done {
				pending = append(pending, append([]byte(nil), k...))
			}
			return nil
		})
		for _, k := range pending {
			if err == nil {
				err = b.Delete(k)
			}
		}
		return err
	})
}

func recordOf(r idemRecord) (*store.IdempotencyRecord, error) {
	out := &store.IdempotencyRecord{Fingerprint: r.Fingerprint, Done: r.Done, Status: r.Status, Location: r.Location, CreatedAt: r.CreatedAt}
	if r.Done {
		body, err := content.Decompress(r.Body)
		if err != nil {
			return nil, fmt.Errorf("decode idempotent body: %w", err)
		}
		out.Body = []byte(body)
	}
	return out, nil
}

// CompleteIdempotent implements store.Store.
func (s *Store) CompleteIdempotent(ctx context.Context, r store.IdempotentResult) error {
	// Compressed before the write: the transaction holds bbolt's one writer.
	body, err := content.CompressFast(string(r.Body))
	if err != nil {
		return fmt.Errorf("bolt store: %w", err)
	}
	return s.groupUpdate(ctx, func(tx *bbolt.Tx) error { return completeIdem(tx, r, body) })
}

// completeIdem marks r's claim done with its outcome, body being r.Body
// compressed.
func completeIdem(tx *bbolt.Tx, r store.IdempotentResult, body []byte) error {
	b, err := accountBucket(tx, bucketIdem, r.Claim.AccountID, true)
	if err != nil {
		return err
	}
	var old idemRecord
	if err := getJSON(b, r.Claim.Key, &old, store.ErrClaimLost); err != nil {
		return err
	}
	if old.Owner != r.Claim.Owner || old.Done {
		return store.ErrClaimLost
	}
	old.Done, old.Status, old.Location, old.Body = true, r.Status, r.Location, body
	return putJSON(b, r.Claim.Key, old)
}

// ReleaseIdempotent implements store.Store.
func (s *Store) ReleaseIdempotent(ctx context.Context, c store.IdempotencyClaim) error {
	return s.groupUpdate(ctx, func(tx *bbolt.Tx) error {
		b, _ := accountBucket(tx, bucketIdem, c.AccountID, false)
		if b == nil {
			return nil
		}
		var old idemRecord
		if err := getJSON(b, c.Key, &old, nil); err != nil || old.Owner != c.Owner || old.Done {
			return err
		}
		return b.Delete([]byte(c.Key))
	})
}

// CountRequest implements store.Store, in memory (see Store.rates).
func (s *Store) CountRequest(ctx context.Context, accountID, keyID string, window time.Time, limit int) (int, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, err
	}
	n, ok := s.rates.count(accountID+"/"+keyID, window, limit)
	return n, ok, nil
}

// rateCounter holds the counts of the current windows.
type rateCounter struct {
	mu     sync.Mutex
	counts map[rateKey]int
	latest time.Time // the newest window seen; older ones are dropped
}

type rateKey struct {
	key    string
	window time.Time
}

func (c *rateCounter) count(key string, window time.Time, limit int) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = map[rateKey]int{}
	}
	if window.After(c.latest) {
		// A new window began: counters of windows before the previous one
		// can no longer be asked for by a clock that only moves forward.
		for k := range c.counts {
			if k.window.Before(c.latest) {
				delete(c.counts, k)
			}
		}
		c.latest = window
	}
	k := rateKey{key, window}
	if c.counts[k] >= limit {
		return limit, false
	}
	c.counts[k]++
	return c.counts[k], true
}

// view and update run fn in a transaction unless ctx is already done. The
// store's own errors pass through; bbolt's become internal errors.
func (s *Store) view(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return classify(s.db.View(fn))
}

func (s *Store) update(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return classify(s.db.Update(fn))
}

// groupUpdate is update through the group commit (groupCommit): fn may run
// more than once and must depend only on the transaction.
func (s *Store) groupUpdate(ctx context.Context, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return classify(s.group.update(fn))
}

func classify(err error) error {
	if err == nil || errs.As(err) != nil {
		return err
	}
	return fmt.Errorf("bolt store: %w", err)
}

// accountBucket returns the per-account bucket under top, creating it when
// create is set (in a write transaction). Without create, a missing bucket
// is (nil, nil).
func accountBucket(tx *bbolt.Tx, top []byte, accountID string, create bool) (*bbolt.Bucket, error) {
	if accountID == "" {
		return nil, nil
	}
	parent := tx.Bucket(top)
	if create {
		return parent.CreateBucketIfNotExists([]byte(accountID))
	}
	return parent.Bucket([]byte(accountID)), nil
}

func putJSON(b *bbolt.Bucket, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), data)
}

func getJSON(b *bbolt.Bucket, key string, v any, notFound error) error {
	if key == "" {
		return notFound
	}
	data := b.Get([]byte(key))
	if data == nil {
		return notFound
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %q: %w", key, err)
	}
	return nil
}

func decodeCount(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
