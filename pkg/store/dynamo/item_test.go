package dynamo

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/store"
)

// The store wrote its items with attributevalue (json tag names) until
// issue 9's cold-start work; item.go writes and reads them by hand. These
// tests hold item.go to attributevalue's output and reading, so that the
// table's items keep their shape and every stored item reads as before.

func avMarshal(t *testing.T, v any) map[string]types.AttributeValue {
	t.Helper()
	m, err := attributevalue.MarshalMapWithOptions(v, func(o *attributevalue.EncoderOptions) { o.TagKey = "json" })
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func avUnmarshal(m map[string]types.AttributeValue, v any) error {
	return attributevalue.UnmarshalMapWithOptions(m, v, func(o *attributevalue.DecoderOptions) { o.TagKey = "json" })
}

// itemCase is one item type: values of it (the first with every field
// set by fill, so a field added to the type and not to item.go fails the
// tests; the last sparse, with zero and nil fields), and its encoding and
// decoding by item.go.
type itemCase struct {
	name   string
	values []any
	attrs  func(any) map[string]types.AttributeValue
	// decode reads m into a copy of into with item.go and returns it.
	decode func(into any, m map[string]types.AttributeValue) (any, error)
}

func caseOf[T any, P interface {
	*T
	decode(map[string]types.AttributeValue) error
}](name string, set, sparse T, attrs func(T) map[string]types.AttributeValue) itemCase {
	var filled T
	fill(reflect.ValueOf(&filled).Elem())
	c := itemCase{name: name, values: []any{filled, set, sparse}}
	if attrs != nil {
		c.attrs = func(v any) map[string]types.AttributeValue { return attrs(v.(T)) }
	}
	c.decode = func(into any, m map[string]types.AttributeValue) (any, error) {
		v := into.(T)
		err := P(&v).decode(m)
		return v, err
	}
	return c
}

func itemCases() []itemCase {
	at := time.Date(2026, 11, 26, 14, 3, 4, 123456789, time.FixedZone("", 3600))
	whole := time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC)
	later, ttl := at.Add(time.Hour), int64(1_800_000_000)
	return []itemCase{
		caseOf("account",
			accountItem{PK: "ACCOUNT#acct_1", SK: skAccount, Account: account.Account{ID: "acct_1", Email: "a@example.com", Name: "A & Co", Plan: account.Agency, CreatedAt: at}},
			accountItem{PK: "ACCOUNT#acct_2", SK: skAccount},
			accountItem.attrs),
		caseOf("key",
			keyItem{PK: "KEY#h", SK: skKey, Key: account.Key{ID: "key_1", AccountID: "acct_1", Hash: "h", Prefix: "pol_live_", Last4: "abcd", CreatedAt: whole, ExpiresAt: &later, RevokedAt: &at, LastUsedAt: &whole}, TTL: &ttl},
			keyItem{PK: "KEY#h2", SK: skKey, Key: account.Key{ID: "key_2", CreatedAt: at}},
			keyItem.attrs),
		caseOf("key id",
			keyIDItem{PK: "KEYID#key_1", SK: skKeyID, Hash: "h", AccountID: "acct_1", TTL: &ttl},
			keyIDItem{PK: "KEYID#key_2", SK: skKeyID},
			keyIDItem.attrs),
		caseOf("policy",
			policyItem{PK: "ACCOUNT#acct_1", SK: "POLICY#pol_1", Summary: []byte{4, 1, 2, 3}},
			policyItem{PK: "ACCOUNT#acct_1", SK: "POLICY#pol_2"},
			policyItem.attrs),
		caseOf("content",
			contentItem{PK: "ACCOUNT#acct_1", SK: "CONTENT#pol_1", Summary: []byte{4, 1}, Content: []byte{5, 0, 9}, TTL: &ttl},
			contentItem{PK: "ACCOUNT#acct_1", SK: "CONTENT#pol_2", Summary: []byte{}, Content: nil},
			contentItem.attrs),
		caseOf("idempotency",
			idemItem{PK: "ACCOUNT#acct_1", SK: "IDEM#k", Fingerprint: "fp", Owner: "own", Done: true, LeaseUntil: 1_700_000_000_123, CreatedAt: 1_700_000_000_000, Status: 201, Location: "/v1/policies/pol_1", Body: []byte{4, 7}, Ref: "pol_1", Cut: 42, TTL: ttl},
			idemItem{PK: "ACCOUNT#acct_1", SK: "IDEM#k2", Body: []byte{}},
			idemItem.attrs),
		caseOf("user",
			userItem{PK: "USER#a@example.com", SK: skUser, User: account.User{Email: "a@example.com", AccountID: "acct_1", PasswordHash: "$argon2id$v=19$...", CreatedAt: at}},
			userItem{PK: "USER#b@example.com", SK: skUser},
			userItem.attrs),
		caseOf("session",
			sessionItem{PK: "SESSION#h", SK: skSession, Session: account.Session{Hash: "h", Email: "a@example.com", AccountID: "acct_1", CreatedAt: at, ExpiresAt: later}, TTL: later.Unix()},
			sessionItem{PK: "SESSION#h2", SK: skSession},
			sessionItem.attrs),
		caseOf[countItem]("count", countItem{Count: 7}, countItem{}, nil),
	}
}

// TestItemsAsAttributeValueWroteThem: every item type's attributes are the
// ones attributevalue made of the same value, names, types and values.
func TestItemsAsAttributeValueWroteThem(t *testing.T) {
	for _, c := range itemCases() {
		if c.attrs == nil {
			continue // never written whole (ADD on the counter)
		}
		for _, v := range c.values {
			if got, want := c.attrs(v), avMarshal(t, v); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %+v:\n got %s\nwant %s", c.name, v, describe(got), describe(want))
			}
		}
	}
}

// TestItemsReadAsAttributeValueReadThem: every item type reads what was
// written as attributevalue read it, including into a value already set
// (a missing attribute leaves a field alone, NULL zeroes it), and refuses
// an attribute of the wrong type.
func TestItemsReadAsAttributeValueReadThem(t *testing.T) {
	for _, c := range itemCases() {
		filled, sparse := c.values[0], c.values[len(c.values)-1]
		full := avMarshal(t, filled)
		nulls := map[string]types.AttributeValue{}
		for name := range full {
			nulls[name] = &types.AttributeValueMemberNULL{Value: true}
		}
		zero := reflect.Zero(reflect.TypeOf(filled)).Interface()
		tcs := []struct {
			what string
			into any
			m    map[string]types.AttributeValue
		}{
			{"sparse over full", filled, avMarshal(t, sparse)},
			{"full over sparse", sparse, full},
			{"NULLs over full", filled, nulls},
			{"nothing over full", filled, map[string]types.AttributeValue{}},
		}
		for i, v := range c.values {
			tcs = append(tcs, struct {
				what string
				into any
				m    map[string]types.AttributeValue
			}{fmt.Sprint("value ", i), zero, avMarshal(t, v)})
		}
		for _, tc := range tcs {
			got, err := c.decode(tc.into, tc.m)
			if err != nil {
				t.Errorf("%s, %s: %v", c.name, tc.what, err)
				continue
			}
			want := reflect.New(reflect.TypeOf(filled))
			want.Elem().Set(reflect.ValueOf(tc.into))
			if err := avUnmarshal(tc.m, want.Interface()); err != nil {
				t.Fatalf("%s, %s: attributevalue: %v", c.name, tc.what, err)
			}
			if !reflect.DeepEqual(got, want.Elem().Interface()) {
				t.Errorf("%s, %s:\n got %+v\nwant %+v", c.name, tc.what, got, want.Elem().Interface())
			}
		}
		for name := range full {
			bad := map[string]types.AttributeValue{name: &types.AttributeValueMemberL{}}
			if _, err := c.decode(zero, bad); err == nil {
				t.Errorf("%s: %s as a list read without error", c.name, name)
			}
		}
	}
}

// TestLegacySummaryReadsAsAttributeValueReadIt: the summary attributes of
// a policy item written before issue 9, with every field of the request
// set (fill) or left zero, read through JSON as attributevalue read them.
func TestLegacySummaryReadsAsAttributeValueReadIt(t *testing.T) {
	var rich store.Summary
	fill(reflect.ValueOf(&rich).Elem())
	rich.AccountID = "" // json:"-": never stored
	for _, sum := range []store.Summary{rich, {ID: "pol_1"}} {
		m := avMarshal(t, legacyPolicyItem{PK: "ACCOUNT#acct_1", SK: "POLICY#" + sum.ID, Summary: sum})
		var got, want legacyPolicyItem
		if err := decodeJSON(m, &got); err != nil {
			t.Fatal(err)
		}
		if err := avUnmarshal(m, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("legacy summary:\n got %+v\nwant %+v", got, want)
		}
	}
	if rich.OnlineOnly == nil || len(rich.Retention) == 0 || len(rich.ComplianceFlags) == 0 {
		t.Fatalf("fill left fields zero: %+v", rich)
	}
}

// fill sets every field reachable from v to a value that is not zero.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x-" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint8:
		v.SetUint(7)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range v.Len() {
			fill(v.Index(i))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 26, 14, 3, 4, 5, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	default:
		panic("fill: no case for " + v.Type().String())
	}
}

func describe(m map[string]types.AttributeValue) string {
	s := "{"
	for name, v := range m {
		s += name + ":" + reflect.TypeOf(v).Elem().Name()[len("AttributeValueMember"):] + " "
	}
	return s + "}"
}
