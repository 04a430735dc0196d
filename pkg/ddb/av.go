package ddb

import (
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// AV is an attribute value as DynamoDB's JSON protocol writes it: an
// object with exactly one member named by the value's type ("S", "N", "B"
// in base64, "BOOL", "NULL", "M", "L", "SS", "NS", "BS"). The pointers
// keep an empty string, binary, map or list apart from an absent one.
type AV struct {
	S    *string        `json:"S,omitempty"`
	N    *string        `json:"N,omitempty"`
	B    *[]byte        `json:"B,omitempty"`
	BOOL *bool          `json:"BOOL,omitempty"`
	NULL *bool          `json:"NULL,omitempty"`
	M    *map[string]AV `json:"M,omitempty"`
	L    *[]AV          `json:"L,omitempty"`
	SS   []string       `json:"SS,omitempty"`
	NS   []string       `json:"NS,omitempty"`
	BS   [][]byte       `json:"BS,omitempty"`
}

// toWire is v in the protocol's form. A value of a type DynamoDB does
// not have (nil, or an unknown member) is an error, not a silent NULL.
func toWire(v types.AttributeValue) (AV, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return AV{S: &v.Value}, nil
	case *types.AttributeValueMemberN:
		return AV{N: &v.Value}, nil
	case *types.AttributeValueMemberB:
		b := v.Value
		if b == nil {
			b = []byte{}
		}
		return AV{B: &b}, nil
	case *types.AttributeValueMemberBOOL:
		return AV{BOOL: &v.Value}, nil
	case *types.AttributeValueMemberNULL:
		return AV{NULL: &v.Value}, nil
	case *types.AttributeValueMemberM:
		m, err := toWireMap(v.Value)
		if err != nil {
			return AV{}, err
		}
		if m == nil {
			m = map[string]AV{}
		}
		return AV{M: &m}, nil
	case *types.AttributeValueMemberL:
		l := make([]AV, len(v.Value))
		for i, e := range v.Value {
			w, err := toWire(e)
			if err != nil {
				return AV{}, fmt.Errorf("[%d]: %w", i, err)
			}
			l[i] = w
		}
		return AV{L: &l}, nil
	case *types.AttributeValueMemberSS:
		return AV{SS: nonNil(v.Value)}, nil
	case *types.AttributeValueMemberNS:
		return AV{NS: nonNil(v.Value)}, nil
	case *types.AttributeValueMemberBS:
		return AV{BS: nonNil(v.Value)}, nil
	}
	return AV{}, fmt.Errorf("attribute value of type %T", v)
}

// nonNil: a set is sent even when empty, so that DynamoDB, not this
// client, refuses it (an empty set is a ValidationException).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func toWireMap(m map[string]types.AttributeValue) (map[string]AV, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]AV, len(m))
	for k, v := range m {
		w, err := toWire(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", k, err)
		}
		out[k] = w
	}
	return out, nil
}

// fromWire is the SDK's value for w. DynamoDB sends one member; a value
// with none (a type this client does not know) reads as NULL.
func fromWire(w AV) types.AttributeValue {
	switch {
	case w.S != nil:
		return &types.AttributeValueMemberS{Value: *w.S}
	case w.N != nil:
		return &types.AttributeValueMemberN{Value: *w.N}
	case w.B != nil:
		return &types.AttributeValueMemberB{Value: *w.B}
	case w.BOOL != nil:
		return &types.AttributeValueMemberBOOL{Value: *w.BOOL}
	case w.M != nil:
		return &types.AttributeValueMemberM{Value: fromWireMap(*w.M)}
	case w.L != nil:
		l := make([]types.AttributeValue, len(*w.L))
		for i, e := range *w.L {
			l[i] = fromWire(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case w.SS != nil:
		return &types.AttributeValueMemberSS{Value: w.SS}
	case w.NS != nil:
		return &types.AttributeValueMemberNS{Value: w.NS}
	case w.BS != nil:
		return &types.AttributeValueMemberBS{Value: w.BS}
	}
	return &types.AttributeValueMemberNULL{Value: true}
}

func fromWireMap(m map[string]AV) map[string]types.AttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = fromWire(v)
	}
	return out
}

// Item is an attribute map that marshals in the protocol's form.
type Item map[string]types.AttributeValue

// MarshalJSON implements json.Marshaler.
func (m Item) MarshalJSON() ([]byte, error) {
	w, err := toWireMap(m)
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}
