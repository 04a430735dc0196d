package dynamo

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/account"
)

// Items are built and read attribute by attribute, not by the SDK's
// feature/dynamodb/attributevalue, whose import links the DynamoDB Streams
// types and the package init of their schemas into every function that
// stores (docs/DECISIONS.md, 33). The attributes are the ones
// attributevalue wrote with the json tag names (item_test.go compares the
// two): strings S (empty ones too), times S in RFC 3339 with nanoseconds,
// integers N, bools BOOL, bytes B (NULL when nil), and omitempty fields
// left out when zero (nil, for pointers and bytes).

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func timeAttr(t time.Time) types.AttributeValue { return str(t.Format(time.RFC3339Nano)) }

func boolAttr(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }

func bytesAttr(b []byte) types.AttributeValue {
	if b == nil {
		return &types.AttributeValueMemberNULL{Value: true}
	}
	return &types.AttributeValueMemberB{Value: b}
}

func (it accountItem) attrs() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		AttrPK: str(it.PK), AttrSK: str(it.SK),
		"id": str(it.ID), "email": str(it.Email), "name": str(it.Name), "plan": str(string(it.Plan)),
		"createdAt": timeAttr(it.CreatedAt),
	}
}

func (it *accountItem) decode(m map[string]types.AttributeValue) error {
	r := reader{m: m}
	r.str(AttrPK, &it.PK)
	r.str(AttrSK, &it.SK)
	r.str("id", &it.ID)
	r.str("email", &it.Email)
	r.str("name", &it.Name)
	plan := string(it.Plan)
	r.str("plan", &plan)
	it.Plan = account.Plan(plan)
	r.time("createdAt", &it.CreatedAt)
	return r.err
}

func (it keyItem) attrs() map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{
		AttrPK: str(it.PK), AttrSK: str(it.SK),
		"id": str(it.ID), "accountId": str(it.AccountID), "hash": str(it.Hash),
		"prefix": str(it.Prefix), "last4": str(it.Last4), "createdAt": timeAttr(it.CreatedAt),
	}
	if it.ExpiresAt != nil {
		m["expiresAt"] = timeAttr(*it.ExpiresAt)
	}
	if it.RevokedAt != nil {
		m["revokedAt"] = timeAttr(*it.RevokedAt)
	}
	if it.LastUsedAt != nil {
		m["lastUsedAt"] = timeAttr(*it.LastUsedAt)
	}
	if it.TTL != nil {
		m[AttrTTL] = number(*it.TTL)
	}
	return m
}

func (it *keyItem) decode(m map[string]types.AttributeValue) error {
	r := reader{m: m}
	r.str(AttrPK, &it.PK)
	r.str(AttrSK, &it.SK)
	r.str("id", &it.ID)
	r.str("accountId", &it.AccountID)
	r.str("hash", &it.Hash)
	r.str("prefix", &it.Prefix)
	r.str("last4", &it.Last4)
	r.time("createdAt", &it.CreatedAt)
	r.timePtr("expiresAt", &it.ExpiresAt)
	r.timePtr("revokedAt", &it.RevokedAt)
	r.timePtr("lastUsedAt", &it.LastUsedAt)
	r.int64Ptr(AttrTTL, &it.TTL)
	return r.err
}

func (it keyIDItem) attrs() map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{
		AttrPK: str(it.PK), AttrSK: str(it.SK),
		"hash": str(it.Hash), "accountId": str(it.AccountID),
	}
	if it.TTL != nil {
		m[AttrTTL] = number(*it.TTL)
	}
	return m
}

func (it *keyIDItem) decode(m map[string]types.AttributeValue) error {
	r := reader{m: m}
	r.str(AttrPK, &it.PK)
	r.str(AttrSK, &it.SK)
	r.str("hash", &it.Hash)
	r.str("accountId", &it.AccountID)
	r.int64Ptr(AttrTTL, &it.TTL)
	return r.err
}

func (it policyItem) attrs() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{AttrPK: str(it.PK), AttrSK: str(it.SK), "sum": bytesAttr(it.Summary)}
}

func (it *policyItem) decode(m map[string]types.AttributeValue) error {
	r := reader{m: m}
	r.str(AttrPK, &it.PK)
	r.str(AttrSK, &it.SK)
	r.bytes("sum", &it.Summary)
	return r.err
}

func (it contentItem) attrs() map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{
		AttrPK: str(it.PK), AttrSK: str(it.SK),
		"sum": bytesAttr(it.Summary), "content": bytesAttr(it.Content),
	}
	if it.TTL != nil {
		m[AttrTTL] = number(*it.TTL)
	}
	return m
}

func (it *contentItem) decode(m map[string]types.AttributeValue) error {
	r := reader{m: m}
	r.str(AttrPK, &it.PK)
	r.str(AttrSK, &it.SK)
	r.bytes("sum", &it.Summary)
	r.bytes("content", &it.Content)
	r.int64Ptr(AttrTTL, &it.TTL)
	return r.err
}

func (it idemItem) attrs() map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{
		AttrPK: str(it.PK), AttrSK: str(it.SK),
		"fp": str(it.Fingerprint), "owner": str(it.Owner), "done": boolAttr(it.Done),
		"leaseUntil": number(it.LeaseUntil), "createdAt": number(it.CreatedAt),
		AttrTTL: number(it.TTL),
	}
	if it.Status != 0 {
		m["status"] = number(int64(it.Status))
	}
	if it.Location != "" {
		m["location"] = str(it.Location)
	}
	if it.Body != nil {
		m["body"] = bytesAttr(it.Body)
	}
	if it.Ref != "" {
		m["ref"] = str(it.Ref)
	}
	if it.Cut != 0 {
		m["cut"] = number(int64(it.Cut))
	}
	return m
}

func (it *idemItem) decode(m map[string]types.AttributeValue) error {
	r := reader{m: m}
	r.str(AttrPK, &it.PK)
	r.str(AttrSK, &it.SK)
	r.str("fp", &it.Fingerprint)
	r.str("owner", &it.Owner)
	r.bool("done", &it.Done)
	r.int64("leaseUntil", &it.LeaseUntil)
	r.int64("createdAt", &it.CreatedAt)
	r.int("status", &it.Status)
	r.str("location", &it.Location)
	r.bytes("body", &it.Body)
	r.str("ref", &it.Ref)
	r.int("cut", &it.Cut)
	r.int64(AttrTTL, &it.TTL)
	return r.err
}

func (it userItem) attrs() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		AttrPK: str(it.PK), AttrSK: str(it.SK),
		"email": str(it.Email), "accountId": str(it.AccountID), "passwordHash": str(it.PasswordHash),
		"createdAt": timeAttr(it.CreatedAt),
	}
}

func (it *userItem) decode(m map[string]types.AttributeValue) error {
	r := reader{m: m}
	r.str(AttrPK, &it.PK)
	r.str(AttrSK, &it.SK)
	r.str("email", &it.Email)
	r.str("accountId", &it.AccountID)
	r.str("passwordHash", &it.PasswordHash)
	r.time("createdAt", &it.CreatedAt)
	return r.err
}

func (it sessionItem) attrs() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		AttrPK: str(it.PK), AttrSK: str(it.SK),
		"hash": str(it.Hash), "email": str(it.Email), "accountId": str(it.AccountID),
		"createdAt": timeAttr(it.CreatedAt), "expiresAt": timeAttr(it.ExpiresAt),
		AttrTTL: number(it.TTL),
	}
}

func (it *sessionItem) decode(m map[string]types.AttributeValue) error {
	r := reader{m: m}
	r.str(AttrPK, &it.PK)
	r.str(AttrSK, &it.SK)
	r.str("hash", &it.Hash)
	r.str("email", &it.Email)
	r.str("accountId", &it.AccountID)
	r.time("createdAt", &it.CreatedAt)
	r.time("expiresAt", &it.ExpiresAt)
	r.int64(AttrTTL, &it.TTL)
	return r.err
}

func (it *countItem) decode(m map[string]types.AttributeValue) error {
	r := reader{m: m}
	r.int64("count", &it.Count)
	return r.err
}

// reader reads attributes of an item into Go values as attributevalue
// did: a missing attribute leaves the value as it is, NULL sets it to
// zero, and any other type than the one written is an error (the first is
// kept in err).
type reader struct {
	m   map[string]types.AttributeValue
	err error
}

// get returns the named attribute, or nil when it is missing or NULL
// (after zero has been called) or a previous read failed.
func (r *reader) get(name string, zero func()) types.AttributeValue {
	if r.err != nil {
		return nil
	}
	v, ok := r.m[name]
	if !ok {
		return nil
	}
	if _, null := v.(*types.AttributeValueMemberNULL); null {
		zero()
		return nil
	}
	return v
}

func (r *reader) fail(name string, v types.AttributeValue, want string) {
	r.err = fmt.Errorf("attribute %q: %T, want %s", name, v, want)
}

func (r *reader) str(name string, dst *string) {
	v := r.get(name, func() { *dst = "" })
	if v == nil {
		return
	}
	if s, ok := r.s(name, v); ok {
		*dst = s
	}
}

func (r *reader) s(name string, v types.AttributeValue) (string, bool) {
	s, ok := v.(*types.AttributeValueMemberS)
	if !ok {
		r.fail(name, v, "S")
		return "", false
	}
	return s.Value, true
}

func (r *reader) time(name string, dst *time.Time) {
	v := r.get(name, func() { *dst = time.Time{} })
	if v == nil {
		return
	}
	if t, ok := r.parseTime(name, v); ok {
		*dst = t
	}
}

func (r *reader) timePtr(name string, dst **time.Time) {
	v := r.get(name, func() { *dst = nil })
	if v == nil {
		return
	}
	if t, ok := r.parseTime(name, v); ok {
		*dst = &t
	}
}

func (r *reader) parseTime(name string, v types.AttributeValue) (time.Time, bool) {
	s, ok := r.s(name, v)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		r.err = fmt.Errorf("attribute %q: %w", name, err)
		return time.Time{}, false
	}
	return t, true
}

func (r *reader) int64(name string, dst *int64) {
	v := r.get(name, func() { *dst = 0 })
	if v == nil {
		return
	}
	if n, ok := r.parseInt(name, v, 64); ok {
		*dst = n
	}
}

func (r *reader) int64Ptr(name string, dst **int64) {
	v := r.get(name, func() { *dst = nil })
	if v == nil {
		return
	}
	if n, ok := r.parseInt(name, v, 64); ok {
		*dst = &n
	}
}

func (r *reader) int(name string, dst *int) {
	v := r.get(name, func() { *dst = 0 })
	if v == nil {
		return
	}
	if n, ok := r.parseInt(name, v, strconv.IntSize); ok {
		*dst = int(n)
	}
}

func (r *reader) parseInt(name string, v types.AttributeValue, bits int) (int64, bool) {
	n, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		r.fail(name, v, "N")
		return 0, false
	}
	i, err := strconv.ParseInt(n.Value, 10, bits)
	if err != nil {
		r.err = fmt.Errorf("attribute %q: %w", name, err)
		return 0, false
	}
	return i, true
}

func (r *reader) bool(name string, dst *bool) {
	v := r.get(name, func() { *dst = false })
	if v == nil {
		return
	}
	b, ok := v.(*types.AttributeValueMemberBOOL)
	if !ok {
		r.fail(name, v, "BOOL")
		return
	}
	*dst = b.Value
}

func (r *reader) bytes(name string, dst *[]byte) {
	v := r.get(name, func() { *dst = nil })
	if v == nil {
		return
	}
	b, ok := v.(*types.AttributeValueMemberB)
	if !ok {
		r.fail(name, v, "B")
		return
	}
	*dst = b.Value
}

// decodeJSON reads an item into v, a struct with json tags, through its
// JSON form: for the summary attributes of items written before issue 9
// (legacyPolicyItem), whose request grows a field with every new question,
// and which no new item has.
func decodeJSON(m map[string]types.AttributeValue, v any) error {
	j, err := json.Marshal(jsonValue(&types.AttributeValueMemberM{Value: m}))
	if err != nil {
		return err
	}
	return json.Unmarshal(j, v)
}

// jsonValue is an attribute value as encoding/json marshals it into what
// the attribute was written from: numbers verbatim, bytes as base64.
func jsonValue(v types.AttributeValue) any {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return json.Number(v.Value)
	case *types.AttributeValueMemberB:
		return v.Value
	case *types.AttributeValueMemberBOOL:
		return v.Value
	case *types.AttributeValueMemberSS:
		return v.Value
	case *types.AttributeValueMemberNS:
		ns := make([]json.Number, len(v.Value))
		for i, n := range v.Value {
			ns[i] = json.Number(n)
		}
		return ns
	case *types.AttributeValueMemberBS:
		return v.Value
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = jsonValue(e)
		}
		return l
	case *types.AttributeValueMemberM:
		m := make(map[string]any, len(v.Value))
		for k, e := range v.Value {
			m[k] = jsonValue(e)
		}
		return m
	}
	return nil // NULL
}
