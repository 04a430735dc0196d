package catalog

import (
	"reflect"
	"unsafe"
)

// ptrIndex maps strings, by where their bytes are, to the position of the
// catalog entry whose id they spell. Load registers every string of the
// catalog that spells a data category's or a purpose's id (an entry's own
// id and every list that refers to it: a business type's categories, a
// service category's purposes, ...), and generation passes those very
// strings around: finding one here is a multiplication and a compare,
// where the id map hashes and compares the text. A hit is always right:
// the registered string is kept alive by the catalog and strings never
// change, so the same address and length mean the same bytes. A string
// that is not registered (a copy, one from a request) misses and the
// caller asks the map.
type ptrIndex struct {
	slots []ptrSlot // a power of two long, at most half full
}

type ptrSlot struct {
	p   *byte
	n   int
	pos int
}

func (x *ptrIndex) slot(p *byte) int {
	h := uint64(uintptr(unsafe.Pointer(p))) * 0x9e3779b97f4a7c15
	return int(h>>32) & (len(x.slots) - 1)
}

// get returns the position registered for s.
func (x *ptrIndex) get(s string) (int, bool) {
	if len(x.slots) == 0 || len(s) == 0 {
		return 0, false
	}
	p := unsafe.StringData(s)
	for i := x.slot(p); ; i = (i + 1) & (len(x.slots) - 1) {
		sl := &x.slots[i]
		if sl.p == p && sl.n == len(s) {
			return sl.pos, true
		}
		if sl.p == nil {
			return 0, false
		}
	}
}

// newPtrIndex registers each string of strs that index knows.
func newPtrIndex(strs []string, index map[string]int) ptrIndex {
	type entry struct {
		s   string
		pos int
	}
	seen := map[*byte]bool{}
	var entries []entry
	for _, s := range strs {
		pos, ok := index[s]
		if !ok || s == "" || seen[unsafe.StringData(s)] {
			continue
		}
		seen[unsafe.StringData(s)] = true
		entries = append(entries, entry{s, pos})
	}
	n := 16
	for n < 2*len(entries) {
		n *= 2
	}
	x := ptrIndex{slots: make([]ptrSlot, n)}
	for _, e := range entries {
		p := unsafe.StringData(e.s)
		i := x.slot(p)
		for x.slots[i].p != nil {
			i = (i + 1) & (n - 1)
		}
		x.slots[i] = ptrSlot{p: p, n: len(e.s), pos: e.pos}
	}
	return x
}

// catalogStrings is every string of the catalog's parts that refer to
// purposes and data categories: their own entries, the service
// categories, the practices, the business types, and each service's data
// categories (walking the services whole, cookies and sources included,
// took a tenth of loading the catalog).
func catalogStrings(c *Catalog) []string {
	var out []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			out = append(out, v.String())
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			t := v.Type()
			for i := range v.NumField() {
				if t.Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(it.Key())
				walk(it.Value())
			}
		}
	}
	for _, part := range []any{&c.DataCategories, &c.Purposes, &c.ServiceCategories, &c.Website, &c.Payments, &c.Analytics, &c.BusinessTypes} {
		walk(reflect.ValueOf(part).Elem())
	}
	for i := range c.Services {
		out = append(out, c.Services[i].DataCategories...)
	}
	return out
}
