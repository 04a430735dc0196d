package dynamo_test

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/policygen/policygen/pkg/store/dynamo"
)

// TestStoreDoesNotReachTheClient guards DECISIONS.md 38: no type reachable
// from a Store's fields may be the DynamoDB client. A Store sits in a
// store.Store interface, and in a binary that looks methods up by name
// (the dashboard's html/template) the linker keeps every exported method
// of every type reachable that way: a *dynamodb.Client field puts all of
// DynamoDB's operations, 2 MB, into the dashboard.
func TestStoreDoesNotReachTheClient(t *testing.T) {
	client := reflect.TypeFor[dynamodb.Client]()
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		if typ == client {
			t.Errorf("%s is a dynamodb.Client: hold the operations the store calls as method values instead", path)
			return
		}
		switch typ.Kind() {
		case reflect.Struct:
			for i := range typ.NumField() {
				f := typ.Field(i)
				walk(f.Type, path+"."+f.Name)
			}
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			walk(typ.Elem(), path+"[elem]")
		case reflect.Map:
			walk(typ.Key(), path+"[key]")
			walk(typ.Elem(), path+"[elem]")
		case reflect.Func:
			for i := range typ.NumIn() {
				walk(typ.In(i), path+"(in)")
			}
			for i := range typ.NumOut() {
				walk(typ.Out(i), path+"(out)")
			}
		}
	}
	walk(reflect.TypeFor[dynamo.Store](), "Store")
	if len(seen) < 3 {
		t.Fatalf("walked only %d types: the walk does not reach the store's fields", len(seen))
	}
}
